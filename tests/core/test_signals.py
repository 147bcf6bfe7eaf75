"""Signals cross floors; they carry no workflow within one app
(ARCHITECTURE.md, *How a lower floor reaches a higher one*): no app listens
to a signal it defines itself. Consent settles a request by calling the
function, never by reacting to its own ``grant_changed``; the core announces
to the apps above and listens to none of its own."""

from __future__ import annotations

import ast
import importlib
import weakref
from pathlib import Path
from typing import Any

from django.dispatch import Signal

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("config", "switchboard", "outbox", "consent", "hooks", "subscriptions")


def signals_defined() -> dict[str, Signal]:
    """Every ``name = Signal()`` at the top of a module of ours, by
    ``module.name`` (read where it is defined, not where it is imported)."""
    found: dict[str, Signal] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            for node in tree.body:
                if (
                    isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call)
                    and getattr(node.value.func, "id", getattr(node.value.func, "attr", ""))
                    == "Signal"
                ):
                    parts = path.relative_to(ROOT).with_suffix("").parts
                    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
                    for target in node.targets:
                        assert isinstance(target, ast.Name)
                        signal = getattr(importlib.import_module(module), target.id)
                        found[f"{module}.{target.id}"] = signal
    return found


def receiver_modules(signal: Signal) -> list[str]:
    """The modules of the receivers connected to ``signal`` now (weakly
    connected ones resolved; a dead reference is no receiver)."""
    modules = []
    for _key, receiver, _sender, _is_async in signal.receivers:
        target: Any = receiver() if isinstance(receiver, weakref.ReferenceType) else receiver
        if target is not None:
            modules.append(target.__module__)
    return modules


def own_listeners() -> list[str]:
    """``signal <- receiver module`` for each receiver in the package that
    defines the signal."""
    return [
        f"{name} <- {module}"
        for name, signal in signals_defined().items()
        for module in receiver_modules(signal)
        if module.split(".")[0] == name.split(".")[0]
    ]


def test_the_signals_and_their_receivers_are_seen():
    signals = signals_defined()
    assert "consent.signals.grant_changed" in signals
    assert "switchboard.signals.user_erasing" in signals
    assert "subscriptions.receivers" in receiver_modules(signals["consent.signals.grant_changed"])
    assert "consent.receivers" in receiver_modules(signals["switchboard.signals.user_erasing"])


def test_consent_listens_to_none_of_its_own_signals():
    consent_signals = {n: s for n, s in signals_defined().items() if n.startswith("consent.")}
    assert consent_signals
    heard_in_consent = {
        name: modules
        for name, signal in consent_signals.items()
        if (modules := [m for m in receiver_modules(signal) if m.split(".")[0] == "consent"])
    }
    assert heard_in_consent == {}


def test_no_app_listens_to_a_signal_it_defines():
    assert own_listeners() == []


def test_the_check_sees_an_app_listening_to_its_own_signal():
    from consent.signals import grant_changed

    def settle(**kwargs: Any) -> None:
        """Would settle a request in consent on consent's own signal."""

    settle.__module__ = "consent.receivers"
    grant_changed.connect(settle, weak=False, dispatch_uid="tests.own_listener")
    try:
        assert own_listeners() == ["consent.signals.grant_changed <- consent.receivers"]
    finally:
        grant_changed.disconnect(dispatch_uid="tests.own_listener")
    assert own_listeners() == []

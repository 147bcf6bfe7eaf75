"""What one lifecycle event carries between ``lifecycle_event_handle``'s steps:
the host's input, and the engine's decisions as the steps refine them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hooks import engine
from hooks.engine import Candidate, Suppression, ToolFailure
from hooks.services.context_tools import LATE


@dataclass
class LifecycleInput:
    session_id: str
    user: str
    event: str
    thread_id: str | None = None
    servers: Sequence[str] | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_output: Any = None
    tool_server: str | None = None
    project_name: str | None = None
    # A host's own event name and its agent (``hooks.services.native``).
    dialect: str | None = None
    native_event: str = ""


@dataclass
class Evaluation:
    """What the engine decided, carried from step to step."""

    facts: engine.EventFacts
    notices: list[dict[str, Any]]
    matched: engine.Matched
    admitted: list[Candidate]
    suppressed: list[Suppression]
    held: list[Suppression]
    tool_results: dict[str, str | ToolFailure] = field(default_factory=dict)
    latencies: dict[str, int] = field(default_factory=dict)

    @property
    def late(self) -> list[dict[str, str]]:
        """Hooks whose server was still starting past the readiness wait
        (a ``hook_id`` is ``"<server id>:<hex>"``)."""
        return [
            {"server": hook_id.rpartition(":")[0], "hook_id": hook_id}
            for hook_id, result in self.tool_results.items()
            if isinstance(result, ToolFailure) and result.reason == LATE
        ]

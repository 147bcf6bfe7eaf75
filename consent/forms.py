"""Forms of the consent pages: the decision (fields per grant) and the host policy."""

from __future__ import annotations

from django import forms
from django.conf import settings

from consent.models import ConsentRequest, Grant, HostPolicy, Scope, ServerListMode
from consent.services.access_requests import NOTE_MAX, REASON_MAX
from consent.services.request_deciding import REMEMBER_CHOICES, Decision
from consent.services.request_rules import additions_open, needs_answer
from consent.snapshots import snapshot_event_types, snapshot_hook_ids
from switchboard.labels import label


def duration_words(seconds: float) -> str:
    """``86400`` → "1 day"; settings may compress time in tests, and the page
    must say what will really happen."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''}"
    count = round(seconds)
    return f"{count} second{'s' if count != 1 else ''}"


def remember_options() -> list[tuple[str, str]]:
    return [
        ("1d", f"Remember for {duration_words(settings.CONSENT_REMEMBER_SHORT)}"),
        ("30d", f"Remember for {duration_words(settings.CONSENT_REMEMBER_LONG)}"),
        ("forever", "Until I take it back"),
    ]


def decisions_from_post(
    consent_request: ConsentRequest, grants: list[Grant], data
) -> tuple[dict[str, Decision], str, dict]:
    """Read the consent form: ``decision-<grant>`` (allow/deny), ticked
    ``hooks-<grant>`` / ``events-<grant>``, the shown ``hash-<grant>``, and
    ``remember``. The "Allow all" / "Don't allow anything" buttons
    (``all=allow|deny``) decide every grant and item the request asks about at
    once: for a grant already active, that is what the request adds to it.

    Returns (decisions, remember, errors by field name).
    """

    everything = data.get("all")
    remember = data.get("remember") or "30d"
    errors: dict[str, str] = {}
    if remember not in REMEMBER_CHOICES:
        errors["remember"] = "Choose how long to remember this."
    decisions = {}
    for grant in grants:
        if not needs_answer(consent_request, grant):
            continue
        choice = everything or data.get(f"decision-{grant.id}")
        if choice not in ("allow", "deny"):
            errors[grant.id] = "Choose “Allow” or “Don’t allow”."
            continue
        added = additions_open(consent_request, grant)
        if everything == "allow" and added is not None:
            hooks, types = added["hook_ids"], added["event_types"]
        elif everything == "allow":
            hooks, types = snapshot_hook_ids(grant.shown), snapshot_event_types(grant.shown)
        else:
            hooks, types = data.getlist(f"hooks-{grant.id}"), data.getlist(f"events-{grant.id}")
        decisions[grant.id] = Decision(
            allow=choice == "allow",
            hook_ids=hooks,
            event_types=types,
            shown_hash=data.get(f"hash-{grant.id}") or None,
        )
    return decisions, remember, errors


class HostPolicyForm(forms.ModelForm):
    listed_server_ids = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Listed servers",
    )

    class Meta:
        model = HostPolicy
        fields = [
            "server_list_mode",
            "listed_server_ids",
            "required_hooks_trusted_only",
            "context_tools_trusted_only",
            "max_chars_per_message",
            "max_chars_per_server",
            "conversation_budget_ms",
        ]
        labels = {
            "server_list_mode": "Which servers may ask your users",
            "required_hooks_trusted_only": "Honour “required” hooks only from trusted servers "
            "(others count as “important”)",
            "context_tools_trusted_only": "Run only static context hooks for servers not marked "
            "trusted (no context tool calls, which would send them the event's data)",
            "max_chars_per_message": "Most characters injected into one message (all servers)",
            "max_chars_per_server": "Most characters injected into one message by one server",
            "conversation_budget_ms": "Time budget for conversation context (milliseconds)",
        }
        widgets = {"server_list_mode": forms.RadioSelect}

    def __init__(self, *args, servers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["listed_server_ids"].choices = [(s.id, s.name) for s in servers]
        self.fields["server_list_mode"].choices = ServerListMode.choices
        # The service checks the range; the browser is told it too.
        self.fields["conversation_budget_ms"].widget.attrs.update(min=50, max=10_000)


class ServerPriorityForm(forms.Form):
    priority = forms.IntegerField(min_value=-1_000_000, max_value=1_000_000)


class OrgGrantForm(forms.Form):
    """The staff page's "allow a server for a group" form. Hooks and event
    types: everything the server declares (the API can name fewer)."""

    server = forms.ChoiceField(label="Server")
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices, widget=forms.CheckboxSelectMultiple, label="What it may do"
    )
    groups = forms.CharField(
        max_length=5200,
        label="For whom",
        help_text="Group names, separated by commas; * for every user",
    )
    user_can_revoke = forms.BooleanField(
        required=False, initial=True, label="Users may turn it off for themselves"
    )
    expires_at = forms.DateTimeField(
        required=False,
        label="Until (UTC; empty: until ended)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def __init__(self, *args, servers=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["server"].choices = [(s.id, s.name) for s in servers]
        self.fields["scopes"].choices = [
            (scope, label("scope", scope, "staff")) for scope in Scope.values
        ]

    def clean_groups(self) -> list[str]:
        names = [name.strip() for name in self.cleaned_data["groups"].split(",")]
        return [name for name in names if name]


class AccessRequestForm(forms.Form):
    reason = forms.CharField(
        label="Why do you need it?",
        max_length=REASON_MAX,
        widget=forms.Textarea(attrs={"rows": 4}),
        error_messages={
            "required": "Say why you need this server: staff decide on your reason.",
            "max_length": f"At most {REASON_MAX:,} characters, please.",
        },
    )


class AccessDenyForm(forms.Form):
    note = forms.CharField(
        label="Why not (the user reads this)",
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={
            "required": "Say why the request is denied: the user reads your note.",
            "max_length": f"At most {NOTE_MAX:,} characters, please.",
        },
    )

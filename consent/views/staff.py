"""Staff pages of the consent app: pending requests, one user's consents and
their history, deciding on a user's behalf, the host policy, injections.

Auditors see everything (injected text included) and change nothing;
admins manage, but do not read injected text.
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from consent.forms import HostPolicyForm, ServerPriorityForm
from consent.models import RequestStatus
from consent.presenters import consent_step_words
from consent.selectors import (
    authorized_server_cards,
    consent_evidence,
    consent_request_get_for_host,
    consent_request_status,
    consent_requests_pending_for_host,
    conversation_disabled_by_server,
    grant_get_for_host,
    host_policy_get,
    injection_get_for_host,
    injections_for_host,
)
from consent.services import (
    consent_request_refresh,
    conversation_reenable,
    grant_turn_off,
    host_policy_update,
)
from consent.views.as_of import as_of_view
from consent.views.user import decide, request_page_context
from switchboard.actors import Actor
from switchboard.errors import Forbidden, Invalid
from switchboard.models import Role, User
from switchboard.selectors import (
    audit_entries_for_host,
    end_user_get_for_host,
    server_get_for_host,
    servers_for_host,
    user_get_for_host,
    user_groups_of,
)
from switchboard.services.ledger_checkpoints import latest_checkpoint
from switchboard.services.servers import server_update
from switchboard.views.access import staff_required
from switchboard.views.paging import page_of
from switchboard.views.retention import retention_rows


def admin_required(view):
    """Staff pages that change something: host admins only."""

    @staff_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.user.role != Role.ADMIN:
            raise PermissionDenied("admins only")
        return view(request, *args, **kwargs)

    return wrapper


def _subject(request, user_id: str) -> User:
    return end_user_get_for_host(host=request.user.host, user_id=user_id)


@require_GET
@staff_required
def pending(request):
    rows, next_cursor = page_of(request, consent_requests_pending_for_host(host=request.user.host))
    context = {"nav": "consents", "requests": rows, "next_cursor": next_cursor}
    return render(request, "consent/staff/pending.html", context)


@require_GET
@staff_required
def find_user(request):
    external_id = request.GET.get("external_id", "")
    user = user_get_for_host(host=request.user.host, external_id=external_id)
    return redirect("consent-staff-user", user_id=user.id)


@require_GET
@staff_required
def user_consents(request, user_id: str):
    subject = _subject(request, user_id)
    history = audit_entries_for_host(host=request.user.host, user_id=subject.id).filter(
        kind__startswith="consent."
    )
    entries, next_cursor = page_of(request, history, order=("id",))
    as_of = as_of_view(subject, request.GET.get("at"))
    context = {
        "as_of": as_of,
        "nav": "consents",
        "subject": subject,
        "cards": authorized_server_cards(user=subject),
        "groups": user_groups_of(user=subject),
        "pending": list(
            consent_requests_pending_for_host(host=request.user.host).filter(user=subject)
        ),
        "entries": entries,
        "next_cursor": next_cursor,
        "staff": True,
    }
    return render(request, "consent/staff/user.html", context, status=422 if as_of.error else 200)


@require_GET
@staff_required
def user_evidence(request, user_id: str):
    """A printable record of every consent step of one user with what they
    were shown, for a data-subject request (print it, or save it as PDF)."""
    subject = _subject(request, user_id)
    evidence = consent_evidence(user=subject)
    for step in evidence:
        step.words = consent_step_words(step.kind)
    context = {
        "nav": "consents",
        "subject": subject,
        "evidence": evidence,
        "printed_at": timezone.now(),
        "printed_by": request.user.label,
        # The newest signed checkpoint: every step it covers can be checked
        # against it later (docs/transparency.md).
        "checkpoint": latest_checkpoint(subject.host_id) if subject.host_id else None,
    }
    return render(request, "consent/staff/evidence.html", context)


def _host_request(request, request_id: str):
    return consent_request_get_for_host(host=request.user.host, request_id=request_id)


@require_GET
@staff_required
def request_page(request, request_id: str):
    consent_request = _host_request(request, request_id)
    if consent_request_status(consent_request) == RequestStatus.PENDING:
        consent_request_refresh(request=consent_request)
    context = {"nav": "consents", **request_page_context(consent_request, staff=True)}
    return render(request, "consent/request.html", context)


@require_POST
@admin_required
def request_decide(request, request_id: str):
    """An admin decides for the user (e.g. on the phone with them); the
    grant's channel says so, on every page and in the ledger."""
    consent_request = _host_request(request, request_id)
    return decide(
        request,
        consent_request,
        channel="staff",
        staff=True,
        template_name="consent/request.html",
        done_url=reverse("consent-staff-request", args=[consent_request.id]),
    )


@require_POST
@admin_required
def revoke_grant(request, grant_id: str):
    grant = grant_get_for_host(host_id=request.user.host_id, grant_id=grant_id)
    if grant is None:
        raise Http404("no such consent")
    try:
        grant_turn_off(grant=grant, actor=Actor.for_user(request.user))
    except Forbidden as refused:  # the organisation keeps it on
        raise PermissionDenied(refused.message) from None
    return redirect("consent-staff-user", user_id=grant.user_id)


def _policy_context(request, form=None):
    host = request.user.host
    policy = host_policy_get(host_id=host.id)
    servers = list(servers_for_host(host=host).order_by("priority", "name"))
    disabled = conversation_disabled_by_server(host=host)
    return {
        "nav": "policy",
        "form": form or HostPolicyForm(instance=policy, servers=servers),
        "server_rows": [{"server": s, "disabled": disabled.get(s.id)} for s in servers],
        "timeouts_to_disable": settings.CONVERSATION_TIMEOUTS_TO_DISABLE,
        "can_edit": request.user.role == Role.ADMIN,
        "retention": retention_rows(host),
    }


@require_GET
@staff_required
def policy(request):
    return render(request, "consent/staff/policy.html", _policy_context(request))


@require_POST
@admin_required
def policy_save(request):
    host = request.user.host
    servers = list(servers_for_host(host=host))
    form = HostPolicyForm(request.POST, instance=host_policy_get(host_id=host.id), servers=servers)
    if form.is_valid():
        try:
            host_policy_update(host=host, actor=Actor.for_user(request.user), **form.cleaned_data)
            return redirect("consent-staff-policy")
        except Invalid as invalid:
            form.add_error(invalid.field if invalid.field in form.fields else None, invalid.message)
    return render(request, "consent/staff/policy.html", _policy_context(request, form), status=422)


@require_POST
@admin_required
def server_priority(request, server_id: str):

    server = server_get_for_host(host=request.user.host, server_id=server_id)
    form = ServerPriorityForm(request.POST)
    if form.is_valid():
        server_update(
            server=server,
            actor=Actor.for_user(request.user),
            priority=form.cleaned_data["priority"],
        )
    return redirect("consent-staff-policy")


@require_POST
@admin_required
def reenable_conversation(request, server_id: str):
    server = server_get_for_host(host=request.user.host, server_id=server_id, include_removed=True)
    conversation_reenable(server=server, actor=Actor.for_user(request.user))
    return redirect("consent-staff-policy")


@require_GET
@staff_required
def injections(request):
    rows, next_cursor = page_of(request, injections_for_host(host=request.user.host))
    context = {
        "nav": "injections",
        "rows": rows,
        "next_cursor": next_cursor,
        "show_text": request.user.role == Role.AUDITOR,
    }
    return render(request, "consent/staff/injections.html", context)


@require_GET
@staff_required
def injection_detail(request, injection_id: str):
    if request.user.role != Role.AUDITOR:
        raise PermissionDenied("injected text is for auditors")
    injection = injection_get_for_host(host=request.user.host, injection_id=injection_id)
    return render(request, "consent/staff/injection.html", {"nav": "injections", "row": injection})

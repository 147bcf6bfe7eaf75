"""Writes of the consent app. Import from here; the modules split by topic."""

from consent.services.grant_suspension import (
    grant_suspend,
    grants_on_declarations_changed,
    grants_on_registration_changed,
)
from consent.services.grants import (
    declaration_hash,
    grant_approve,
    grant_deny,
    grant_expire,
    grant_request,
    grant_revoke,
    grants_expire_due,
    grants_revoke_all,
)
from consent.services.injections import (
    injection_report,
    injections_purge_due,
    user_consent_erase,
)
from consent.services.org_grants import (
    grant_turn_off,
    grants_turn_off_all,
    org_grant_approve,
    org_grant_create,
    org_grant_end,
    org_grants_membership_follow,
)
from consent.services.policy import conversation_reenable, host_policy_update
from consent.services.request_deciding import (
    Decision,
    consent_request_decide,
    consent_request_refresh,
)
from consent.services.request_expiry import consent_requests_expire_due
from consent.services.request_links import consent_url
from consent.services.request_opening import consent_request_create

__all__ = [
    "Decision",
    "consent_request_create",
    "consent_request_decide",
    "consent_request_refresh",
    "consent_requests_expire_due",
    "consent_url",
    "conversation_reenable",
    "declaration_hash",
    "grant_approve",
    "grant_deny",
    "grant_expire",
    "grant_request",
    "grant_revoke",
    "grant_suspend",
    "grants_expire_due",
    "grants_on_declarations_changed",
    "grants_on_registration_changed",
    "grants_revoke_all",
    "grant_turn_off",
    "grants_turn_off_all",
    "org_grant_approve",
    "org_grant_create",
    "org_grant_end",
    "org_grants_membership_follow",
    "host_policy_update",
    "injection_report",
    "injections_purge_due",
    "user_consent_erase",
]

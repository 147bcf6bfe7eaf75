"""Console pages of the consent app (included at the root by config.urls)."""

from django.urls import path

from consent.views import access_requests, org_grants, staff, user

urlpatterns = [
    path("consent/servers/", user.authorized_servers, name="consent-servers"),
    path("consent/injections/", user.injections, name="consent-injections"),
    path("consent/revoke-all", user.revoke_everything, name="consent-revoke-all"),
    path("consent/grants/<str:grant_id>/revoke", user.revoke_grant, name="consent-revoke"),
    path(
        "consent/servers/<str:server_id>/revoke", user.revoke_server, name="consent-revoke-server"
    ),
    path(
        "consent/servers/<str:server_id>/disconnect",
        user.disconnect_server,
        name="consent-disconnect",
    ),
    path(
        "consent/servers/<str:server_id>/conversation/enable",
        user.reenable_conversation,
        name="consent-reenable",
    ),
    path(
        "consent/access/<str:server_id>/",
        access_requests.request_form,
        name="consent-access-request",
    ),
    path("consent/<str:request_id>/", user.consent_page, name="consent-request"),
    path("consent/<str:request_id>/decide", user.consent_decide, name="consent-decide"),
    path("consent/<str:request_id>/preview", user.consent_preview, name="consent-preview"),
    path("staff/consents/", staff.pending, name="consent-staff-pending"),
    path("staff/consents/users/", staff.find_user, name="consent-staff-find-user"),
    path("staff/consents/users/<str:user_id>/", staff.user_consents, name="consent-staff-user"),
    path(
        "staff/consents/users/<str:user_id>/evidence",
        staff.user_evidence,
        name="consent-staff-user-evidence",
    ),
    path(
        "staff/consents/requests/<str:request_id>/",
        staff.request_page,
        name="consent-staff-request",
    ),
    path(
        "staff/consents/requests/<str:request_id>/decide",
        staff.request_decide,
        name="consent-staff-decide",
    ),
    path(
        "staff/consents/grants/<str:grant_id>/revoke",
        staff.revoke_grant,
        name="consent-staff-revoke",
    ),
    path("staff/access-requests/", access_requests.queue, name="consent-staff-access-requests"),
    path(
        "staff/access-requests/<str:request_id>/approve",
        access_requests.approve,
        name="consent-staff-access-approve",
    ),
    path(
        "staff/access-requests/<str:request_id>/deny",
        access_requests.deny,
        name="consent-staff-access-deny",
    ),
    path("staff/policy/", staff.policy, name="consent-staff-policy"),
    path("staff/policy/save", staff.policy_save, name="consent-staff-policy-save"),
    path(
        "staff/policy/servers/<str:server_id>/priority",
        staff.server_priority,
        name="consent-staff-priority",
    ),
    path(
        "staff/policy/servers/<str:server_id>/conversation/enable",
        staff.reenable_conversation,
        name="consent-staff-reenable",
    ),
    path("staff/org-grants/", org_grants.org_grants, name="consent-staff-org-grants"),
    path("staff/org-grants/new", org_grants.org_grant_new, name="consent-staff-org-grant-new"),
    path(
        "staff/org-grants/<str:org_grant_id>/end",
        org_grants.org_grant_stop,
        name="consent-staff-org-grant-end",
    ),
    path(
        "staff/org-grants/<str:org_grant_id>/approve",
        org_grants.org_grant_allow_again,
        name="consent-staff-org-grant-approve",
    ),
    path("staff/injections/", staff.injections, name="consent-staff-injections"),
    path(
        "staff/injections/<str:injection_id>/",
        staff.injection_detail,
        name="consent-staff-injection",
    ),
]

from django.contrib import admin
from django.urls import include, path

from config import health as health_page
from config import metrics as metrics_page
from config import views as start
from config.api import api
from switchboard.views import (
    auth,
    health,
    keys,
    pages,
    retention,
    scim,
    servers,
    sso,
    staff,
    staff_sign_in,
)

urlpatterns = [
    path("", start.home, name="home"),
    path("activity/", pages.activity, name="activity"),
    path("login/<str:token>", auth.consume_login_link, name="login-link"),
    path("signin/", auth.login_required_notice, name="login-required"),
    path("logout/", auth.sign_out, name="logout"),
    path("sso/start", sso.sso_start, name="sso-start"),
    path("sso/oidc/callback", sso.sso_callback, name="sso-callback"),
    path("scim/v2", scim.scim, name="scim-root"),
    path("scim/v2/", scim.scim),
    path("scim/v2/<path:path>", scim.scim, name="scim"),
    path("staff/", start.overview, name="staff-overview"),
    path("staff/health/", health_page.health, name="staff-health"),
    path("staff/users/", staff.users, name="staff-users"),
    path("staff/servers/", servers.server_list, name="staff-servers"),
    path("staff/servers/new/", servers.server_new, name="staff-server-new"),
    path("staff/servers/<str:server_id>/", servers.server_detail, name="staff-server"),
    path("staff/servers/<str:server_id>/resync", servers.server_resync, name="staff-server-resync"),
    path("staff/servers/<str:server_id>/url", servers.server_url, name="staff-server-url"),
    path(
        "staff/servers/<str:server_id>/dialect", servers.server_dialect, name="staff-server-dialect"
    ),
    path(
        "staff/servers/<str:server_id>/handlers",
        servers.server_handlers,
        name="staff-server-handlers",
    ),
    path("staff/servers/<str:server_id>/remove", servers.server_remove, name="staff-server-remove"),
    path("staff/retention", retention.retention_save, name="staff-retention"),
    path(
        "staff/servers/<str:server_id>/block", servers.server_block_page, name="staff-server-block"
    ),
    path("staff/keys/", keys.key_list, name="staff-keys"),
    path("staff/keys/new", keys.key_create, name="staff-key-new"),
    path("staff/keys/<str:key_id>/revoke", keys.key_revoke, name="staff-key-revoke"),
    path("staff/audit/", staff.audit, name="staff-audit"),
    path("staff/sign-in/", staff_sign_in.sign_in_settings, name="staff-sign-in"),
    path("staff/sign-in/sso", staff_sign_in.sso_save, name="staff-sso-save"),
    path("staff/sign-in/scim-token", staff_sign_in.scim_token_new, name="staff-scim-token"),
    path("staff/sign-in/sessions/end", staff_sign_in.sessions_end, name="staff-sessions-end"),
    path("staff/audit/export.<str:fmt>", staff.audit_export, name="staff-audit-export"),
    path("", include("consent.urls")),
    path("", include("hooks.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics_page.metrics_view, name="metrics"),
    path("api/v1/", api.urls),
    path("", include("subscriptions.urls")),
    path("", include("outbox.urls")),
    path("admin/", admin.site.urls),
]

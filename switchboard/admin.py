"""Django's admin is for superusers only; the ledger is read-only there."""

from django.contrib import admin

from switchboard.models import ApiKey, AuditEntry, Host, McpServer, User


class SuperuserOnlyAdminSite(admin.AdminSite):
    def has_permission(self, request):
        return request.user.is_active and request.user.is_superuser


admin.site.__class__ = SuperuserOnlyAdminSite


@admin.register(AuditEntry)
class AuditEntryAdmin(admin.ModelAdmin):
    list_display = (
        "at",
        "host",
        "kind",
        "actor_kind",
        "actor_label",
        "user_external_id",
        "summary",
    )
    list_filter = ("kind", "actor_kind", "host")
    search_fields = ("summary", "kind", "user_external_id", "server_id", "subject_id")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "created_at")


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "host", "name", "created_at", "last_used_at", "revoked_at")
    exclude = ("hashed",)
    readonly_fields = ("prefix",)


@admin.register(McpServer)
class McpServerAdmin(admin.ModelAdmin):
    list_display = ("name", "host", "url", "status", "trust", "last_synced_at")
    exclude = ("headers",)


@admin.register(User)
class UserAdmin(admin.ModelAdmin):
    list_display = ("label", "host", "role", "external_id", "email", "is_active")
    exclude = ("password",)

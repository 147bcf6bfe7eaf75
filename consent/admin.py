"""Django admin (superusers only): consent state is read-only here — changes
go through the services, which write the ledger."""

from django.contrib import admin

from consent.models import ConsentRequest, Grant, HostPolicy, Injection, ServerConversationState


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Grant)
class GrantAdmin(ReadOnly):
    list_display = (
        "id",
        "user",
        "server",
        "scope",
        "status",
        "channel",
        "granted_at",
        "expires_at",
    )
    list_filter = ("status", "scope", "channel")
    search_fields = ("id", "user__external_id", "server__name")


@admin.register(ConsentRequest)
class ConsentRequestAdmin(ReadOnly):
    list_display = ("id", "user", "server", "status", "origin", "created_at", "expires_at")
    list_filter = ("status", "origin")


@admin.register(HostPolicy)
class HostPolicyAdmin(ReadOnly):
    list_display = (
        "host",
        "server_list_mode",
        "required_hooks_trusted_only",
        "context_tools_trusted_only",
        "conversation_budget_ms",
    )


@admin.register(ServerConversationState)
class ServerConversationStateAdmin(ReadOnly):
    list_display = ("server", "consecutive_timeouts", "disabled_at")


@admin.register(Injection)
class InjectionAdmin(ReadOnly):
    list_display = ("id", "created_at", "user", "server", "outcome", "chars", "latency_ms")
    list_filter = ("outcome", "source")
    exclude = ("text", "structured")  # user content: read it on the auditors' page

"""Read-only admin views of the hooks app's records (superusers only)."""

from django.contrib import admin

from hooks.models import HookFiring, HookPreference, LifecycleEvent, LifecycleSession, ThreadRefresh


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(LifecycleSession)
class LifecycleSessionAdmin(ReadOnly):
    list_display = ("session_id", "host", "user", "thread_id", "last_event_at")
    search_fields = ("session_id", "thread_id")
    list_filter = ("host",)


@admin.register(LifecycleEvent)
class LifecycleEventAdmin(ReadOnly):
    list_display = ("created_at", "host", "event", "tool_name", "injected", "duration_ms")
    list_filter = ("event", "host")


@admin.register(HookFiring)
class HookFiringAdmin(ReadOnly):
    list_display = ("created_at", "host", "server", "hook_id", "effective_priority", "chars")
    list_filter = ("effective_priority", "host")
    search_fields = ("hook_id",)


@admin.register(HookPreference)
class HookPreferenceAdmin(ReadOnly):
    list_display = ("user", "server", "hook_id", "muted", "max_priority")


@admin.register(ThreadRefresh)
class ThreadRefreshAdmin(ReadOnly):
    list_display = ("created_at", "thread_id", "kind", "status", "signals", "due_at", "finished_at")
    list_filter = ("status", "kind")
    search_fields = ("thread_id",)

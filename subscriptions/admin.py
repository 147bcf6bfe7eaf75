"""Read-only admin views: secrets and payloads stay out of forms and lists."""

from django.contrib import admin

from subscriptions.models import Subscription, TaskWatch


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Subscription)
class SubscriptionAdmin(ReadOnly):
    list_display = ("id", "event_name", "user", "server", "status", "next_refresh_at", "created_at")
    list_filter = ("status", "mode")
    search_fields = ("id", "event_name", "remote_id")
    exclude = ("secret_encrypted", "previous_secret_encrypted", "token")


@admin.register(TaskWatch)
class TaskWatchAdmin(ReadOnly):
    list_display = ("id", "task_id", "user", "server", "status", "next_check_at", "ended_at")
    list_filter = ("status",)
    search_fields = ("id", "task_id")

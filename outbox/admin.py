"""Read-only admin views: secrets and bodies stay out of forms and lists."""

from django.contrib import admin

from outbox.models import HostDelivery, HostEndpoint


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(HostEndpoint)
class HostEndpointAdmin(ReadOnly):
    list_display = ("host", "url", "status", "last_success_at", "last_failure_at")
    exclude = ("secret_encrypted", "previous_secret_encrypted")


@admin.register(HostDelivery)
class HostDeliveryAdmin(ReadOnly):
    list_display = (
        "public_id",
        "host",
        "type",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
    )
    list_filter = ("status", "type")
    exclude = ("body",)

"""Pages of the subscriptions app and the MCP webhook receiver."""

from django.urls import path

from subscriptions import views

app_name = "subscriptions"

urlpatterns = [
    path("webhooks/mcp/<str:token>", views.webhook, name="webhook"),
    path(
        ".well-known/mcp-webhook-receiver.json",
        views.receiver_document,
        name="receiver-document",
    ),
    path("subscriptions/", views.subscription_list, name="list"),
    path("subscriptions/<str:subscription_id>/", views.subscription_detail, name="detail"),
    path(
        "subscriptions/<str:subscription_id>/<str:action>",
        views.subscription_action,
        name="action",
    ),
    path("staff/subscriptions/", views.staff_subscription_list, name="staff-list"),
]

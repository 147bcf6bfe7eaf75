"""The host endpoint page (staff)."""

from django.urls import path

from outbox import views

app_name = "outbox"

urlpatterns = [
    path("staff/endpoint/", views.endpoint, name="endpoint"),
    path(
        "staff/endpoint/deliveries/<str:delivery_id>/resend",
        views.delivery_resend,
        name="resend",
    ),
    path("staff/endpoint/set", views.endpoint_set, name="endpoint-set"),
    path("staff/endpoint/<str:action>", views.endpoint_action, name="endpoint-action"),
]

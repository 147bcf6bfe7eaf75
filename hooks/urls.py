"""Console pages of the hooks app (included at the root by config.urls)."""

from django.urls import path

from hooks import views

urlpatterns = [
    path("hooks/", views.home, name="hooks-home"),
    path("hooks/timeline/", views.timeline, name="hooks-timeline"),
    path("hooks/servers/<str:server_id>/", views.server_hooks, name="hooks-server"),
    path("hooks/servers/<str:server_id>/preferences", views.preference, name="hooks-preference"),
    path("staff/hooks/sessions/", views.staff_sessions, name="hooks-staff-sessions"),
    path("staff/hooks/sessions/<str:session_pk>/", views.staff_session, name="hooks-staff-session"),
    path("staff/hooks/users/<str:user_id>/", views.staff_user, name="hooks-staff-user"),
]

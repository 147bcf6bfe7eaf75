"""The project's URLs plus two bare POST views for bench/webhook_receiver.py:
the baseline of what Django itself costs per request on the same server."""

from django.http import HttpResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.urls import urlpatterns as project_urlpatterns

_ACCEPTED = b'{"status":"accepted"}'


@csrf_exempt
async def bare_async(request):
    request.body  # noqa: B018 - read it, as a receiver must
    return HttpResponse(_ACCEPTED, content_type="application/json")


@csrf_exempt
def bare_sync(request):
    request.body  # noqa: B018
    return HttpResponse(_ACCEPTED, content_type="application/json")


urlpatterns = [
    path("bench/bare", bare_async),
    path("bench/bare-sync", bare_sync),
    *project_urlpatterns,
]

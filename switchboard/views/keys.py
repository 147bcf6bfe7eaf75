"""Staff page of the host's API keys: create (the secret is shown once, on
the answer to the creating request, and never stored), name, revoke."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from switchboard.actors import Actor
from switchboard.forms import ApiKeyCreateForm
from switchboard.selectors import api_key_get_for_host, api_keys_for_host
from switchboard.services.hosts import api_key_create, api_key_revoke
from switchboard.views.access import admin_required, staff_required
from switchboard.views.once import once_claim, once_token


def _page(
    request,
    *,
    form: ApiKeyCreateForm,
    created=None,
    plaintext: str = "",
    repeated: bool = False,
    status=200,
):
    context = {
        "nav": "staff",
        "keys": api_keys_for_host(host=request.user.host),
        "form": form,
        "once": once_token(),
        "created": created,
        "plaintext": plaintext,
        "repeated": repeated,
    }
    return render(request, "staff/keys.html", context, status=status)


@require_GET
@staff_required
def key_list(request):
    return _page(request, form=ApiKeyCreateForm())


@require_POST
@admin_required
def key_create(request):
    form = ApiKeyCreateForm(request.POST)
    if not form.is_valid():
        return _page(request, form=form, status=422)
    if not once_claim(request):
        # A reload of the answer re-posts the form: the key exists already,
        # and a second one would be a key nobody knows about.
        return _page(request, form=ApiKeyCreateForm(), repeated=True, status=409)
    key, plaintext = api_key_create(
        host=request.user.host, name=form.cleaned_data["name"], actor=Actor.for_user(request.user)
    )
    # Rendered, not redirected: the only place the secret ever appears.
    response = _page(request, form=ApiKeyCreateForm(), created=key, plaintext=plaintext)
    response["Cache-Control"] = "no-store"
    return response


@require_http_methods(["GET", "POST"])
@admin_required
def key_revoke(request, key_id: str):
    key = api_key_get_for_host(host=request.user.host, key_id=key_id)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        api_key_revoke(key=key, actor=Actor.for_user(request.user))
        messages.success(request, f"Key {key.prefix}… ({key.name or 'unnamed'}) is revoked.")
        return redirect("staff-keys")
    return render(request, "staff/key_revoke.html", {"nav": "staff", "key": key})

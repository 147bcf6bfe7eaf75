"""Staff pages of the server registry: list, detail, and everything an admin
does to a server without the API (register, re-sync, block, remove)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from switchboard.actors import Actor
from switchboard.errors import DomainError, Invalid
from switchboard.forms import ServerRegisterForm
from switchboard.labels import label
from switchboard.models import EventsDialectChoice, McpServer
from switchboard.retiring import what_goes_with
from switchboard.selectors import server_get_for_host, servers_for_host
from switchboard.services.server_block import server_block, server_unblock
from switchboard.services.server_sync import server_sync
from switchboard.services.servers import server_delete, server_register, server_update
from switchboard.views.access import admin_required, staff_required


def _server(request, server_id: str) -> McpServer:
    return server_get_for_host(host=request.user.host, server_id=server_id)


@require_GET
@staff_required
def server_list(request):
    servers = servers_for_host(host=request.user.host).prefetch_related(
        "event_types", "hook_declarations"
    )
    return render(request, "servers/list.html", {"nav": "servers", "servers": servers})


@require_GET
@staff_required
def server_detail(request, server_id: str):
    server = _server(request, server_id)
    context = {
        "nav": "servers",
        "server": server,
        "event_types": server.event_types.filter(removed_at__isnull=True),
        "declarations": server.hook_declarations.filter(removed_at__isnull=True),
        "removed_declarations": server.hook_declarations.filter(removed_at__isnull=False),
        "dialect_choices": [
            (value, label("events_dialect", value)) for value in EventsDialectChoice.values
        ],
    }
    return render(request, "servers/detail.html", context)


@require_http_methods(["GET", "POST"])
@admin_required
def server_new(request):
    """Register a server by URL, with the credentials the console sends it.
    The registry connects at once (bounded) and reads what it declares."""
    form = ServerRegisterForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            server = server_register(
                host=request.user.host,
                name=form.cleaned_data["name"],
                url=form.cleaned_data["url"],
                headers=form.cleaned_data["headers"] or None,
                trust=form.cleaned_data["trust"],
                actor=Actor.for_user(request.user),
            )
        except DomainError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            if server.status == "active":
                messages.success(request, f"{server.name} is registered and synced.")
            else:
                messages.warning(
                    request,
                    f"{server.name} is registered but could not be reached "
                    f"({server.last_error or server.status}); it is retried by itself.",
                )
            return redirect("staff-server", server_id=server.id)
    status = 422 if request.method == "POST" else 200
    return render(request, "servers/new.html", {"nav": "servers", "form": form}, status=status)


@require_POST
@admin_required
def server_resync(request, server_id: str):
    server = _server(request, server_id)
    if not server.url:
        messages.error(request, f"{server.name} is reached by the host itself; nothing to sync.")
        return redirect("staff-server", server_id=server.id)
    server = server_sync(server=server, actor=Actor.for_user(request.user))
    if server.status == "active":
        messages.success(request, f"{server.name} re-synced: what it declares is up to date.")
    else:
        messages.error(request, f"{server.name} could not be reached ({server.last_error}).")
    return redirect("staff-server", server_id=server.id)


@require_POST
@admin_required
def server_dialect(request, server_id: str):
    """Staff choose the events dialect by hand (or go back to detection)."""
    server = _server(request, server_id)
    try:
        server = server_update(
            server=server,
            actor=Actor.for_user(request.user),
            events_dialect=request.POST.get("events_dialect", ""),
            events_enforce_identity=request.POST.get("events_enforce_identity") == "1",
        )
    except Invalid as invalid:
        messages.error(request, invalid.message)
    else:
        messages.success(request, f"{server.name}: events dialect saved.")
    return redirect("staff-server", server_id=server.id)


@require_POST
@admin_required
def server_url(request, server_id: str):
    """Staff point the server to another address. Its users' consent was given
    to the server where it was: it is suspended and they are asked again."""
    server = _server(request, server_id)
    try:
        server = server_update(
            server=server,
            actor=Actor.for_user(request.user),
            url=request.POST.get("url", "").strip(),
        )
    except Invalid as invalid:
        messages.error(request, f"The address was not changed: {invalid.message}")
    else:
        messages.success(
            request,
            f"{server.name} is now reached at {server.url}. Its users' consent is on hold "
            "until they approve it again.",
        )
    return redirect("staff-server", server_id=server.id)


@require_POST
@admin_required
def server_handlers(request, server_id: str):
    """Staff switch MCPE bash handlers on or off for one server."""
    server = _server(request, server_id)
    allow = request.POST.get("mcpe_bash_handlers") == "1"
    server = server_update(
        server=server, actor=Actor.for_user(request.user), mcpe_bash_handlers=allow
    )
    if allow:
        messages.warning(
            request,
            f"{server.name} may now be handed bash commands to run when events arrive.",
        )
    else:
        messages.success(request, f"{server.name}: bash handlers are off.")
    return redirect("staff-server", server_id=server.id)


@require_http_methods(["GET", "POST"])
@admin_required
def server_remove(request, server_id: str):
    """Asks first, naming what goes with the server; only the confirmation's
    own button (``confirm=yes``) removes it."""
    server = _server(request, server_id)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        server_delete(server=server, actor=Actor.for_user(request.user))
        messages.success(request, f"{server.name} is removed.")
        return redirect("staff-servers")
    context = {"nav": "servers", "server": server, "goes": what_goes_with(server)}
    return render(request, "servers/remove.html", context)


@require_http_methods(["GET", "POST"])
@admin_required
def server_block_page(request, server_id: str):
    """The kill switch from the page: asks first, saying what it does; only
    the confirmation's own button blocks. A blocked server's page offers
    the unblock the same way."""
    server = _server(request, server_id)
    actor = Actor.for_user(request.user)
    if request.method == "POST" and request.POST.get("confirm") == "block":
        stopped = server_block(server=server, actor=actor)
        messages.success(
            request,
            f"{server.name} is blocked: {stopped['grants_suspended']} consent(s) suspended, "
            f"{stopped['subscriptions_revoked']} subscription(s) revoked.",
        )
        return redirect("staff-server", server_id=server.id)
    if request.method == "POST" and request.POST.get("confirm") == "unblock":
        server_unblock(server=server, actor=actor)
        messages.success(
            request,
            f"{server.name} is unblocked. Its users must consent again before it gets anything.",
        )
        return redirect("staff-server", server_id=server.id)
    return render(request, "servers/block.html", {"nav": "servers", "server": server})

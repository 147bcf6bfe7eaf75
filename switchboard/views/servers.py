"""Staff pages of the server registry."""

from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from switchboard.models import McpServer
from switchboard.selectors import servers_for_host
from switchboard.views.access import staff_required


@require_GET
@staff_required
def server_list(request):
    servers = servers_for_host(host=request.user.host_id).prefetch_related(
        "event_types", "hook_declarations"
    )
    return render(request, "servers/list.html", {"nav": "servers", "servers": servers})


@require_GET
@staff_required
def server_detail(request, server_id: str):
    server = get_object_or_404(
        McpServer, pk=server_id, host_id=request.user.host_id, deleted_at__isnull=True
    )
    context = {
        "nav": "servers",
        "server": server,
        "event_types": server.event_types.filter(removed_at__isnull=True),
        "declarations": server.hook_declarations.filter(removed_at__isnull=True),
        "removed_declarations": server.hook_declarations.filter(removed_at__isnull=False),
    }
    return render(request, "servers/detail.html", context)

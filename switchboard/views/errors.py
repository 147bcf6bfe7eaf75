"""One mapping from the domain's ``NotFound`` to the pages' 404.

Views reach data through selectors that raise ``NotFound`` for an unknown or
foreign id; the API maps it to its JSON 404 (``switchboard.api.root``), and
this middleware maps it to the site's 404 page, so no view repeats the
translation (and none can forget it and answer 500).
"""

from __future__ import annotations

from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.deprecation import MiddlewareMixin

from switchboard.errors import NotFound


class NotFoundAsPage404(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, NotFound):
            return response_for_exception(request, Http404(exception.message))
        return None

"""Keyset pages for the console's pages (the API's ``paginate`` underneath)."""

from __future__ import annotations

from django.db.models import QuerySet
from django.http import HttpRequest

from switchboard.api.pagination import DEFAULT_ORDER, paginate
from switchboard.errors import DomainError

PAGE_SIZE = 50


def page_of(
    request: HttpRequest, rows: QuerySet, *, order: tuple[str, ...] = DEFAULT_ORDER
) -> tuple[list, str | None]:
    """One page of ``rows`` at the request's ``?cursor=``. A stale or garbled
    cursor (an old bookmark, a hand-edited link) shows the first page: a
    person gets something to read, where the API answers 400."""
    try:
        return paginate(rows, cursor=request.GET.get("cursor"), limit=PAGE_SIZE, order=order)
    except DomainError:
        return paginate(rows, cursor=None, limit=PAGE_SIZE, order=order)

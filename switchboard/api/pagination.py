"""Keyset pagination for every list: ``?cursor=&limit=`` → ``{items, next_cursor}``.

The cursor is an opaque token of the last row's ordering keys, so pages stay
stable while rows are added (offsets would skip or repeat rows).
"""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet

from switchboard.errors import DomainError

# Newest first; ties broken by primary key.
DEFAULT_ORDER = ("created_at", "pk")


def _encode(values: list[Any]) -> str:
    raw = json.dumps([v.isoformat() if isinstance(v, datetime) else v for v in values])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode(cursor: str, fields: tuple[str, ...]) -> list[Any]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        values = json.loads(base64.urlsafe_b64decode(padded.encode()))
        if not isinstance(values, list) or len(values) != len(fields):
            raise ValueError
        return [
            datetime.fromisoformat(v) if f.endswith("_at") or f in ("at", "date_joined") else v
            for f, v in zip(fields, values, strict=True)
        ]
    except (ValueError, TypeError, json.JSONDecodeError):
        raise DomainError(
            "cursor is not one this API issued", field="cursor", code="invalid_cursor"
        ) from None


def clamp_limit(limit: int | None) -> int:
    if limit is None:
        return settings.API_PAGE_SIZE_DEFAULT
    if limit < 1 or limit > settings.API_PAGE_SIZE_MAX:
        raise DomainError(
            f"limit must be between 1 and {settings.API_PAGE_SIZE_MAX}",
            field="limit",
            code="invalid_limit",
            status=422,
        )
    return limit


def paginate(
    queryset: QuerySet,
    *,
    cursor: str | None,
    limit: int | None,
    order: tuple[str, ...] = DEFAULT_ORDER,
) -> tuple[list, str | None]:
    """Descending keyset pagination over ``order`` (one or two fields)."""
    size = clamp_limit(limit)
    queryset = queryset.order_by(*[f"-{field}" for field in order])
    if cursor:
        values = _decode(cursor, order)
        if len(order) == 1:
            queryset = queryset.filter(**{f"{order[0]}__lt": values[0]})
        else:
            first, second = order
            queryset = queryset.filter(
                Q(**{f"{first}__lt": values[0]})
                | Q(**{first: values[0], f"{second}__lt": values[1]})
            )
    rows = list(queryset[: size + 1])
    next_cursor = None
    if len(rows) > size:
        rows = rows[:size]
        last = rows[-1]
        next_cursor = _encode([getattr(last, field) for field in order])
    return rows, next_cursor

"""Types for what hosts send, so the OpenAPI document states the rules the
handlers hold (a fuzzer reading the schema must find them there)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from django.conf import settings
from pydantic import AfterValidator, BeforeValidator, Field

# RFC 3339 ``date-time``, what the schema declares. Pydantic on its own also
# takes Unix timestamps ("0.5") and dates without a time or a zone, which the
# schema calls invalid; a host sending one meant something else.
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _rfc3339(value: Any) -> Any:
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str) or not _RFC3339.match(value):
        raise ValueError("must be an RFC 3339 date-time with a zone, e.g. 2026-01-31T09:00:00Z")
    return value


# Real zones lie within ±14:00; PostgreSQL refuses offsets past ±15:59 and
# Python cannot move 0001-01-01 west or 9999-12-31 east of UTC: each of those
# would fail the query (a 500) instead of the request.
_MAX_OFFSET = timedelta(hours=14)


def _storable(value: datetime) -> datetime:
    offset = value.utcoffset()
    if offset is not None and abs(offset) > _MAX_OFFSET:
        raise ValueError("the zone offset must lie within ±14:00")
    try:
        value.astimezone(UTC)
    except OverflowError:
        raise ValueError("the date-time is out of range") from None
    return value


Timestamp = Annotated[datetime, BeforeValidator(_rfc3339), AfterValidator(_storable)]

# A page's size; ``clamp_limit`` holds the same bounds for callers outside the API.
PageLimit = Annotated[int, Field(ge=1, le=settings.API_PAGE_SIZE_MAX)]

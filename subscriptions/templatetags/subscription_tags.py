"""Filters for showing untrusted JSON (event payloads, arguments) as text."""

from __future__ import annotations

import json
from typing import Any

from django import template

register = template.Library()


@register.filter
def as_json(value: Any, indent: int | None = 2) -> str:
    """Pretty JSON as a plain string; the template's autoescaping escapes it,
    so a payload is shown, never interpreted."""
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


@register.filter
def compact_json(value: Any) -> str:
    return as_json(value, None)

"""Every list of the API is paged the same way: ``?cursor=`` takes the
``next_cursor`` of the page before, and ``null`` ends the list."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def paginate(operation: Any, *args: Any, client: Any, **kwargs: Any) -> Iterator[Any]:
    """Each item of a list, page after page, to its end.

    ``operation`` is a generated list module (``list_servers``, ``list_grants``,
    …) or anything with a ``sync(*args, client=, cursor=, **kwargs)`` answering a
    page; ``args`` and ``kwargs`` are its own (``external_id``, ``limit``,
    filters)."""
    cursor: str | None = None
    while True:
        page = operation.sync(*args, client=client, cursor=cursor, **kwargs)
        if page is None or not hasattr(page, "next_cursor"):
            raise TypeError(f"{operation!r} did not answer a page: {page!r}")
        yield from page.items
        cursor = page.next_cursor if isinstance(page.next_cursor, str) else None
        if not cursor:
            return

"""The Switchboard host API over plain ``httpx``.

This is the part the generated client (``clients/python``) replaces: its
typed operations, its iterator over paginated lists and its retries of
429/503 do what ``get``/``post``/``pages`` and ``_send`` do here by hand.
Nothing else in the example knows how a request is built.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx

# How often a 429 or 503 is tried again, honouring Retry-After (capped).
RETRIES = 3
MAX_WAIT = 10.0


class ApiError(Exception):
    """An answer that is not 2xx: the API's ``{"error": {code, message, field?}}``."""

    def __init__(self, status: int, code: str, message: str, field: str | None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class SwitchboardApi:
    """Calls ``/api/v1`` of one console with one host API key."""

    def __init__(self, base_url: str, key: str, *, timeout: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(
            base_url=f"{self.base_url}/api/v1",
            headers={"Authorization": f"Bearer {key}"},
            timeout=timeout,
        )

    def close(self) -> None:
        self._http.close()

    def get(self, path: str, **params: Any) -> Any:
        return self._send("GET", path, params=params or None)

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._send("POST", path, json=body if body is not None else {})

    def put(self, path: str, body: dict[str, Any]) -> Any:
        return self._send("PUT", path, json=body)

    def pages(self, path: str, **params: Any) -> Iterator[dict[str, Any]]:
        """Every item of a list, page after page (``next_cursor``)."""
        cursor = None
        while True:
            page = self.get(path, **params, **({"cursor": cursor} if cursor else {}))
            yield from page["items"]
            cursor = page.get("next_cursor")
            if not cursor:
                return

    def _send(self, method: str, path: str, **kwargs: Any) -> Any:
        for attempt in range(RETRIES + 1):
            answer = self._http.request(method, path, **kwargs)
            if answer.status_code in (429, 503) and attempt < RETRIES:
                time.sleep(_retry_after(answer))
                continue
            break
        if answer.status_code >= 300:
            raise _error(answer)
        return answer.json() if answer.content else None


def _retry_after(answer: httpx.Response) -> float:
    try:
        return min(float(answer.headers.get("Retry-After", "1")), MAX_WAIT)
    except ValueError:
        return 1.0


def _error(answer: httpx.Response) -> ApiError:
    try:
        error = answer.json()["error"]
    except (ValueError, KeyError, TypeError):
        error = {"code": "error", "message": answer.text[:200]}
    return ApiError(
        answer.status_code, error.get("code", ""), error.get("message", ""), error.get("field")
    )

"""Keep credentials out of the logs of the libraries under us.

At DEBUG the MCP SDK logs every outgoing JSON-RPC message verbatim
(``Sending client message: ...``, ``SSE message: ...``), which includes the
``whsec_`` secret of ``events/subscribe`` and whatever user content we send;
at INFO ``httpx2`` logs each request URL, query string included, and the SDK
logs the endpoint URL when connecting. We do not
own those loggers' configuration (settings.LOGGING does), so we attach a
filter to them that redacts exactly those records and leaves everything else
alone. Installed once, when ``switchboard.mcp.session`` is imported.
"""

from __future__ import annotations

import logging

from switchboard.mcp.netguard import redact_url

__all__ = ["install"]

_MESSAGE_PREFIXES = ("Sending client message:", "SSE message:")
_URL_PREFIX = "Connecting to StreamableHTTP endpoint: "


class _RedactFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == "httpx2" and str(record.msg).startswith("HTTP Request:"):
            args = record.args
            if isinstance(args, tuple) and len(args) >= 2:
                record.args = (args[0], redact_url(str(args[1])), *args[2:])
            return True
        message = str(record.msg)
        if message.startswith(_URL_PREFIX):
            record.msg = _URL_PREFIX + redact_url(message[len(_URL_PREFIX) :])
            record.args = ()
            return True
        for prefix in _MESSAGE_PREFIXES:
            if message.startswith(prefix):
                record.msg = f"{prefix} <redacted by switchboard.mcp>"
                record.args = ()
                break
        return True


_FILTER = _RedactFilter()
_LOGGERS = ("httpx2", "mcp.client.streamable_http")


def install() -> None:
    for name in _LOGGERS:
        logger = logging.getLogger(name)
        if _FILTER not in logger.filters:
            logger.addFilter(_FILTER)

"""The classifier: every failure shape the SDK produces maps to one category."""

from __future__ import annotations

import asyncio
import pickle
import ssl

import httpx2
import pydantic
import pytest
from mcp import MCPError

from switchboard.mcp import CATEGORIES, McpCallError
from switchboard.mcp.errors import CallProbe, classify
from switchboard.mcp.netguard import BlockedTarget


def test_sdk_request_timeout_is_a_timeout_not_an_mcp_error() -> None:
    err = classify(MCPError(-32001, "Request 'conversation/userMessage' timed out"))
    assert err.category == "timeout"
    # A server's own -32001 (the old events drafts used it) stays an MCP error.
    err = classify(MCPError(-32001, "EventNotFound", {"name": "x"}))
    assert err.category == "mcp_error" and err.code == -32001 and err.data == {"name": "x"}


def test_server_error_keeps_code_message_and_data() -> None:
    err = classify(
        MCPError(-32012, "Forbidden", {"reason": "access_revoked"}), method="events/poll"
    )
    assert (err.category, err.code, err.message, err.data) == (
        "mcp_error",
        -32012,
        "Forbidden",
        {"reason": "access_revoked"},
    )
    assert err.method == "events/poll"
    assert not err.retryable


def test_exception_groups_are_unwrapped_to_the_telling_leaf() -> None:
    group = ExceptionGroup(
        "unhandled errors in a TaskGroup",
        [ExceptionGroup("inner", [httpx2.ConnectError("All connection attempts failed")])],
    )
    err = classify(group)
    assert err.category == "connection_refused" and err.retryable


def test_cancellation_next_to_a_failure_is_not_the_answer() -> None:
    group = BaseExceptionGroup("x", [asyncio.CancelledError(), httpx2.ReadTimeout("")])
    assert classify(group).category == "timeout"


def test_synthetic_http_errors_use_the_recorded_status() -> None:
    probe = CallProbe(http_status=503)
    err = classify(MCPError(-32603, "Server returned an error response"), probe=probe)
    assert (err.category, err.http_status, err.code) == ("http_5xx", 503, None)
    probe = CallProbe(http_status=404)
    err = classify(MCPError(-32601, "Not Found"), probe=probe)
    assert (err.category, err.http_status) == ("http_4xx", 404)
    # Without a recorded status, a -32601 is the server saying "no such method".
    assert classify(MCPError(-32601, "Method not found")).category == "mcp_error"


def test_json_rpc_error_at_an_http_error_status_keeps_both() -> None:
    err = classify(MCPError(-32001, "Unauthorized", {"x": 1}), probe=CallProbe(http_status=401))
    assert (err.category, err.http_status, err.code, err.data) == (
        "http_4xx",
        401,
        -32001,
        {"x": 1},
    )


def test_connection_closed_uses_the_recorded_transport_error() -> None:
    probe = CallProbe(transport_error=httpx2.ConnectError("refused"))
    assert classify(MCPError(-32000, "Connection closed"), probe=probe).category == (
        "connection_refused"
    )
    tls = httpx2.ConnectError("handshake")
    tls.__cause__ = ssl.SSLError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")
    probe = CallProbe(transport_error=tls)
    assert classify(MCPError(-32000, "Connection closed"), probe=probe).category == "tls_error"


@pytest.mark.parametrize(
    ("exc", "category"),
    [
        (httpx2.ConnectTimeout(""), "timeout"),
        (httpx2.ReadTimeout(""), "timeout"),
        (TimeoutError(), "timeout"),
        (httpx2.ConnectError("x"), "connection_refused"),
        (httpx2.ReadError("x"), "connection_refused"),
        (ConnectionRefusedError(), "connection_refused"),
        (httpx2.RemoteProtocolError("x"), "protocol"),
        (MCPError(-32700, "Failed to parse JSON response: boom"), "protocol"),
        (MCPError(-32600, "Unexpected content type: text/html"), "protocol"),
        (RuntimeError("No mutually supported modern protocol version"), "protocol"),
        (BlockedTarget("non_public_address", "nope"), "blocked_target"),
    ],
)
def test_category_table(exc: BaseException, category: str) -> None:
    assert classify(exc).category == category


def test_validation_errors_are_protocol_errors() -> None:
    class Shape(pydantic.BaseModel):
        context: str

    with pytest.raises(pydantic.ValidationError) as caught:
        Shape.model_validate({"context": 12345})
    err = classify(caught.value)
    assert err.category == "protocol" and "context" in err.message


def test_errors_pickle_and_never_show_secrets() -> None:
    err = McpCallError(
        "http_4xx", "The server answered HTTP 401.", http_status=401, method="connect", server="x"
    )
    clone = pickle.loads(pickle.dumps(err))
    assert repr(clone) == repr(err) and clone.category == "http_4xx"
    assert str(err) == "http_4xx [connect]: The server answered HTTP 401. (HTTP 401)"
    assert set(err.as_dict()) == {"category", "message", "code", "data", "http_status", "method"}
    assert err.category in CATEGORIES

"""Reference MCP server for Switchboard's client-side tests.

It implements the server half of the draft extensions Switchboard consumes
(MCP Events, conversation events, SEP-2282 hook declarations, thread-scoped
capability refresh) so the client can be tested against a real peer over
Streamable HTTP instead of mocks. A plain-JSON control surface under
`/control/` lets tests steer it (emit events, inject slowness and failures,
reshape capabilities) and read back everything it received.

The package deliberately imports nothing from the rest of the repository:
it stands in for a third-party server and must not share code with the
client it tests.
"""

__all__ = ["build_app"]


def __getattr__(name: str):  # pragma: no cover - convenience re-export
    # Lazy, so `python -m refserver --help` does not import the SDK first.
    if name == "build_app":
        from refserver.app import build_app

        return build_app
    raise AttributeError(name)

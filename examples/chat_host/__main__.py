"""``python -m examples.chat_host``: chat through Switchboard from a terminal.

Against ``make run``'s console (it prints the demo API key and starts the
reference MCP server on :8765)::

    SWB_KEY=swb_… .venv/bin/python -m examples.chat_host

Type a message per line; ``/echo hello`` calls the server's ``echo`` tool
(any ``/<tool> <text>`` works); an empty line or end of input ends the
session. ``--message`` (repeatable) sends those messages instead of reading.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from examples.chat_host.api import SwitchboardApi
from examples.chat_host.endpoint import DeliveryEndpoint
from examples.chat_host.host import ChatHost


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m examples.chat_host", description=__doc__)
    parser.add_argument("--console", default=os.environ.get("SWB_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--key", default=os.environ.get("SWB_KEY"), help="host API key (SWB_KEY)")
    parser.add_argument("--user", default="demo-user", help="the user's external id")
    parser.add_argument(
        "--server",
        action="append",
        metavar="NAME=URL",
        help="an MCP server (repeatable); default: the reference server of make run",
    )
    parser.add_argument("--endpoint-port", type=int, default=8900, help="0: any free port")
    parser.add_argument("--message", action="append", help="send these instead of reading stdin")
    args = parser.parse_args(argv)
    if not args.key:
        parser.error("give the host API key with --key or SWB_KEY (make run prints one)")
    return args


def _servers(specs: list[str] | None) -> dict[str, str]:
    if not specs:
        # The name make run's demo data registers it under, so it is found, not added.
        return {"Reference events server": "http://127.0.0.1:8765/mcp"}
    return dict(spec.split("=", 1) for spec in specs)


def _messages(given: list[str] | None):
    if given is not None:
        yield from given
        return
    while True:
        try:
            line = input("you> ").strip()
        except EOFError:
            return
        if not line:
            return
        yield line


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    endpoint = DeliveryEndpoint(
        port=args.endpoint_port,
        on_delivery=lambda d: print(f"delivery: {d['type']} {d['data']}"),
    ).start()
    api = SwitchboardApi(args.console, args.key)
    host = ChatHost(api, user=args.user, servers=_servers(args.server), endpoint=endpoint)
    try:
        host.setup()
        host.wait_for_consent(host.ask_consent())
        host.start()
        for message in _messages(args.message):
            print(f"host> {host.send(message).reply}")
        host.end()
        time.sleep(1)  # deliveries of the last changes, printed as they come
    finally:
        api.close()
        endpoint.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())

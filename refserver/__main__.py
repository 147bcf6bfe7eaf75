"""`python -m refserver --host 127.0.0.1 --port N [...]`: serve with uvicorn.

Flags cover what a test needs before the first request (callback policy,
TTL bounds, retry schedule); everything else can change at runtime through
`POST /control/config`.
"""

from __future__ import annotations

import argparse

import uvicorn

from refserver.config import Config
from refserver.dialect import DIALECTS


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m refserver", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--name", default="refserver", help="server name reported in serverInfo")
    parser.add_argument(
        "--allow-http-callbacks",
        action="store_true",
        help="accept http:// delivery.url for loopback hosts (https is always accepted)",
    )
    parser.add_argument("--min-ttl-ms", type=int, default=Config.min_ttl_ms)
    parser.add_argument("--max-ttl-ms", type=int, default=Config.max_ttl_ms)
    parser.add_argument("--default-ttl-ms", type=int, default=Config.default_ttl_ms)
    parser.add_argument(
        "--retry-delays-ms",
        default="200,400,800",
        help="comma-separated waits between delivery attempts (attempts = len + 1)",
    )
    parser.add_argument("--rotation-grace-ms", type=int, default=Config.rotation_grace_ms)
    parser.add_argument("--heartbeat-ms", type=int, default=Config.heartbeat_ms)
    parser.add_argument("--events-page-size", type=int, default=Config.events_page_size)
    parser.add_argument(
        "--require-auth",
        action="store_true",
        help="refuse subscribe/unsubscribe without Authorization",
    )
    parser.add_argument(
        "--dialect",
        choices=DIALECTS,
        default="sketch",
        help="speak the digest's sketch, SEP-3415 or the ChatGPT dialect (refserver/dialect.py)",
    )
    parser.add_argument(
        "--webhook-identity",
        action="store_true",
        help="add an ed25519 v1a signature and publish the key (refserver/identity.py)",
    )
    parser.add_argument("--log-level", default="warning")
    return parser.parse_args(argv)


def config_from_args(args: argparse.Namespace) -> Config:
    return Config(
        name=args.name,
        dialect=args.dialect,
        webhook_identity=args.webhook_identity,
        allow_http_callbacks=args.allow_http_callbacks,
        min_ttl_ms=args.min_ttl_ms,
        max_ttl_ms=args.max_ttl_ms,
        default_ttl_ms=args.default_ttl_ms,
        retry_delays_ms=[int(v) for v in args.retry_delays_ms.split(",") if v.strip()],
        rotation_grace_ms=args.rotation_grace_ms,
        heartbeat_ms=args.heartbeat_ms,
        events_page_size=args.events_page_size,
        require_auth=args.require_auth,
    )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    from refserver.app import build_app

    app = build_app(config_from_args(args), host=args.host)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, lifespan="on")


if __name__ == "__main__":
    main()

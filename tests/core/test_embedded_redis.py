import subprocess

import redis

from switchboard.redis_resolve import resolve_redis_url, start_embedded_redis
from tests.live import free_port


def test_the_embedded_redis_runs_as_its_own_daemon_and_is_reused(tmp_path):
    port = free_port()
    url = start_embedded_redis(port=port, workdir=tmp_path)
    try:
        client = redis.Redis.from_url(url)
        assert client.ping()
        client.set("shared", "yes")
        # A second process asking for it finds the same server, not a new one.
        assert start_embedded_redis(port=port, workdir=tmp_path) == url
        assert redis.Redis.from_url(url).get("shared") == b"yes"
    finally:
        pid = int((tmp_path / "redis.pid").read_text())
        subprocess.run(["kill", str(pid)], check=False)


def test_a_configured_url_wins(tmp_path):
    assert resolve_redis_url(
        configured="redis://example:1/0", embedded_port=1, workdir=tmp_path
    ) == (
        "redis://example:1/0",
        "REDIS_URL",
    )

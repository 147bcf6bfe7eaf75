"""A real Prometheus (Debian's ``prometheus`` package) on loopback, with a
temporary configuration, for the tests that scrape the console."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import httpx
import pytest

from config import supervisor as sv
from tests.live import ARTIFACTS, free_port


def binary(name: str) -> str:
    found = shutil.which(name) or (
        f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None
    )
    if found is None:
        pytest.fail(f"{name} not found: install Debian's prometheus package (.ci/test does)")
    return found


class Prometheus:
    def __init__(self, *, target: str, token: str, workdir: Path) -> None:
        self.port = free_port()
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "900ms"},
            "scrape_configs": [
                {
                    "job_name": "switchboard",
                    "metrics_path": "/metrics",
                    "authorization": {"type": "Bearer", "credentials": token},
                    "static_configs": [{"targets": [target]}],
                }
            ],
        }
        workdir.mkdir(parents=True, exist_ok=True)
        path = workdir / "prometheus.yml"
        path.write_text(json.dumps(config))  # JSON is YAML
        self.supervisor = sv.Supervisor(env={"PATH": "/usr/bin:/bin"}, log_dir=ARTIFACTS)
        self.child = self.supervisor.start(
            "prometheus",
            [
                binary("prometheus"),
                f"--config.file={path}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
        )
        self.base = f"http://127.0.0.1:{self.port}"
        sv.wait_for_http(f"{self.base}/-/ready", process=self.child.process, timeout=60)

    def query(self, promql: str) -> list[dict]:
        answer = httpx.get(f"{self.base}/api/v1/query", params={"query": promql}, timeout=10)
        answer.raise_for_status()
        body = answer.json()
        assert body["status"] == "success", body
        return body["data"]["result"]

    def wait_for(self, promql: str, *, timeout: float = 60) -> list[dict]:
        """The query's result once it is not empty."""
        deadline = time.monotonic() + timeout
        while True:
            result = self.query(promql)
            if result:
                return result
            if time.monotonic() > deadline:
                targets = httpx.get(f"{self.base}/api/v1/targets", timeout=10).json()
                raise AssertionError(f"{promql} stayed empty; targets: {targets}")
            time.sleep(0.5)

    def stop(self) -> None:
        self.supervisor.stop_all()

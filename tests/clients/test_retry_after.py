"""``Retry-After`` as both clients read it: delta-seconds or an HTTP date
(RFC 9110 §10.2.3), anything else ignored. The live tests send delta-seconds;
the date form is held here for the Python layer and, through Node, for the
TypeScript one."""

from __future__ import annotations

import json
import shutil
from email.utils import formatdate

import pytest
import switchboard_client as swb

from tests.clients.support import TYPESCRIPT_CLIENT, run

NOW = 1_800_000_000.0
CASES = [("7", 7.0), (formatdate(NOW + 30, usegmt=True), 30.0), ("soon", None), ("", None)]


@pytest.mark.parametrize(("value", "seconds"), CASES)
def test_python_reads_retry_after(value, seconds):
    assert swb.retry_after_seconds(value, now=lambda: NOW) == seconds


def test_typescript_reads_retry_after_alike(tmp_path):
    node = shutil.which("node")
    assert node, "node is required (Debian's nodejs; .ci/test installs it)"
    script = tmp_path / "check.mjs"
    script.write_text(
        f"import {{ retryAfterSeconds }} from {json.dumps(str(TYPESCRIPT_CLIENT / 'dist' / 'retry.js'))};\n"
        f"const cases = {json.dumps([value for value, _ in CASES])};\n"
        f"console.log(JSON.stringify(cases.map((v) => retryAfterSeconds(v, {NOW * 1000}) ?? null)));\n"
    )
    assert json.loads(run([node, str(script)])) == [seconds for _, seconds in CASES]

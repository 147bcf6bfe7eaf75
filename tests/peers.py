"""Where the third-party implementations the tests run are kept: beside the
clone, in the workplace's shared folder (CI has it too). The one module
allowed to name a path outside the repository (tests/docs/test_references.py)."""

from __future__ import annotations

import os
from pathlib import Path

# The open-source MCPE implementation (@mcpe/core, kept unchanged upstream)
# with its build.sh and server.mjs (tests/thirdparty/mcpe_peer.py).
MCPE_PEER_SOURCE = Path(
    os.environ.get("MCPE_PEER_SOURCE")
    or Path(__file__).resolve().parents[1].parent / "shared" / "peers" / "mcpe"
)

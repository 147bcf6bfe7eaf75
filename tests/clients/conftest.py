"""The Python client is imported from the repository path (clients/python), as
the tests of an unreleased package do; test_install.py installs it as hosts will."""

from __future__ import annotations

import sys

from tests.clients.support import PYTHON_CLIENT

if str(PYTHON_CLIENT) not in sys.path:
    sys.path.insert(0, str(PYTHON_CLIENT))

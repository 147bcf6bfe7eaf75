from __future__ import annotations

import pytest

from tests.org.oidc import OpenIdProvider, start_provider


@pytest.fixture(scope="session")
def idp_process():
    provider = start_provider()
    yield provider
    provider.close()


@pytest.fixture
def idp(idp_process) -> OpenIdProvider:
    idp_process.misbehave()
    yield idp_process
    idp_process.misbehave()

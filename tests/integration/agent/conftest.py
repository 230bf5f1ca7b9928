"""Backends for the rollout integration tests (unusable ones fail; see `require_backend`)."""

from __future__ import annotations

import pytest
from harbor_tasks import require_backend

from skill2env.sandbox.backends import BackendName

BACKENDS = [
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
    pytest.param("bwrap", marks=pytest.mark.bwrap, id="bwrap"),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> BackendName:
    name: BackendName = request.param
    require_backend(name)
    return name

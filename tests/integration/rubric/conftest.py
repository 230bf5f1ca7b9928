"""Backends for the rubric integration tests, as in the sandbox suite: an unusable backend fails
(or skips with SKILL2ENV_SKIP_DOCKER=1 / SKILL2ENV_SKIP_BWRAP=1)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from harbor_tasks import SandboxFactory, require_backend

from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import Sandbox, SandboxLimits

BACKENDS = [
    pytest.param("docker", marks=pytest.mark.docker, id="docker"),
    pytest.param("bwrap", marks=pytest.mark.bwrap, id="bwrap"),
]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> BackendName:
    name: BackendName = request.param
    require_backend(name)
    return name


@pytest.fixture
def new_sandbox(backend: BackendName) -> Iterator[SandboxFactory]:
    """Not-yet-started sandboxes of the test's backend; every one is stopped at the end of the test."""
    made: list[Sandbox] = []

    def factory(limits: SandboxLimits | None = None, **options: object) -> Sandbox:
        sandbox = make_sandbox(backend, limits, **options)
        made.append(sandbox)
        return sandbox

    yield factory
    for sandbox in made:
        sandbox.stop()

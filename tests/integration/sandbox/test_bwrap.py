"""What only the bwrap backend has: host-side paths, and links that try to lead out of them."""

from __future__ import annotations

import os

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task, require_backend

from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import SandboxPathError

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]


@pytest.fixture
def sandbox():
    require_backend("bwrap")
    started = BwrapSandbox(SandboxLimits(storage_mb=64))
    started.start(fixture_task(CSV_AGGREGATION))
    yield started
    started.stop()


def test_a_link_planted_in_the_workspace_does_not_lead_the_host_out(sandbox: BwrapSandbox) -> None:
    assert sandbox.exec("ln -s /etc/shadow shadow && ln -s / root && ln -s /etc/passwd passwd").ok

    for path in ("shadow", "root/etc/shadow", "passwd"):
        with pytest.raises(SandboxPathError):
            sandbox.read_file(path)
    with pytest.raises(SandboxPathError):
        sandbox.write_file("root/tmp/planted", "x")
    with pytest.raises(SandboxPathError):
        sandbox.write_file("passwd", "x")


def test_stop_removes_the_rollout_directory_and_its_tmpfs(sandbox: BwrapSandbox) -> None:
    rollout_dir = sandbox.rollout_dir

    sandbox.stop()

    assert not rollout_dir.exists()
    with open("/proc/self/mounts") as mounts:
        assert str(rollout_dir) not in mounts.read()


@pytest.mark.skipif(os.geteuid() != 0, reason="as a user, commands run as that user (nothing to compare)")
def test_as_root_commands_run_as_an_unprivileged_host_user(sandbox: BwrapSandbox) -> None:
    sandbox.exec("sleep 0.1 && touch made-inside")

    assert (sandbox.rollout_dir / "fs" / "workspace" / "made-inside").stat().st_uid not in (0, os.geteuid())

"""Whose doing a bwrap sandbox's lost command server is, when bwrap itself was killed (no engine needed)."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import CommandServerLost, SandboxBroken, SandboxCrashed


class _Cgroup:
    def __init__(self, kills: int) -> None:
        self.kills = kills

    def oom_kills(self) -> int:
        return self.kills


class _Process:
    def __init__(self, status: int) -> None:
        self.status = status

    def poll(self) -> int:
        return self.status

    def wait(self, timeout: float) -> int:
        return self.status


def _lost(tmp_path: Path, *, bwrap_status: int, oom_kills: int | None) -> Exception:
    sandbox = BwrapSandbox(rollout_id="r1", root=tmp_path)
    sandbox._dir = tmp_path
    sandbox._deadline = time.monotonic() + 600
    sandbox._cgroup = _Cgroup(oom_kills) if oom_kills is not None else None  # type: ignore[assignment]
    server = SimpleNamespace(process=_Process(bwrap_status))
    return sandbox._server_lost(server, CommandServerLost("its output ended", unresponsive=False))  # type: ignore[arg-type]


def test_bwrap_killed_by_its_own_cgroups_oom_killer_is_the_sandboxs_doing(tmp_path: Path) -> None:
    # bwrap runs inside the sandbox's memory cgroup: the OOM killer may end it together with the server.
    lost = _lost(tmp_path, bwrap_status=-signal.SIGKILL, oom_kills=1)
    assert isinstance(lost, SandboxBroken) and "OOM killer" in str(lost)


@pytest.mark.parametrize(("status", "kills"), [(-signal.SIGKILL, 0), (-signal.SIGKILL, None), (-signal.SIGTERM, 1)])
def test_bwrap_killed_otherwise_is_a_crash_outside_the_sandbox(tmp_path: Path, status: int, kills: int | None) -> None:
    lost = _lost(tmp_path, bwrap_status=status, oom_kills=kills)
    assert isinstance(lost, SandboxCrashed) and "bwrap itself was killed" in str(lost)

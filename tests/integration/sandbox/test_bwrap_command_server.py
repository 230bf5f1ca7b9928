"""bwrap's command server: the agent's commands share one namespace set up at start, without
losing what a namespace per command gave (nothing outlives its command; nothing in it can end
the server), and the server's death is the sandbox's crash."""

from __future__ import annotations

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task, require_backend

from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.bwrap_backend import BwrapSandbox
from skill2env.sandbox.errors import SandboxCrashed

pytestmark = [pytest.mark.integration, pytest.mark.bwrap]


@pytest.fixture
def sandbox():
    require_backend("bwrap")
    started = BwrapSandbox(SandboxLimits(storage_mb=64, tmp_mb=64))
    started.start(fixture_task(CSV_AGGREGATION))
    yield started
    started.stop()


def test_agent_commands_run_in_the_servers_namespace_and_root_ones_in_their_own(sandbox: BwrapSandbox) -> None:
    assert sandbox.exec("cat /proc/1/cmdline | tr '\\0' ' '").stdout.startswith("/usr/bin/python3 -I -S")
    assert "python3" not in sandbox.exec("cat /proc/1/cmdline", user="root").stdout


def test_nothing_a_command_started_outlives_it(sandbox: BwrapSandbox) -> None:
    started = sandbox.exec("setsid sleep 300 >/dev/null 2>&1 & nohup sleep 301 >/dev/null 2>&1 & echo started")

    assert started.stdout == "started\n"
    assert sandbox.exec("ps -eo args | grep -c '^sleep 30[01]' || true").stdout.strip() == "0"


def test_commands_cannot_end_or_trace_the_server(sandbox: BwrapSandbox) -> None:
    attempts = sandbox.exec(
        "kill -9 1; kill -TERM 1; kill -INT 1; kill -HUP 1; kill -STOP 1; kill -9 -1; cat /proc/1/environ; "
        "prlimit --pid 1 --cpu=1:1 && echo LIMITED; echo tried",
        timeout=30,
    )

    assert attempts.stdout.endswith("tried\n") and "LIMITED" not in attempts.stdout
    assert sandbox.exec("echo alive").stdout == "alive\n"


def test_the_server_dying_is_the_sandbox_crashing(sandbox: BwrapSandbox) -> None:
    server = sandbox._server
    assert server is not None
    server.process.kill()
    server.process.wait()

    with pytest.raises(SandboxCrashed):
        sandbox.exec("true")
    rollout_dir = sandbox.rollout_dir
    sandbox.stop()
    assert not rollout_dir.exists()

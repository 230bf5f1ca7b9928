"""docker's command server: the container's init runs the agent's commands (over the engine's
attach, not `docker exec`) without giving the agent a way to end, trace or outlive it, and it ends
the container at the wall clock or when the host lets go of it."""

from __future__ import annotations

import logging
import time

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task

from skill2env.sandbox import docker_backend
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.docker_backend import DockerSandbox
from skill2env.sandbox.engine import docker_client
from skill2env.sandbox.errors import SandboxCrashed, SandboxDeadlineExceeded

pytestmark = [pytest.mark.integration, pytest.mark.docker, pytest.mark.usefixtures("docker_backend")]

LIMITS = SandboxLimits(storage_mb=64, tmp_mb=64)
ATTEMPTS = "; ".join(
    [
        *(
            f"kill -{signal} 1"
            for signal in ("INT", "TERM", "HUP", "QUIT", "USR1", "USR2", "PIPE", "ALRM", "STOP", "9")
        ),
        "kill -n 32 1; kill -n 33 1",  # glibc's internal signals: their handlers ignore other senders
        "kill -9 -1",
        "prlimit --pid 1 --cpu=1:1 && echo LIMITED",
        "prlimit --pid 1 --nofile=3:3 && echo LIMITED",
        "cat /proc/1/environ && echo READ",
        "ls /proc/1/fd && echo LISTED",
        "echo tried",
    ]
)


@pytest.fixture
def sandbox():
    started = DockerSandbox(LIMITS)
    started.start(fixture_task(CSV_AGGREGATION))
    yield started
    started.stop()


def _status(container_id: str) -> str:
    client = docker_client()
    try:
        return str(client.api.inspect_container(container_id)["State"]["Status"])
    finally:
        client.close()


def _wait_for_exit(container_id: str, seconds: float = 15) -> str:
    deadline = time.monotonic() + seconds
    while (status := _status(container_id)) == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    return status


def test_agent_commands_run_under_the_server_and_root_ones_through_docker_exec(sandbox: DockerSandbox) -> None:
    assert sandbox.server_fallback is None
    assert sandbox.mode == "docker:attach"
    agent = sandbox.exec("id -u; grep PPid /proc/$$/status; tr '\\0' ' ' </proc/1/cmdline")
    root = sandbox.exec("id -u; tr '\\0' ' ' </proc/$PPID/cmdline", user="root")

    uid, parent, init = agent.stdout.splitlines()
    assert (uid, parent.split()) == ("1000", ["PPid:", "1"])
    assert init.startswith("python3 -I -S")
    assert root.stdout.split()[:3] == ["0", "timeout", "-k"]  # `docker exec`'d as before


def test_commands_see_the_containers_environment_and_their_own(sandbox: DockerSandbox) -> None:
    result = sandbox.exec("echo $HOME $PWD $EXTRA; command -v python3", env={"EXTRA": "extra"})

    assert result.stdout.splitlines() == ["/tmp /workspace extra", "/usr/bin/python3"]


def test_commands_cannot_end_trace_or_limit_the_server(sandbox: DockerSandbox) -> None:
    attempts = sandbox.exec(ATTEMPTS, timeout=30)

    assert attempts.stdout.splitlines()[-1] == "tried"
    assert not {"LIMITED", "READ", "LISTED"} & set(attempts.stdout.split())
    assert sandbox.exec("grep 'Max cpu' /proc/1/limits").stdout.split()[3:5] == ["unlimited", "unlimited"]
    assert sandbox.exec("echo alive").stdout == "alive\n"
    assert _status(sandbox.container_id) == "running"


def test_background_processes_live_on_between_commands_until_stop(sandbox: DockerSandbox) -> None:
    sandbox.exec("setsid sleep 300 >/dev/null 2>&1 & echo started")

    assert sandbox.exec("ps -eo args | grep -c '^sleep 300' || true").stdout.strip() == "1"


def test_the_wall_clock_ends_the_container_without_the_host() -> None:
    sandbox = DockerSandbox(SandboxLimits(storage_mb=64, tmp_mb=64, wall_clock_s=4))
    sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        container_id = sandbox.container_id
        sandbox.exec("setsid sleep 300 >/dev/null 2>&1 &")

        assert _wait_for_exit(container_id) == "exited"
        with pytest.raises(SandboxDeadlineExceeded):
            sandbox.exec("true")
    finally:
        sandbox.stop()


def test_the_host_letting_go_of_the_attach_ends_the_container(sandbox: DockerSandbox) -> None:
    server = sandbox._server
    assert server is not None
    sandbox.exec("setsid sleep 300 >/dev/null 2>&1 &")

    server.stop()  # what the engine sees when this process dies: the attach connection closes

    assert _wait_for_exit(sandbox.container_id) == "exited"


def test_the_server_dying_is_the_sandbox_crashing(sandbox: DockerSandbox) -> None:
    client = docker_client()
    try:
        client.api.kill(sandbox.container_id, "SIGKILL")
    finally:
        client.close()

    with pytest.raises(SandboxCrashed):
        sandbox.exec("true")


def test_without_a_server_every_command_goes_through_docker_exec(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(docker_backend, "SERVER_PYTHON", "no-such-python3")
    sandbox = DockerSandbox(LIMITS)
    with caplog.at_level(logging.WARNING, logger="skill2env.sandbox.docker_backend"):
        sandbox.start(fixture_task(CSV_AGGREGATION))
    try:
        assert sandbox.server_fallback is not None and "no-such-python3" in sandbox.server_fallback
        assert sandbox.mode == "docker:exec-fallback"
        (warning,) = [r for r in caplog.records if r.name == "skill2env.sandbox.docker_backend"]
        assert warning.levelno == logging.WARNING and "docker exec" in warning.getMessage()
        assert sandbox.rollout_id in warning.getMessage() and "no-such-python3" in warning.getMessage()
        assert sandbox.exec("id -u; tr '\\0' ' ' </proc/$PPID/cmdline").stdout.split()[:3] == ["1000", "timeout", "-k"]
        assert sandbox.exec("cat sales.csv").ok
    finally:
        sandbox.stop()

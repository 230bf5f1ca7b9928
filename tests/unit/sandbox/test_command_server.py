"""The command server and its client, run on the host without a sandbox (the backends' own tests
run it inside one)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from skill2env.sandbox.command_client import CommandReply, CommandServer, server_argv
from skill2env.sandbox.errors import SandboxCrashed

ServerFactory = Callable[..., CommandServer]


@pytest.fixture
def start_server() -> Iterator[ServerFactory]:
    started: list[CommandServer] = []

    def start(**config: Any) -> CommandServer:
        config = {"env": {"PATH": os.environ["PATH"], "BASE": "base"}, **config}
        process = subprocess.Popen(server_argv(sys.executable, config), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        server = CommandServer(process, describe="test command server")
        started.append(server)
        server.client.wait_ready()
        return server

    yield start
    for server in started:
        server.stop()


def run(server: CommandServer, script: str, *, timeout: float = 10, **options: Any) -> CommandReply:
    options.setdefault("cwd", "/")
    return server.client.run(["bash", "-c", script], timeout=timeout, reply_within=timeout + 10, env=None, **options)


def gone(pid: int, within: float = 5.0) -> bool:
    """Whether the process has ended (a zombie counts as ended)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


def test_exit_code_stdout_and_stderr_come_back_apart(start_server: ServerFactory) -> None:
    reply = run(start_server(), "echo out; echo err >&2; exit 3")

    assert (reply.exit_code, reply.stdout, reply.stderr) == (3, "out\n", "err\n")
    assert not reply.timed_out and not reply.truncated


def test_a_command_killed_by_a_signal_exits_128_plus_the_signal(start_server: ServerFactory) -> None:
    assert run(start_server(), "kill -9 $$").exit_code == 137


def test_cwd_and_env_are_honoured_over_the_base_environment(start_server: ServerFactory, tmp_path: Path) -> None:
    server = start_server()

    reply = server.client.run(
        ["bash", "-c", "pwd; echo $BASE $EXTRA"], cwd=str(tmp_path), env={"EXTRA": "extra"}, timeout=10, reply_within=10
    )

    assert reply.stdout.splitlines() == [str(tmp_path), "base extra"]


def test_a_command_that_cannot_start_exits_like_the_shell_would(start_server: ServerFactory) -> None:
    server = start_server()

    missing = server.client.run(["no-such-program-here"], cwd="/", env=None, timeout=5, reply_within=5)

    assert missing.exit_code == 127 and "no-such-program-here" in missing.stderr
    assert run(server, "echo still serving").stdout == "still serving\n"


def test_a_timeout_kills_the_whole_process_group_at_once_without_grace(start_server: ServerFactory) -> None:
    server = start_server(kill_grace=0)
    began = time.monotonic()

    reply = run(server, "sleep 30 & echo $!; sleep 30", timeout=0.5)

    assert reply.timed_out and reply.exit_code == 137
    assert time.monotonic() - began < 5
    assert gone(int(reply.stdout.split()[0]))


def test_with_a_grace_a_timeout_sends_sigterm_first_then_sigkill(start_server: ServerFactory) -> None:
    server = start_server(kill_grace=1)

    honoured = run(server, "echo started; sleep 30", timeout=0.5)
    began = time.monotonic()
    ignored = run(server, "trap '' TERM; sleep 30 & wait", timeout=0.5)

    assert honoured.timed_out and honoured.exit_code == 124 and honoured.stdout == "started\n"
    assert ignored.timed_out and ignored.exit_code == 137
    assert 1.0 <= time.monotonic() - began < 10


def test_output_past_the_limit_is_read_and_dropped(start_server: ServerFactory) -> None:
    server = start_server(output_limit=1000)

    reply = run(server, "head -c 5000000 /dev/zero | tr '\\0' x; echo done >&2")

    assert reply.exit_code == 0 and reply.truncated
    assert reply.stdout == "x" * 1000 and reply.stderr == "done\n"


def test_large_output_within_the_limit_arrives_whole(start_server: ServerFactory) -> None:
    reply = run(start_server(output_limit=8 << 20), "head -c 3000000 /dev/urandom | base64 -w0")

    assert not reply.truncated and len(reply.stdout) == 4_000_000


def test_commands_run_at_once(start_server: ServerFactory) -> None:
    server = start_server()
    replies: dict[int, str] = {}

    def one(index: int) -> None:
        replies[index] = run(server, f"sleep 0.5; echo {index}").stdout

    began = time.monotonic()
    threads = [threading.Thread(target=one, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert replies == {index: f"{index}\n" for index in range(8)}
    assert time.monotonic() - began < 3


def test_with_sweep_nothing_a_command_started_outlives_it(start_server: ServerFactory) -> None:
    server = start_server(sweep=True)

    reply = run(server, "setsid sleep 30 >/dev/null 2>&1 & echo $!; sleep 30 >/dev/null 2>&1 & echo $!")

    assert reply.exit_code == 0
    assert all(gone(int(pid)) for pid in reply.stdout.split())


def test_without_sweep_background_processes_live_on_until_the_server_stops(start_server: ServerFactory) -> None:
    server = start_server(sweep=False)

    pid = int(run(server, "setsid sleep 30 >/dev/null 2>&1 & echo $!").stdout)

    assert not gone(pid, within=0.3)
    server.stop()
    assert gone(pid)


def test_stop_ends_running_commands(start_server: ServerFactory) -> None:
    server = start_server()
    pids: list[str] = []
    worker = threading.Thread(target=lambda: pids.append(run(server, "sleep 30 & echo $!; wait").stdout))
    worker.start()
    time.sleep(0.5)

    server.stop()
    worker.join(timeout=10)

    assert not worker.is_alive()
    assert server.process.returncode is not None


def test_the_server_dying_fails_waiting_and_later_calls_as_crashed(start_server: ServerFactory) -> None:
    server = start_server()
    failures: list[BaseException] = []

    def waiting() -> None:
        try:
            run(server, "sleep 30")
        except SandboxCrashed as exc:
            failures.append(exc)

    worker = threading.Thread(target=waiting)
    worker.start()
    time.sleep(0.3)
    server.process.kill()
    worker.join(timeout=10)

    assert len(failures) == 1
    assert not server.client.alive
    with pytest.raises(SandboxCrashed):
        run(server, "true")


def test_a_server_that_never_greets_is_reported(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.exit(1)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    server = CommandServer(process, describe="broken command server")
    try:
        with pytest.raises(SandboxCrashed, match="did not start"):
            server.client.wait_ready(timeout=10)
    finally:
        server.stop()


def test_it_installs_no_signal_handler_and_refuses_prlimit_on_other_processes(start_server: ServerFactory) -> None:
    server = start_server(require_hardening=True)
    pid = server.process.pid

    reply = run(
        server, f"grep SigCgt /proc/{pid}/status; prlimit --pid {pid} --cpu=1:1; echo $?; ulimit -n 64; echo $?"
    )

    caught, refused, own = reply.stdout.split()[1:]
    # none but glibc's own for signals 32 and 33 (thread cancellation, setxid), which ignore any
    # signal another process sent
    assert int(caught, 16) & ~(0b11 << 31) == 0
    assert (refused, own) == ("1", "0")
    assert "not permitted" in reply.stderr
    assert "unlimited" in Path(f"/proc/{pid}/limits").read_text().splitlines()[1]


def test_with_a_deadline_it_ends_itself_and_what_it_started(start_server: ServerFactory) -> None:
    server = start_server(deadline_s=1.5)
    pid = int(run(server, "setsid sleep 30 >/dev/null 2>&1 & echo $!").stdout)

    assert server.process.wait(timeout=10) == 0
    assert gone(pid)
    with pytest.raises(SandboxCrashed):
        run(server, "true")


def test_inherit_env_starts_commands_from_the_servers_environment(start_server: ServerFactory) -> None:
    assert run(start_server(inherit_env=True), "echo $HOME $BASE").stdout == f"{os.environ['HOME']} base\n"


RACE = """
import subprocess, sys, threading, time
from skill2env.sandbox.command_server import Children
children = Children()
threading.Thread(target=children.reap_forever, daemon=True).start()
running = subprocess.Popen(["sleep", "30"])  # another command: the reaper now waits for any child
children.spawned(running.pid)
time.sleep(0.2)
with children.spawning():
    process = subprocess.Popen(["true"])
    time.sleep(0.5)  # the command ends and the reaper takes it before it is registered
    children.spawned(process.pid)
print(children.exit_code(process.pid, 10))
running.kill()
"""


def test_a_command_reaped_before_it_is_registered_keeps_its_exit_code() -> None:
    # In its own process: the reaper waits for any child, which would steal the test runner's.
    done = subprocess.run([sys.executable, "-c", RACE], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


def test_end_all_kills_every_process_but_the_server_and_answers_once_none_is_left(start_server: ServerFactory) -> None:
    server = start_server(sweep=False)
    background = [int(pid) for pid in run(server, "setsid sleep 30 >/dev/null 2>&1 & echo $!; "
                                                  "sleep 30 >/dev/null 2>&1 & echo $!").stdout.split()]  # fmt: skip
    replies: list[CommandReply] = []
    running = threading.Thread(target=lambda: replies.append(run(server, "sleep 30", timeout=60)))
    running.start()
    time.sleep(0.3)

    server.client.end_all(10)

    assert all(gone(pid, within=0.01) for pid in background)
    running.join(10)
    assert replies and replies[0].exit_code == 137  # the running command was killed too, and said so
    assert run(server, "echo still here").stdout == "still here\n"  # the server itself lives on

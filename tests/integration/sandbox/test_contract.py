"""The `Sandbox` contract, the same for every backend."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, LOG_TRIAGE, SandboxFactory, fixture_task, tree

from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.errors import (
    SandboxDeadlineExceeded,
    SandboxNotRunning,
    SandboxPathError,
    SandboxTimeout,
)

pytestmark = pytest.mark.integration


@pytest.fixture
def started(new_sandbox: SandboxFactory):
    sandbox = new_sandbox(SandboxLimits(memory_mb=512, storage_mb=64, tmp_mb=64, wall_clock_s=300))
    sandbox.start(fixture_task(CSV_AGGREGATION))
    return sandbox


def test_commands_run_as_the_agent_in_the_workspace_with_the_task_files(started) -> None:
    result = started.exec("id -un; id -u; pwd; cat sales.csv | head -1; echo oops >&2; exit 3")

    assert result.exit_code == 3
    assert result.stdout.splitlines() == ["agent", "1000", "/workspace", "region,product,units,unit_price"]
    assert result.stderr == "oops\n"
    assert not result.timed_out and result.duration_s > 0


def test_argv_cwd_env_and_user_are_honoured(started) -> None:
    assert started.exec(["printf", "%s|", "a b", "c"]).stdout == "a b|c|"
    assert started.exec("pwd", cwd="/tmp").stdout.strip() == "/tmp"
    assert started.exec("echo $GREETING", env={"GREETING": "hello"}).stdout.strip() == "hello"
    assert started.exec("id -u", user="root").stdout.strip() == "0"


def test_the_workspace_follows_the_dockerfiles_workdir(new_sandbox: SandboxFactory) -> None:
    sandbox = new_sandbox(SandboxLimits(storage_mb=64, tmp_mb=64, wall_clock_s=300))
    sandbox.start(fixture_task(LOG_TRIAGE))

    assert sandbox.workspace == "/app"
    assert sandbox.exec("pwd; ls logs").stdout.split() == ["/app", "app.log"]


def test_a_command_past_its_timeout_is_killed_and_raises_with_its_output(started) -> None:
    began = time.monotonic()
    with pytest.raises(SandboxTimeout) as caught:
        started.exec("echo before; sleep 30; echo after", timeout=1.5)

    assert time.monotonic() - began < 10
    assert caught.value.result.timed_out
    assert caught.value.result.stdout == "before\n"
    assert started.exec("echo still here").stdout == "still here\n"


def test_a_command_ignoring_sigterm_is_killed_anyway(started) -> None:
    began = time.monotonic()
    with pytest.raises(SandboxTimeout):
        started.exec("trap '' TERM; sleep 60", timeout=1)

    assert time.monotonic() - began < 15


def test_output_past_the_limit_is_dropped_not_buffered(new_sandbox: SandboxFactory) -> None:
    sandbox = new_sandbox(SandboxLimits(output_limit_bytes=1000, storage_mb=64, tmp_mb=64))
    sandbox.start(fixture_task(CSV_AGGREGATION))

    result = sandbox.exec("head -c 5000000 /dev/zero | tr '\\0' x")

    assert result.ok and result.output_truncated
    assert result.stdout == "x" * 1000


def test_files_round_trip_through_write_read_copy_in_and_copy_out(started, tmp_path: Path) -> None:
    started.write_file("notes/deep/a.txt", "alpha")
    started.write_file("/workspace/b.bin", b"\x00\x01")
    assert started.read_file("notes/deep/a.txt") == b"alpha"
    assert started.exec("cat notes/deep/a.txt && echo more >> notes/deep/a.txt").ok  # the agent owns it

    source = tmp_path / "source"
    (source / "sub").mkdir(parents=True)
    (source / "sub" / "c.txt").write_text("gamma")
    (source / "link").symlink_to("sub/c.txt")
    started.copy_in(source, "/workspace/copied")
    assert started.exec("cat copied/sub/c.txt copied/link").stdout == "gammagamma"

    started.copy_out("/workspace", tmp_path / "out")
    files = tree(tmp_path / "out")
    assert files["notes/deep/a.txt"] == b"alphamore\n"
    assert files["b.bin"] == b"\x00\x01"
    assert (tmp_path / "out" / "copied" / "link").is_symlink()
    assert "sales.csv" in files


def test_harbor_dirs_are_readable_but_not_writable_by_the_agent(started, tmp_path: Path) -> None:
    (tmp_path / "solve.sh").write_text("echo solved\n")
    started.copy_in(tmp_path / "solve.sh", "/solution/solve.sh")

    assert started.exec("bash /solution/solve.sh").stdout == "solved\n"
    assert not started.exec("echo planted > /solution/solve.sh").ok
    assert not started.exec("touch /tests/planted").ok


def test_paths_that_cannot_be_read_or_written_raise_a_path_error(started) -> None:
    with pytest.raises(SandboxPathError):
        started.read_file("does/not/exist")
    with pytest.raises(SandboxPathError):
        started.read_file("/workspace")
    with pytest.raises(SandboxPathError):
        started.write_file("/usr/bin/evil", "x")


def test_stop_is_idempotent_and_a_stopped_sandbox_refuses_work(started) -> None:
    started.stop()
    started.stop()

    with pytest.raises(SandboxNotRunning):
        started.exec("true")


def test_the_rollout_wall_clock_ends_the_sandbox(new_sandbox: SandboxFactory) -> None:
    sandbox = new_sandbox(SandboxLimits(wall_clock_s=3, storage_mb=64, tmp_mb=64))
    sandbox.start(fixture_task(CSV_AGGREGATION))

    with pytest.raises(SandboxDeadlineExceeded):
        sandbox.exec("sleep 30", timeout=60)
    with pytest.raises(SandboxDeadlineExceeded):
        sandbox.exec("true")


def test_commands_of_one_sandbox_run_at_once(started) -> None:
    outputs: dict[int, str] = {}

    def one(index: int) -> None:
        outputs[index] = started.exec(f"sleep 0.5; echo {index}").stdout

    began = time.monotonic()
    threads = [threading.Thread(target=one, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert outputs == {index: f"{index}\n" for index in range(6)}
    assert time.monotonic() - began < 2.5

"""Limits from a task, owner tokens, command shapes, and the result model."""

from __future__ import annotations

import subprocess
import sys

from harbor_tasks import LOG_TRIAGE, fixture_task

from skill2env.sandbox.base import ExecResult, SandboxLimits, owner_is_alive, owner_token, shell_command


def test_limits_follow_the_task_and_cover_agent_plus_verifier() -> None:
    limits = SandboxLimits.for_task(fixture_task(LOG_TRIAGE), pids=64)

    assert limits.memory_mb == 256 and limits.storage_mb == 128 and limits.cpus == 1
    assert not limits.network
    assert limits.wall_clock_s == 60 + 60 + 60
    assert limits.pids == 64


def test_this_process_is_alive_and_a_finished_one_is_not() -> None:
    assert owner_is_alive(owner_token())

    child = subprocess.Popen(
        [sys.executable, "-c", "from skill2env.sandbox.base import owner_token; print(owner_token())"],
        stdout=subprocess.PIPE,
        text=True,
    )
    token = child.communicate()[0].strip()

    assert not owner_is_alive(token)


def test_malformed_or_foreign_boot_tokens_are_dead() -> None:
    boot, _, rest = owner_token().partition(":")

    assert not owner_is_alive("")
    assert not owner_is_alive("garbage")
    assert not owner_is_alive(f"another-boot:{rest}")
    assert owner_is_alive(f"{boot}:{rest}")


def test_a_string_runs_through_bash_and_a_sequence_as_is() -> None:
    assert shell_command("echo hi | wc -c") == ["bash", "-c", "echo hi | wc -c"]
    assert shell_command(("ls", "-l")) == ["ls", "-l"]


def test_a_result_is_ok_only_when_it_exited_zero_in_time() -> None:
    assert ExecResult(exit_code=0, duration_s=0.1).ok
    assert not ExecResult(exit_code=1, duration_s=0.1).ok
    assert not ExecResult(exit_code=0, duration_s=0.1, timed_out=True).ok

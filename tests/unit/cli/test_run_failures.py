"""The run summary's failures: a table per cause, and exit status 3 when a stage made nothing of its items."""

from __future__ import annotations

import io

import polars as pl
import pytest
from rich.console import Console

from skill2env import cli

FAILURES = pl.DataFrame({
    "stage": ["authoring", "rollouts"], "iteration": [0, 0], "status": ["skipped", "infra_error"],
    "reason": ["author offline", "sandbox start failed"], "items": [4, 1], "example": ["team/a", "r2"],
    "example_reason": ["author offline:kits declined: no world kit fits", "sandbox start failed: 3 s"],
})  # fmt: skip


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """What the CLI's console prints (tables go to stdout)."""
    text = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=text, width=200))
    return text


def test_failures_are_printed_with_the_command_that_shows_them_all(
    said: io.StringIO, capsys: pytest.CaptureFixture[str]
) -> None:
    cli._print_failures(FAILURES, [])
    out = capsys.readouterr().out + said.getvalue()
    assert "What did not succeed (5 items; first 2 causes)" in out
    assert "author offline" in out and "sandbox start failed" in out and "SELECT * FROM stage_failures" in out


def test_a_stage_that_made_nothing_ends_the_run_with_status_3(said: io.StringIO) -> None:
    with pytest.raises(SystemExit) as ended:
        cli._print_failures(FAILURES, ["authoring built no task from 4 skills with selected patterns"])
    assert ended.value.code == 3
    assert "error: authoring built no task from 4 skills" in said.getvalue()


def test_nothing_failed_prints_nothing(said: io.StringIO, capsys: pytest.CaptureFixture[str]) -> None:
    cli._print_failures(FAILURES.head(0), [])
    assert capsys.readouterr().out == said.getvalue() == ""

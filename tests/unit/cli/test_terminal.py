"""The command line's console reaches the terminal while a job run in this process has Dagster
capture descriptor 2 into its compute logs (whose copy back to the terminal loses its last lines)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from skill2env.terminal import StartingStderrConsole

PRINT_DURING_CAPTURE = """
import sys
from dagster._core.execution.compute_logs import redirect_to_file
from skill2env.terminal import StartingStderrConsole

console = StartingStderrConsole()
with redirect_to_file(sys.stderr, sys.argv[1]):  # what a step's compute log capture does to descriptor 2
    console.print("stage: finished", markup=False, highlight=False)
    print("the step's own output", file=sys.stderr, flush=True)
"""


def test_a_line_printed_while_dagster_captures_stderr_goes_straight_to_the_terminal(tmp_path: Path) -> None:
    compute_log = tmp_path / "compute.err"
    done = subprocess.run([sys.executable, "-c", PRINT_DURING_CAPTURE, str(compute_log)],
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip

    assert done.stderr == "stage: finished\n"
    assert compute_log.read_text() == "the step's own output\n"  # the capture itself is left as it was


def test_where_sys_stderr_was_replaced_it_writes_there(monkeypatch: pytest.MonkeyPatch) -> None:
    replaced = io.StringIO()
    monkeypatch.setattr(sys, "stderr", replaced)

    StartingStderrConsole().print("caught by the runner", markup=False, highlight=False)

    assert replaced.getvalue() == "caught by the runner\n"

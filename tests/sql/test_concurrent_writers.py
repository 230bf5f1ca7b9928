"""Two processes writing to the same lake at once: no error, nothing lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from skill2env.lake.lake import Lake

WRITER = Path(__file__).resolve().parents[1] / "lake_writer.py"
WRITES_PER_PROCESS = 15
ROWS_PER_WRITE = 50


def test_two_processes_write_and_read_at_once(tmp_path: Path) -> None:
    lake_path = tmp_path / "lake.duckdb"
    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), str(lake_path), name, str(WRITES_PER_PROCESS)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    ]
    errors = [w.communicate(timeout=300)[1] for w in writers]

    assert [w.returncode for w in writers] == [0, 0], errors
    lake = Lake(lake_path)
    assert lake.query("SELECT count(*) FROM materializations").item() == 2 * WRITES_PER_PROCESS
    assert lake.query("SELECT count(*) FROM skills_versions").item() == 2 * WRITES_PER_PROCESS * ROWS_PER_WRITE
    assert lake.query("SELECT count(*) FROM skills").item() == ROWS_PER_WRITE
    assert lake.query("SELECT count(DISTINCT run_id) FROM skills_versions").item() == 2 * WRITES_PER_PROCESS

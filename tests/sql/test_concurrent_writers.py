"""Processes writing to the same lake at once: no error, nothing lost; a writer killed in the middle
of a write leaves nothing of it behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from lake_backends import LakeMaker, lake_argument

WRITER = Path(__file__).resolve().parents[1] / "lake_writer.py"
WRITES_PER_PROCESS = 15
ROWS_PER_WRITE = 50


def test_two_processes_write_and_read_at_once(make_lake: LakeMaker, tmp_path: Path) -> None:
    lake = make_lake(tmp_path / "lake.duckdb")
    writers = [
        subprocess.Popen(
            [sys.executable, str(WRITER), lake_argument(lake), name, str(WRITES_PER_PROCESS)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("left", "right")
    ]
    errors = [w.communicate(timeout=300)[1] for w in writers]

    assert [w.returncode for w in writers] == [0, 0], errors
    assert lake.query("SELECT count(*) FROM materializations").item() == 2 * WRITES_PER_PROCESS
    assert lake.query("SELECT count(*) FROM skills_versions").item() == 2 * WRITES_PER_PROCESS * ROWS_PER_WRITE
    assert lake.query("SELECT count(*) FROM skills").item() == ROWS_PER_WRITE
    assert lake.query("SELECT count(DISTINCT run_id) FROM skills_versions").item() == 2 * WRITES_PER_PROCESS


PARTITION_WRITER = WRITER.with_name("lake_partition_writer.py")
PARTITIONS = 8
PARTITION_WRITES = 5
PARTITION_ROWS = 200
VICTIM_ROWS = 140_000
"""More than DuckDB's row group, so the killed transaction had already written blocks to the file."""


def test_eight_partition_writers_at_once_after_one_was_killed_mid_write(make_lake: LakeMaker, tmp_path: Path) -> None:
    lake, marker = make_lake(tmp_path / "lake.duckdb"), tmp_path / "victim-is-writing"
    lake.ensure_schema()
    victim = subprocess.Popen(
        [sys.executable, str(PARTITION_WRITER), lake_argument(lake), "victim", "1", str(VICTIM_ROWS), str(marker)],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 300
    while not marker.exists():
        assert victim.poll() is None, victim.communicate()[1]
        assert time.monotonic() < deadline, "the victim never reached the middle of its write"
        time.sleep(0.05)
    victim.send_signal(signal.SIGKILL)
    assert victim.wait(timeout=60) == -signal.SIGKILL

    def writer(domain: str) -> list[str]:
        return [sys.executable, str(PARTITION_WRITER), lake_argument(lake), domain, str(PARTITION_WRITES),
                str(PARTITION_ROWS)]  # fmt: skip

    writers = [subprocess.Popen(writer(f"domain-{i}"), stderr=subprocess.PIPE, text=True) for i in range(PARTITIONS)]
    errors = [w.communicate(timeout=600)[1] for w in writers]
    assert [w.returncode for w in writers] == [0] * PARTITIONS, errors

    # Nothing of the killed write: no register entry, no row (committed or left in the file).
    assert lake.query("SELECT count(*) FROM materializations WHERE partition_key = 'victim'").item() == 0
    assert lake.query("SELECT count(*) FROM curated_skills_versions WHERE partition_key = 'victim'").item() == 0
    # Every write of every partition whole, once; each partition's newest version alone visible.
    assert lake.query("SELECT count(*) FROM materializations").item() == PARTITIONS * PARTITION_WRITES
    versions = lake.query(
        "SELECT partition_key, count(*) AS n, count(DISTINCT (path, write_id)) AS distinct_rows "
        "FROM curated_skills_versions GROUP BY 1"
    )
    assert versions.height == PARTITIONS
    assert set(versions["n"]) == set(versions["distinct_rows"]) == {PARTITION_WRITES * PARTITION_ROWS}
    newest = lake.query(
        "SELECT v.partition_key, count(*) AS n, min(v.path) AS first FROM curated_skills_versions AS v "
        "JOIN latest_materializations AS m ON m.table_name = 'curated_skills' AND m.write_id = v.write_id "
        "GROUP BY 1 ORDER BY 1"
    )  # the newest write of each partition (the `curated_skills` view also joins the catalog, empty here)
    assert newest["n"].to_list() == [PARTITION_ROWS] * PARTITIONS
    assert all(f"/skill-{PARTITION_WRITES - 1}-" in first for first in newest["first"])


def test_eight_processes_make_a_new_lake_at_once(make_lake: LakeMaker, tmp_path: Path) -> None:
    # On a DuckLake the first connections create its catalog tables in Postgres and the lake's schema;
    # those that lose the race must attach to (or find) what the winner made, not fail.
    lake = make_lake(tmp_path / "lake.duckdb")
    script = "import sys; from lake_backends import lake_from_argument; lake_from_argument(sys.argv[1]).ensure_schema()"
    tests_dir = str(Path(__file__).resolve().parents[1])
    makers = [
        subprocess.Popen(
            [sys.executable, "-c", script, lake_argument(lake)], cwd=tests_dir, stderr=subprocess.PIPE, text=True
        )
        for _ in range(PARTITIONS)
    ]
    errors = [m.communicate(timeout=300)[1] for m in makers]

    assert [m.returncode for m in makers] == [0] * PARTITIONS, errors
    assert lake.query("SELECT count(*) FROM materializations").item() == 0

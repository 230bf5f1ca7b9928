"""The lake's versioning contract: append-only history, views show the newest write, writes are atomic."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from lake_backends import LakeMaker, raw_connection
from rows import curated_frame, curated_row, skill_row, skills_frame

from skill2env.lake import lake as lake_module
from skill2env.lake.lake import Lake, ReadOnlyQueryError, TableWrite, UnknownTableError


def count(lake: Lake, sql: str) -> int:
    return int(lake.query(sql).item())


def test_rematerializing_keeps_history_and_does_not_duplicate_the_view(lake: Lake) -> None:
    frame = skills_frame(skill_row("a/one"), skill_row("a/two"))
    lake.write([TableWrite("skills", frame)], run_id="run-1", code_version="v1")
    lake.write([TableWrite("skills", frame)], run_id="run-2", code_version="v1")

    assert count(lake, "SELECT count(*) FROM skills_versions") == 4
    assert count(lake, "SELECT count(*) FROM skills") == 2
    assert lake.query("SELECT DISTINCT run_id FROM skills").item() == "run-2"
    assert count(lake, "SELECT count(*) FROM materializations WHERE table_name = 'skills'") == 2


def test_a_new_catalog_replaces_the_old_one_in_the_view(lake: Lake) -> None:
    lake.write([TableWrite("skills", skills_frame(skill_row("a/one"), skill_row("a/gone")))], run_id="r1",
               code_version="v1")  # fmt: skip
    lake.write([TableWrite("skills", skills_frame(skill_row("a/one")))], run_id="r2", code_version="v1")

    assert lake.query("SELECT path FROM skills").to_series().to_list() == ["a/one"]
    assert count(lake, "SELECT count(*) FROM skills_versions WHERE path = 'a/gone'") == 1


def test_partitions_are_versioned_independently(lake: Lake) -> None:
    lake.write([TableWrite("skills", skills_frame(
        skill_row("a/x", domain="finance-markets"), skill_row("a/y", domain="security"),
        skill_row("a/z", domain="security"),
    ))], run_id="r0", code_version="v1")  # fmt: skip
    first = [
        TableWrite("curated_skills", curated_frame(curated_row("a/x", domain="finance-markets")), "finance-markets"),
        TableWrite("curated_skills", curated_frame(curated_row("a/y", domain="security"),
                                                   curated_row("a/z", domain="security")), "security"),
    ]  # fmt: skip
    lake.write(first, run_id="r1", code_version="v1")
    again = curated_frame(curated_row("a/y", False, domain="security"), curated_row("a/z", False, domain="security"))
    lake.write([TableWrite("curated_skills", again, "security")], run_id="r2", code_version="v2")

    view = lake.query("SELECT path, curated, run_id, code_version FROM curated_skills ORDER BY path")
    assert view.rows() == [("a/x", True, "r1", "v1"), ("a/y", False, "r2", "v2"), ("a/z", False, "r2", "v2")]
    assert count(lake, "SELECT count(*) FROM curated_skills_versions") == 5


def test_a_failed_write_leaves_nothing_visible(lake: Lake) -> None:
    good = TableWrite("skills", skills_frame(skill_row("a/one")))
    broken = TableWrite("skill_files", pl.DataFrame({"skill_id": ["x"], "not_a_column": [1]}))
    with pytest.raises(Exception, match="not_a_column"):
        lake.write([good, broken], run_id="r1", code_version="v1")

    assert count(lake, "SELECT count(*) FROM skills_versions") == 0
    assert count(lake, "SELECT count(*) FROM materializations") == 0


def test_unknown_tables_are_refused_before_anything_is_written(lake: Lake) -> None:
    with pytest.raises(UnknownTableError, match="secrets"):
        lake.write([TableWrite("secrets", pl.DataFrame({"a": [1]}))], run_id="r1", code_version="v1")


def test_queries_cannot_change_the_lake(lake: Lake) -> None:
    lake.write([TableWrite("skills", skills_frame(skill_row("a/one")))], run_id="r1", code_version="v1")
    with pytest.raises(ReadOnlyQueryError):
        lake.query("DELETE FROM skills_versions")
    assert count(lake, "SELECT count(*) FROM skills") == 1


def test_query_parameters_are_bound_not_interpolated(lake: Lake) -> None:
    lake.write([TableWrite("skills", skills_frame(skill_row("a/o'neil")))], run_id="r1", code_version="v1")
    found = lake.query("SELECT path FROM skills WHERE path = $path", {"path": "a/o'neil"})
    assert found.to_series().to_list() == ["a/o'neil"]


def test_large_frames_are_inserted_slice_by_slice_in_one_write(lake: Lake, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lake_module, "INSERT_SLICE_ROWS", 2)
    frame = skills_frame(*(skill_row(f"a/s{i}") for i in range(5)))
    (receipt,) = lake.write([TableWrite("skills", frame)], run_id="r1", code_version="v1")

    assert receipt.row_count == 5
    assert lake.query("SELECT count(DISTINCT path) FROM skills").item() == 5
    assert lake.query("SELECT count(DISTINCT write_id) FROM skills_versions").item() == 1


def test_a_read_of_a_lake_made_by_an_older_version_first_gains_the_current_views(
    make_lake: LakeMaker, tmp_path: Path
) -> None:
    make_lake(tmp_path / "lake.duckdb").ensure_schema()
    with raw_connection(make_lake(tmp_path / "lake.duckdb")) as con:
        con.execute("DROP VIEW rollout_rewards")
        con.execute("UPDATE lake_schema SET digest = 'an older version'")

    assert (
        make_lake(tmp_path / "lake.duckdb").query("SELECT count(*) AS n FROM rollout_rewards WHERE incomplete").item()
        == 0
    )

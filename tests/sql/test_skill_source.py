"""Curation's lake source: rows as the frame gives them, and the lake it keeps open between chunks
never holds up a writer nor serves a lake that was made again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rows import skill_row, skills_frame

import skill2env.lake.skill_source as skill_source
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.skill_source import LakeSkillSource
from skill2env.lake.sqlfiles import load_sql

DOMAIN = "data-analytics"


def _catalog(lake: Lake, *paths: str, run_id: str = "r1") -> None:
    frame = skills_frame(*(skill_row(path) for path in paths))
    lake.write([TableWrite("skills", frame)], run_id=run_id, code_version="test")


def test_rows_are_the_frames_rows_as_dicts(lake: Lake) -> None:
    _catalog(lake, "team/a", "team/b", "team/c")
    source = LakeSkillSource(lake.path, ducklake=lake.ducklake)
    rows = source.rows(DOMAIN, "team/a", "team/b")
    bound = {"domain": DOMAIN, "first_path": "team/a", "last_path": "team/b"}
    assert rows == list(lake.query(load_sql("queries/skills_of_domain"), bound).iter_rows(named=True))
    assert [row["path"] for row in rows] == ["team/a", "team/b"]


def test_a_writer_makes_the_kept_lake_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skill_source, "KEEP_OPEN_S", 3600.0)  # only the waiting writer can end it
    lake = Lake(tmp_path / "lake.duckdb", lock_timeout=60)
    lake.ensure_schema()
    _catalog(lake, "team/a")
    source = LakeSkillSource(lake.path, keep_open=True)
    assert [row["path"] for row in source.rows(DOMAIN, "team/a", "team/a")] == ["team/a"]
    keeper = skill_source._KEEPERS[source]
    assert keeper._held is not None

    _catalog(lake, "team/a", "team/b", run_id="r2")  # waits for the keeper, which lets go

    assert keeper._held is None
    assert [row["path"] for row in source.rows(DOMAIN, "team/a", "team/z")] == ["team/a", "team/b"]


def test_a_lake_made_again_is_read_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(skill_source, "KEEP_OPEN_S", 3600.0)
    home = tmp_path / "home"
    first = Lake(home / "lake.duckdb")
    first.ensure_schema()
    _catalog(first, "team/old")
    source = LakeSkillSource(first.path, keep_open=True)
    assert [row["path"] for row in source.rows(DOMAIN, "team/a", "team/z")] == ["team/old"]

    shutil.rmtree(home)  # the user starts over, in another process, while this one holds the old file open
    subprocess.run([sys.executable, "-c", MAKE_AGAIN, str(first.path)], check=True, cwd=Path(__file__).parent)

    assert [row["path"] for row in source.rows(DOMAIN, "team/a", "team/z")] == ["team/new"]


MAKE_AGAIN = """
import sys
from pathlib import Path
sys.path.insert(0, str(Path.cwd().parent))
from rows import skill_row, skills_frame
from skill2env.lake.lake import Lake, TableWrite
lake = Lake(Path(sys.argv[1]))
lake.ensure_schema()
lake.write([TableWrite("skills", skills_frame(skill_row("team/new")))], run_id="r2", code_version="test")
"""

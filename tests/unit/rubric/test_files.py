"""file_exists / file_absent / file_unchanged: paths, globs, kinds, sizes, links, and their evidence."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from rubric_helpers import Run


def test_an_existing_file_passes_and_the_evidence_lists_it(ws: Path, put, run: Run) -> None:
    put("output/report.md", "hello")

    result = run("file_exists", path="output/report.md")

    assert result.status == "passed"
    assert result.evidence["found"] == [{"path": "output/report.md", "bytes": 5}]
    assert result.evidence["check"] == "file_exists"


def test_a_missing_file_fails_with_what_was_looked_for(run: Run) -> None:
    result = run("file_exists", path="output/report.md")

    assert result.status == "failed"
    assert "0 of 0" in result.evidence["summary"] and "output/report.md" in result.evidence["summary"]


def test_globs_count_matches_and_sizes(put, run: Run) -> None:
    put("out/a.csv", "x,y\n")
    put("out/b.csv", "")
    put("out/c.txt", "zzz")

    assert run("file_exists", path="out/*.csv", min_count=2).passed
    assert not run("file_exists", path="out/*.csv", min_count=2, min_bytes=1).passed
    assert run("file_exists", path="**/*.txt").passed


def test_the_kind_is_checked(put, run: Run) -> None:
    put("out/a.csv", "x")

    assert run("file_exists", path="out", kind="dir").passed
    assert not run("file_exists", path="out").passed  # a directory is not a file
    assert run("file_exists", path="out", kind="any").passed
    assert run("file_exists", path="out", kind="folder").error is not None


def test_a_link_leaving_the_workspace_does_not_count(ws: Path, tmp_path: Path, run: Run) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("expected values")
    (ws / "answer.txt").symlink_to(outside)

    assert not run("file_exists", path="answer.txt").passed
    assert not run("file_exists", path="*.txt").passed


def test_paths_leaving_the_workspace_are_a_spec_error(run: Run) -> None:
    for path in ("../secret.txt", "/etc/passwd", "a/../../b"):
        result = run("file_exists", path=path)
        assert result.error is not None, path
        assert result.error


def test_an_absolute_path_under_the_workspace_is_accepted(ws: Path, put, run: Run) -> None:
    put("report.md", "x")

    assert run("file_exists", path=str(ws / "report.md")).passed


def test_file_absent_passes_only_when_nothing_matches(ws: Path, put, run: Run) -> None:
    assert run("file_absent", path="scratch/*.tmp").passed
    put("scratch/a.tmp", "")
    result = run("file_absent", path="scratch/*.tmp")
    assert not result.passed
    assert result.evidence["found"] == [{"path": "scratch/a.tmp", "bytes": 0}]
    (ws / "dangling").symlink_to(ws / "nowhere")
    assert not run("file_absent", path="dangling").passed


def test_unchanged_files_pass_and_changed_ones_are_named(put, run: Run) -> None:
    put("sales.csv", "a,b\n1,2\n")
    put("README.md", "read me")
    digests = {
        "sales.csv": hashlib.sha256(b"a,b\n1,2\n").hexdigest(),
        "README.md": hashlib.sha256(b"read me").hexdigest(),
    }
    assert run("file_unchanged", files=digests).passed
    assert run("file_unchanged", path="sales.csv", sha256=digests["sales.csv"].upper()).passed

    put("sales.csv", "a,b\n1,3\n")
    result = run("file_unchanged", files=digests)

    assert not result.passed
    assert result.evidence["changed"] == ["sales.csv"]
    entry = next(e for e in result.evidence["compared"] if e["path"] == "sales.csv")
    assert entry["expected"] == digests["sales.csv"] and entry["actual"] != entry["expected"]


def test_a_deleted_or_replaced_source_fails(ws: Path, put, run: Run) -> None:
    put("sales.csv", "data")
    digest = hashlib.sha256(b"data").hexdigest()
    (ws / "sales.csv").unlink()
    result = run("file_unchanged", path="sales.csv", sha256=digest)
    assert not result.passed and "does not exist" in result.evidence["compared"][0]["problem"]

    os.mkfifo(ws / "sales.csv")
    assert not run("file_unchanged", path="sales.csv", sha256=digest).passed


def test_file_unchanged_needs_well_formed_digests(run: Run) -> None:
    assert run("file_unchanged").error is not None
    assert run("file_unchanged", path="a", sha256="abc").error is not None

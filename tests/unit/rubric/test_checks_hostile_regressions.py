"""One deterministic case per class of hostile workspace content, in both directions: the check
fails cleanly (passed / failed with evidence, never the catch-all for its own exception, never a
hang), and a hostile value never makes a check pass where the right-looking value fails."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sqlite3
import stat
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import openpyxl
import pytest
from rubric_helpers import Put, Run

from skill2env.rubric.checks import REGISTRY, CheckResult, CheckTimeout, judge_inputs
from skill2env.rubric.checks.base import DEFAULT_MAX_BYTES
from skill2env.rubric.checks.tables import XLSX_MAX_UNPACKED
from skill2env.rubric.checks.values import Comparison, values_equal
from skill2env.rubric.verify_main import time_limit, verify

HUGE = 10**400
"""An integer JSON reads exactly and float() refuses (OverflowError)."""
TOO_LONG = "1" * 5000
"""An integer literal past int()'s 4300-digit limit: json.loads raises a plain ValueError."""
SPARSE = 1 << 36
CHECK_SECONDS = 10
"""A generous bound: the costliest case here takes under 2 s unloaded."""


@pytest.fixture
def run_bounded(run: Run) -> Run:
    """`run` under the verifier's time limit: a check that hangs fails the test instead."""

    def bounded(name: str, **params: Any) -> CheckResult:
        try:
            with time_limit(CHECK_SECONDS):
                return run(name, **params)
        except CheckTimeout:
            pytest.fail(f"{name} ran past its time limit")

    return bounded


def clean_failure(result: CheckResult, *words: str) -> None:
    """Failed by the check's own judgement, with a summary naming the cause."""
    assert result.status == "failed", result.evidence
    assert result.error is None, result.error
    summary = str(result.evidence.get("summary", ""))
    for word in words:
        assert word in summary, summary


def _sqlite(path: Path, rows: list[tuple[Any, ...]], *, wal: bool = False) -> sqlite3.Connection | None:
    db = sqlite3.connect(path)
    if wal:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("CREATE TABLE t (v)")
    db.executemany("INSERT INTO t VALUES (?)", rows)
    db.commit()
    if wal:
        return db  # left open: the rows stay in the -wal file
    db.close()
    return None


def _xlsx(rows: list[list[Any]]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _with_sheet(workbook: bytes, sheet_xml: str) -> bytes:
    """`workbook` with its first sheet's body replaced by `sheet_xml`."""
    out = io.BytesIO()
    opening = '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
    with zipfile.ZipFile(io.BytesIO(workbook)) as source, zipfile.ZipFile(out, "w") as target:
        for member in source.infolist():
            data = source.read(member)
            if member.filename == "xl/worksheets/sheet1.xml":
                data = f"{opening}{sheet_xml}</worksheet>".encode()
            target.writestr(member.filename, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


# -- huge integers --------------------------------------------------------------------------------


def test_an_integer_beyond_float_fails_json_checks_cleanly(put: Put, run_bounded: Run) -> None:
    put("summary.json", json.dumps({"total": HUGE}))

    clean_failure(run_bounded("json_equals", path="summary.json", expected={"total": 1234.5}), "difference")
    clean_failure(run_bounded("json_path_equals", path="summary.json", json_path="$.total", expected=1234.5))
    put("totals.csv", "total\n1234.5\n")
    sources = [{"path": "summary.json", "json_path": "$.total"}, {"path": "totals.csv", "csv_column": "total"}]
    clean_failure(run_bounded("cross_file_consistent", sources=sources))


def test_an_integer_of_too_many_digits_fails_cleanly(put: Put, run_bounded: Run) -> None:
    put("summary.json", f'{{"total": {TOO_LONG}}}')
    put("rows.jsonl", f'{{"total": 1}}\n{{"total": {TOO_LONG}}}\n')

    clean_failure(run_bounded("json_equals", path="summary.json", expected={"total": 1}), "not readable JSON")
    clean_failure(run_bounded("json_path_equals", path="summary.json", json_path="$.total", expected=1))
    clean_failure(run_bounded("row_count", path="rows.jsonl", expected=2), "line 2")


def test_a_workbook_cell_of_too_many_digits_fails_cleanly(put: Put, run_bounded: Run) -> None:
    sheet = '<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>total</t></is></c></row>'
    sheet += f'<row r="2"><c r="A2"><v>{TOO_LONG}</v></c></row></sheetData>'
    put("out.xlsx", _with_sheet(_xlsx([["total"]]), sheet))

    clean_failure(run_bounded("csv_equals", path="out.xlsx", expected=[{"total": 1}]), "cannot be read")
    clean_failure(run_bounded("row_count", path="out.xlsx", expected=1), "cannot be read")


@pytest.mark.parametrize(
    ("expected", "written"),
    [
        (2**53, 2**53 + 1),  # equal as floats
        (10**15, 10**15 + 999),  # within float noise of 1e-12 relative
        (HUGE, HUGE + 1),  # both overflow to the same inf
        (-(2**63), -(2**63) + 1),
    ],
)
def test_integers_compare_exactly(put: Put, run_bounded: Run, expected: int, written: int) -> None:
    put("out.json", json.dumps({"id": written}))
    put("out.csv", f"id\n{written}\n")

    assert run_bounded("json_path_equals", path="out.json", json_path="$.id", expected=written).passed
    clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.id", expected=expected))
    clean_failure(run_bounded("json_equals", path="out.json", expected={"id": expected}))
    for options in ({}, {"ignore_row_order": True}, {"key_columns": ["id"]}):
        clean_failure(run_bounded("csv_equals", path="out.csv", expected=[{"id": expected}], **options))


def test_integer_tolerances_are_exact_too() -> None:
    assert values_equal(HUGE, HUGE + 5, Comparison(abs_tolerance=5))
    assert not values_equal(HUGE, HUGE + 6, Comparison(abs_tolerance=5))
    assert values_equal(HUGE, HUGE + HUGE // 100, Comparison(rel_tolerance=0.01))
    assert not values_equal(HUGE, HUGE + HUGE // 10, Comparison(rel_tolerance=0.01))


# -- NaN and infinities ---------------------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_equal_nothing_not_even_themselves(put: Put, run_bounded: Run, literal: str) -> None:
    value = float(literal.replace("Infinity", "inf"))
    put("out.json", f'{{"total": {literal}}}')

    assert values_equal(1.0, 1.0, Comparison())
    assert not values_equal(value, value, Comparison())
    for tolerance in ({}, {"tolerance": 1e300}, {"relative_tolerance": 1.0}):
        clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.total", expected=5, **tolerance))
        clean_failure(run_bounded("json_equals", path="out.json", expected={"total": value}, **tolerance))


def test_two_deliverables_do_not_agree_by_both_being_nan(put: Put, run_bounded: Run) -> None:
    put("summary.json", '{"total": NaN}')
    put("sales.csv", "amount\n1e999\n-1e999\n")  # sums to NaN
    sources = [{"path": "summary.json", "json_path": "$.total"}, {"path": "sales.csv", "csv_column": "amount"}]

    clean_failure(run_bounded("cross_file_consistent", sources=sources))
    clean_failure(run_bounded("cross_file_consistent", sources=sources, relative_tolerance=0.5))


def test_an_infinite_reference_is_not_within_a_relative_tolerance_of_everything(put: Put, run_bounded: Run) -> None:
    put("summary.json", '{"total": Infinity}')
    put("sales.csv", "amount\n5\n")
    sources = [{"path": "summary.json", "json_path": "$.total"}, {"path": "sales.csv", "csv_column": "amount"}]

    clean_failure(run_bounded("cross_file_consistent", sources=sources, relative_tolerance=0.01))


def test_overflowing_cells_do_not_match_rows_by_overflowing_alike(put: Put, run_bounded: Run) -> None:
    put("out.csv", "id,v\n1e999,5\n")
    expected = {"columns": ["id", "v"], "rows": [["1e400", 5]]}

    for options in ({}, {"ignore_row_order": True}, {"key_columns": ["id"]}):
        clean_failure(run_bounded("csv_equals", path="out.csv", expected=expected, **options))


def test_non_finite_tolerances_are_a_spec_error(put: Put, run_bounded: Run) -> None:
    put("out.json", '{"total": 1}')

    for tolerance in (math.nan, math.inf):
        result = run_bounded("json_path_equals", path="out.json", json_path="$.total", expected=2, tolerance=tolerance)
        assert result.status == "failed" and "finite" in (result.error or "")


# -- booleans are not numbers ---------------------------------------------------------------------


def test_a_boolean_is_not_counted_as_a_number(put: Put, run_bounded: Run) -> None:
    put("out.json", '{"ok": true, "count": false}')
    put("out.xlsx", _xlsx([["flag"], [True], [True]]))

    clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.ok", expected=1))
    clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.count", expected=0))
    clean_failure(run_bounded("csv_equals", path="out.xlsx", expected=[{"flag": 1}, {"flag": 1}]))
    source = {"path": "out.xlsx", "csv_column": "flag", "aggregate": "sum"}
    clean_failure(run_bounded("cross_file_consistent", sources=[source], expected=2), "not a number")


# -- nesting --------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [101, 500, 990, 1000, 100_000])
def test_json_nested_too_deeply_fails_cleanly(put: Put, run_bounded: Run, depth: int) -> None:
    put("deep.json", '{"a":' * depth + "1" + "}" * depth)
    put("deep.jsonl", "[" * depth + "]" * depth + "\n")

    clean_failure(run_bounded("json_equals", path="deep.json", expected={"a": 1}), "deep")
    clean_failure(run_bounded("json_path_equals", path="deep.json", json_path="$.a", expected=1), "deep")
    clean_failure(run_bounded("row_count", path="deep.json", expected=1), "deep")
    if depth >= 1000:
        clean_failure(run_bounded("row_count", path="deep.jsonl", expected=1), "deep")
    sources = [{"path": "deep.json", "json_path": "$.a"}]
    clean_failure(run_bounded("cross_file_consistent", sources=sources, expected=1), "deep")


def test_json_within_the_nesting_limit_is_compared(put: Put, run_bounded: Run) -> None:
    document: Any = 1
    for _ in range(99):
        document = {"a": document}
    put("deep.json", json.dumps(document))

    assert run_bounded("json_equals", path="deep.json", expected=document).passed
    result = run_bounded("json_path_equals", path="deep.json", json_path="$.a", expected=document["a"])
    assert result.passed
    json.dumps(result.evidence)


def test_a_lone_surrogate_in_json_fails_and_never_reaches_the_evidence(put: Put, run_bounded: Run) -> None:
    put("out.json", '{"name": "\\ud800", "total": 1}')

    result = run_bounded("json_path_equals", path="out.json", json_path="$.total", expected=1)
    clean_failure(result, "surrogate")
    json.dumps(result.evidence, ensure_ascii=False).encode("utf-8")


# -- wrong types ----------------------------------------------------------------------------------


def test_wrong_shapes_fail_cleanly(put: Put, run_bounded: Run) -> None:
    put("list.json", "[1, 2, 3]")
    put("text.json", '"just a string"')
    put("words.csv", "amount\nabc\n")

    clean_failure(run_bounded("json_path_equals", path="list.json", json_path="$.total", expected=6), "0 of 1")
    clean_failure(run_bounded("json_equals", path="list.json", expected={"total": 6}))
    clean_failure(run_bounded("json_equals", path="text.json", expected=[1]))
    clean_failure(run_bounded("row_count", path="text.json", expected=1), "not one list or object")
    source = {"path": "words.csv", "csv_column": "amount", "aggregate": "sum"}
    clean_failure(run_bounded("cross_file_consistent", sources=[source], expected=0), "not a number")
    clean_failure(run_bounded("csv_equals", path="list.json", expected=[{"a": 1}]))


def test_text_where_a_number_is_expected_is_not_equal(put: Put, run_bounded: Run) -> None:
    put("out.json", '{"total": "[81]", "other": [81]}')

    clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.total", expected=81))
    clean_failure(run_bounded("json_path_equals", path="out.json", json_path="$.other", expected=81))


# -- bytes that are not text ----------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"\xff\xfe total 81", b"total\n\xed\xa0\x80\n", bytes(range(256)) * 4])
def test_bytes_that_are_not_utf8_fail_cleanly(put: Put, run_bounded: Run, data: bytes) -> None:
    put("out.txt", data)
    put("out.csv", data)
    put("out.json", data)

    clean_failure(run_bounded("text_contains", path="out.txt", contains="total"))
    clean_failure(run_bounded("text_matches", path="out.txt", pattern="total"))
    clean_failure(run_bounded("csv_equals", path="out.csv", expected=[{"total": 81}]))
    clean_failure(run_bounded("json_equals", path="out.json", expected={"total": 81}))
    clean_failure(run_bounded("row_count", path="out.txt", expected=1))


# -- huge files -----------------------------------------------------------------------------------


def _sparse(path: Path, size: int = SPARSE) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.truncate(size)


@pytest.mark.parametrize("name", ["out.txt", "out.csv", "out.json", "out.xlsx", "out.db"])
def test_a_huge_file_is_refused_unread_with_the_cap_in_evidence(ws: Path, run_bounded: Run, name: str) -> None:
    _sparse(ws / name)
    specs: list[tuple[str, dict[str, Any]]] = [
        ("text_contains", {"contains": "x"}),
        ("row_count", {"expected": 1}),
        ("csv_equals", {"expected": [{"a": 1}]}),
        ("json_equals", {"expected": {}}),
        ("sql_query", {"query": "SELECT 1", "expected": 1, "engine": "sqlite"}),
    ]
    for check, params in specs:
        result = run_bounded(check, path=name, **params)
        clean_failure(result, str(SPARSE), "more than this check reads")
        assert result.evidence["size"] == SPARSE and result.evidence["max_bytes"] > 0


def test_a_huge_file_counts_as_changed_unread(ws: Path, run_bounded: Run) -> None:
    _sparse(ws / "input.bin")

    result = run_bounded("file_unchanged", path="input.bin", sha256="0" * 64)
    clean_failure(result, "changed")
    assert "more than this check reads" in result.evidence["compared"][0]["problem"]
    assert result.evidence["max_bytes"] == 1 << 30


def test_no_max_bytes_reads_a_huge_file_into_memory(ws: Path, run_bounded: Run) -> None:
    _sparse(ws / "out.json")
    _sparse(ws / "out.db")

    for check, params in [
        ("json_equals", {"path": "out.json", "expected": {}}),
        ("file_unchanged", {"path": "out.json", "sha256": "0" * 64}),
        ("sql_query", {"path": "out.db", "query": "SELECT 1", "expected": 1, "engine": "sqlite"}),
    ]:
        result = run_bounded(check, max_bytes=10**30, **params)
        assert result.status == "failed" and "more than this check reads" in json.dumps(result.evidence), check


def test_the_cap_is_the_max_bytes_param(put: Put, run_bounded: Run) -> None:
    put("out.txt", "total: 81\n")

    assert run_bounded("text_contains", path="out.txt", contains="81", max_bytes=10).passed
    result = run_bounded("text_contains", path="out.txt", contains="81", max_bytes=9)
    clean_failure(result, "more than this check reads (9)")
    assert run_bounded("text_contains", path="out.txt", contains="81", max_bytes=10**30).passed
    assert DEFAULT_MAX_BYTES == 64 << 20


# -- links ----------------------------------------------------------------------------------------

PASSING: dict[str, tuple[str, dict[str, Any]]] = {
    "file_exists": ("out.csv", {"path": "out.csv"}),
    "file_unchanged": ("out.csv", {"path": "out.csv", "sha256": ""}),
    "text_contains": ("out.csv", {"path": "out.csv", "contains": "total"}),
    "text_matches": ("out.csv", {"path": "out.csv", "pattern": r"\d+"}),
    "csv_equals": ("out.csv", {"path": "out.csv", "expected": [{"total": 81}]}),
    "json_equals": ("out.json", {"path": "out.json", "expected": {"total": 81}}),
    "json_path_equals": ("out.json", {"path": "out.json", "json_path": "$.total", "expected": 81}),
    "row_count": ("out.csv", {"path": "out.csv", "expected": 1}),
    "sql_query": ("out.db", {"path": "out.db", "query": "SELECT sum(v) FROM t", "expected": 81}),
    "cross_file_consistent": ("out.csv", {"sources": [{"path": "out.csv", "csv_column": "total"}], "expected": 81}),
}
"""Per check: the file it reads and a spec that passes when that file is the real deliverable."""
NOT_READING = {"file_absent": "passes when nothing is there", "python": "runs the rubric's own code"}


def _deliverables(directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "out.csv").write_text("total\n81\n")
    (directory / "out.json").write_text('{"total": 81}')
    _sqlite(directory / "out.db", [(81,)])


def _spec(directory: Path, name: str) -> tuple[str, dict[str, Any]]:
    target, params = PASSING[name]
    if name == "file_unchanged":
        import hashlib

        params = {**params, "sha256": hashlib.sha256((directory / target).read_bytes()).hexdigest()}
    return target, params


def test_every_reading_check_has_a_link_case() -> None:
    assert sorted(REGISTRY) == sorted([*PASSING, *NOT_READING])


@pytest.mark.parametrize("name", sorted(PASSING))
def test_a_link_out_of_the_workspace_is_never_followed(ws: Path, tmp_path: Path, run_bounded: Run, name: str) -> None:
    outside = tmp_path / "outside"
    _deliverables(outside)
    _deliverables(ws / "real")
    target, params = _spec(outside, name)
    (ws / target).symlink_to(ws / "real" / target)
    assert run_bounded(name, **params).passed, "a link inside the workspace is followed"

    (ws / target).unlink()
    (ws / target).symlink_to(outside / target)
    result = run_bounded(name, **params)
    assert result.status == "failed" and result.error is None
    assert "outside the workspace" in json.dumps(result.evidence, ensure_ascii=False) or name == "file_exists"

    (ws / target).unlink()
    (ws / "linked").symlink_to(outside, target_is_directory=True)
    moved = {**params, "path": f"linked/{target}"} if "path" in params else params
    if name == "cross_file_consistent":
        moved = {**params, "sources": [{**params["sources"][0], "path": f"linked/{target}"}]}
    assert run_bounded(name, **moved).status == "failed"


def test_links_that_loop_or_lead_nowhere_fail_cleanly(ws: Path, run_bounded: Run) -> None:
    (ws / "loop.csv").symlink_to(ws / "loop.csv")
    (ws / "broken.csv").symlink_to(ws / "nothing.csv")

    clean_failure(run_bounded("csv_equals", path="loop.csv", expected=[{"a": 1}]), "link")
    clean_failure(run_bounded("csv_equals", path="broken.csv", expected=[{"a": 1}]), "does not exist")
    assert run_bounded("file_exists", path="*.csv").status == "failed"
    assert run_bounded("file_absent", path="loop.csv").status == "failed"


# -- FIFOs, devices, directories ------------------------------------------------------------------


def _special(ws: Path, name: str, kind: str) -> None:
    path = ws / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
        except PermissionError:
            pytest.skip("creating a device file needs privileges")
    else:
        path.mkdir()


READERS: list[tuple[str, dict[str, Any]]] = [
    ("text_contains", {"contains": "x"}),
    ("text_matches", {"pattern": "x"}),
    ("csv_equals", {"expected": [{"a": 1}]}),
    ("json_equals", {"expected": {}}),
    ("json_path_equals", {"json_path": "$", "expected": {}}),
    ("row_count", {"min": 0}),
    ("sql_query", {"query": "SELECT 1", "expected": 1, "engine": "sqlite"}),
    ("file_unchanged", {"sha256": "0" * 64}),
]


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_special_files_are_never_opened(ws: Path, run_bounded: Run, kind: str) -> None:
    """Opening a FIFO blocks until a writer comes (forever, for a verifier); a device may act on
    open and read without end. Every check fails at once, naming what it found."""
    words = {"fifo": "a FIFO", "device": "a character device", "directory": "a directory"}[kind]
    for suffix in ("txt", "csv", "json", "xlsx", "db"):
        _special(ws, f"out.{suffix}", kind)
    os.symlink("out.csv", ws / "via-link.csv")

    for check, params in READERS:
        for path in ("out.txt", "out.csv", "out.json", "out.xlsx", "out.db", "via-link.csv"):
            result = run_bounded(check, path=path, **params)
            assert result.status == "failed" and result.error is None, (check, path, result.evidence)
            assert words in json.dumps(result.evidence), (check, path, result.evidence)
    source = {"path": "out.csv", "csv_column": "a"}
    clean_failure(run_bounded("cross_file_consistent", sources=[source], expected=1), words)
    assert not run_bounded("file_exists", path="out.csv").passed
    assert run_bounded("file_exists", path="out.csv", kind="any").passed
    inputs = judge_inputs(ws, ["out.txt", "*.csv", "."])
    assert all(not entry.get("text") for entry in inputs["files"])


# -- databases ------------------------------------------------------------------------------------


def test_garbage_databases_fail_cleanly(put: Put, run_bounded: Run) -> None:
    put("magic.db", b"SQLite format 3\x00" + b"\xa5" * 4000)
    put("fake.duckdb", b"\x00" * 8 + b"DUCK" + b"\xa5" * 4000)
    put("plain.db", "not a database at all")

    clean_failure(run_bounded("sql_query", path="magic.db", query="SELECT 1", expected=1), "magic.db")
    clean_failure(run_bounded("sql_query", path="fake.duckdb", query="SELECT 1", expected=1), "DuckDB")
    clean_failure(run_bounded("sql_query", path="plain.db", query="SELECT 1", expected=1), "neither")


def test_a_corrupt_duckdb_file_fails_cleanly(ws: Path, run_bounded: Run) -> None:
    with duckdb.connect(str(ws / "good.duckdb")) as db:
        db.execute("CREATE TABLE t AS SELECT 81 AS v")
    data = (ws / "good.duckdb").read_bytes()
    (ws / "bad.duckdb").write_bytes(data[:12288] + b"\xa5" * (len(data) - 12288))  # headers kept, blocks garbage

    assert run_bounded("sql_query", path="good.duckdb", query="SELECT v FROM t", expected=81).passed
    assert run_bounded("sql_query", path="bad.duckdb", query="SELECT v FROM t", expected=81).status == "failed"


def test_text_that_is_not_utf8_in_a_database_fails_cleanly(ws: Path, run_bounded: Run) -> None:
    with sqlite3.connect(ws / "out.db") as db:
        db.execute("CREATE TABLE t (v)")
        db.execute("INSERT INTO t VALUES (CAST(x'ff80fe' AS TEXT))")

    clean_failure(run_bounded("sql_query", path="out.db", query="SELECT v FROM t", expected="x"), "query failed")


def test_rows_still_in_the_write_ahead_log_are_read_and_nothing_is_written(ws: Path, run_bounded: Run) -> None:
    writer = _sqlite(ws / "out.db", [(40,), (41,)], wal=True)
    assert (ws / "out.db-wal").stat().st_size > 0
    before = {p.name: p.read_bytes() for p in ws.iterdir()}

    assert run_bounded("sql_query", path="out.db", query="SELECT sum(v) FROM t", expected=81).passed
    clean_failure(run_bounded("sql_query", path="out.db", query="DELETE FROM t", expected=[]), "readonly")
    assert {p.name: p.read_bytes() for p in ws.iterdir()} == before
    assert writer is not None
    writer.close()


@pytest.mark.parametrize("name", ["out.db", "out.duckdb"])
def test_a_long_query_yields_to_the_time_limit(ws: Path, run: Run, name: str) -> None:
    """The engine runs native code, where a pending signal waits; the query runs in a helper
    thread so the time limit still interrupts it (and the query is stopped)."""
    if name == "out.db":
        _sqlite(ws / name, [(1,)])
    else:
        with duckdb.connect(str(ws / name)) as db:
            db.execute("CREATE TABLE t AS SELECT 1 AS v")
    endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"

    with pytest.raises(CheckTimeout), time_limit(1):
        run("sql_query", path=name, query=endless, expected=1)
    assert run("sql_query", path=name, query="SELECT count(*) FROM t", expected=1).passed


def test_a_database_over_the_cap_fails_with_the_cap_in_evidence(ws: Path, run_bounded: Run) -> None:
    _sqlite(ws / "out.db", [(81,)])

    result = run_bounded("sql_query", path="out.db", query="SELECT 1", expected=1, max_bytes=100)
    clean_failure(result, "more than this check reads (100)")
    assert result.evidence["max_bytes"] == 100


# -- CSV ------------------------------------------------------------------------------------------


def test_a_field_longer_than_csvs_default_limit_is_read(put: Put, run_bounded: Run) -> None:
    field = "x" * 200_000
    put("out.csv", f"note,total\n{field},81\n")
    limit = csv.field_size_limit()

    assert run_bounded("csv_equals", path="out.csv", expected=[{"note": field, "total": 81}]).passed
    assert run_bounded("row_count", path="out.csv", expected=1).passed
    assert csv.field_size_limit() == limit


def test_a_wide_header_is_checked_in_linear_time(put: Put, run_bounded: Run) -> None:
    put("out.csv", ",".join(f"c{i}" for i in range(100_000)) + "\n" + ",".join("1" * 100_000) + "\n")

    clean_failure(run_bounded("csv_equals", path="out.csv", expected=[{"c0": 1}]), "difference")


# -- XLSX -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("data", [b"not a zip", b"PK\x03\x04" + b"\x00" * 60, b""])
def test_a_workbook_that_is_not_a_zip_fails_cleanly(put: Put, run_bounded: Run, data: bytes) -> None:
    put("out.xlsx", data)

    clean_failure(run_bounded("csv_equals", path="out.xlsx", expected=[{"a": 1}]), "not an XLSX workbook")
    clean_failure(run_bounded("row_count", path="out.xlsx", expected=0), "not an XLSX workbook")


def test_a_zip_bomb_is_refused_unpacked(put: Put, run_bounded: Run) -> None:
    buffer = io.BytesIO()
    block = b"\x00" * (1 << 20)
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as member,
    ):
        for _ in range((XLSX_MAX_UNPACKED >> 20) + 1):
            member.write(block)
    assert len(buffer.getvalue()) < 2 << 20
    put("out.xlsx", buffer.getvalue())

    result = run_bounded("csv_equals", path="out.xlsx", expected=[{"a": 1}])
    clean_failure(result, "would unpack to")
    assert result.evidence["max_unpacked_bytes"] == XLSX_MAX_UNPACKED


@pytest.mark.parametrize(
    "sheet",
    [
        '<dimension ref="A1:XFD1048576"/><sheetData>'
        '<row r="999999999"><c r="A999999999"><v>1</v></c></row></sheetData>',
        "<sheetData>"
        + "".join(f'<row r="{n}"><c r="XFD{n}"><v>1</v></c></row>' for n in range(1, 400))
        + "</sheetData>",
    ],
    ids=["a row claimed a billion rows down", "rows claiming 16384 columns each"],
)
def test_a_workbook_claiming_millions_of_cells_is_refused(put: Put, run_bounded: Run, sheet: str) -> None:
    put("out.xlsx", _with_sheet(_xlsx([["a"]]), sheet))

    clean_failure(run_bounded("csv_equals", path="out.xlsx", expected=[{"a": 1}]), "more than this check reads")


def test_a_workbook_with_a_lying_dimension_is_read_by_its_content(put: Put, run_bounded: Run) -> None:
    sheet = '<dimension ref="A1:XFD1048576"/><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>total</t></is></c>'
    sheet += '</row><row r="2"><c r="A2"><v>81</v></c></row></sheetData>'
    put("out.xlsx", _with_sheet(_xlsx([["total"]]), sheet))

    assert run_bounded("csv_equals", path="out.xlsx", expected=[{"total": 81}]).passed
    assert run_bounded("row_count", path="out.xlsx", expected=1).passed


def test_an_overflowing_workbook_cell_is_not_equal(put: Put, run_bounded: Run) -> None:
    put("out.xlsx", _xlsx([["total"], [math.inf]]))

    clean_failure(run_bounded("csv_equals", path="out.xlsx", expected=[{"total": 1e308}], relative_tolerance=1.0))


# -- the python check ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "def check(workspace, args):\n    raise SystemExit(0)\n",
        "import sys\nsys.exit(0)\n",
        "def check(workspace, args):\n    return (True, 'not a mapping')\n",
        "def check(workspace, args):\n"
        "    deep = 1\n"
        "    for _ in range(5000):\n        deep = [deep]\n"
        "    return (True, {'deep': deep, 1: 10**5000, 'text': '\\ud800'})\n",
        "class Opaque:\n    def __repr__(self):\n        raise ValueError('no repr')\n\n"
        "def check(workspace, args):\n    return (False, {'object': Opaque()})\n",
    ],
)
def test_a_python_check_cannot_end_or_break_the_verifier(run_bounded: Run, source: str) -> None:
    result = run_bounded("python", source=source)

    assert result.status in ("passed", "failed") and (result.evidence.get("summary") or result.error)
    if "exit" in source:
        assert result.status == "failed"
    json.dumps(result.evidence, ensure_ascii=False).encode("utf-8")


# -- the reward -----------------------------------------------------------------------------------


@pytest.fixture
def kit(ws: Path) -> Iterator[dict[str, Any]]:
    (ws / "report.md").write_text("Total: 1234.5\n")
    yield {
        "items": [
            {
                "id": "report",
                "weight": 0.73,
                "method": "deterministic",
                "check": {"check": "text_contains", "params": {"path": "report.md", "contains": "Total"}},
            },
            {
                "id": "total",
                "weight": 0.27,
                "method": "deterministic",
                "check": {
                    "check": "json_path_equals",
                    "params": {"path": "summary.json", "json_path": "$.total", "expected": 1234.5},
                },
            },
        ]
    }


@pytest.mark.parametrize("written", ["9999", str(HUGE), TOO_LONG, "NaN", "Infinity", '{"a":' * 2000 + "1" + "}" * 2000])
def test_a_hostile_total_scores_like_a_wrong_one(ws: Path, tmp_path: Path, kit: dict[str, Any], written: str) -> None:
    """The issue's attack: writing a value that made the check raise instead of a wrong total took
    the item out of the reward (0.73 → 1.0). Every such value now fails the item like a wrong total."""
    (ws / "summary.json").write_text(f'{{"total": {written}}}')

    results, _ = verify(kit, ws, tmp_path / "tests")

    total = next(item for item in results["items"] if item["id"] == "total")
    assert total["status"] == "failed" and total["q"] == 0.0 and total["error"] is None, total
    assert results["reward"] == pytest.approx(0.73)

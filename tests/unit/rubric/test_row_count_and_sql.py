"""row_count over each format, and sql_query on SQLite and DuckDB files opened read-only."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import duckdb
from rubric_helpers import Run


def test_rows_of_each_format(put, run: Run) -> None:
    put("t.csv", "a,b\n1,2\n3,4\n\n")
    put("t.tsv", "a\tb\n1\t2\n")
    put("t.json", json.dumps({"items": [1, 2, 3]}))
    put("a.json", json.dumps([1, 2]))
    put("t.jsonl", '{"a": 1}\n{"a": 2}\n\n')
    put("t.txt", "one\n\ntwo\nthree\n")

    assert run("row_count", path="t.csv", expected=2).passed
    assert run("row_count", path="t.tsv", expected=1).passed
    assert run("row_count", path="t.json", json_path="$.items", expected=3).passed
    assert run("row_count", path="a.json", expected=2).passed
    assert run("row_count", path="t.jsonl", expected=2).passed
    assert run("row_count", path="t.txt", min=3, max=3).passed
    assert run("row_count", path="t.txt", format="csv", expected=2).passed


def test_a_wrong_count_names_what_was_counted(put, run: Run) -> None:
    put("t.csv", "a\n1\n")

    result = run("row_count", path="t.csv", expected=2)

    assert not result.passed
    assert result.evidence["summary"] == "1 record(s), wanted = 2"
    assert result.evidence["compared"]["counted"] == "data rows of t.csv (after the header)"


def test_row_count_failures_and_spec_errors(put, run: Run) -> None:
    put("t.jsonl", '{"a": 1}\nnot json\n')
    put("t.json", json.dumps({"a": 1}))

    assert run("row_count", path="t.jsonl", expected=2).status == "failed"
    assert run("row_count", path="t.json", json_path="$.a", expected=1).status == "failed"
    assert run("row_count", path="t.json").error is not None
    assert run("row_count", path="t.json", expected=1, format="parquet").error is not None


def _sqlite(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE revenue (region TEXT, revenue REAL)")
        db.executemany("INSERT INTO revenue VALUES (?, ?)", [("east", 11.0), ("north", 27.5), ("south", 42.5)])
    db.close()


def test_a_scalar_answer(ws: Path, run: Run) -> None:
    _sqlite(ws / "out" / "sales.db")

    result = run("sql_query", path="out/sales.db", query="SELECT sum(revenue) FROM revenue", expected=81)

    assert result.passed
    assert result.evidence["compared"]["database"] == "out/sales.db (sqlite)"
    assert result.evidence["compared"]["actual"] == [[81.0]]


def test_rows_in_order_or_not(ws: Path, run: Run) -> None:
    _sqlite(ws / "sales.db")
    rows = [["south", 42.5], ["north", 27.5], ["east", 11]]
    query = "SELECT region, revenue FROM revenue"

    assert not run("sql_query", path="sales.db", query=query, expected=rows).passed
    assert run("sql_query", path="sales.db", query=query, expected=rows, ignore_row_order=True).passed
    assert run("sql_query", path="sales.db", query=query + " ORDER BY revenue DESC", expected=rows).passed
    assert run(
        "sql_query", path="sales.db", query="SELECT region FROM revenue ORDER BY 1", expected=["east", "north", "south"]
    ).passed


def test_the_database_is_never_changed(ws: Path, run: Run) -> None:
    _sqlite(ws / "sales.db")
    before = (ws / "sales.db").read_bytes()

    result = run("sql_query", path="sales.db", query="DELETE FROM revenue", expected=[])

    assert result.status == "failed" and "readonly" in result.evidence["summary"]
    assert (ws / "sales.db").read_bytes() == before


def test_a_bad_query_or_a_non_database_fails(ws: Path, put, run: Run) -> None:
    _sqlite(ws / "sales.db")
    put("fake.db", "not a database")

    assert run("sql_query", path="sales.db", query="SELECT * FROM missing", expected=1).status == "failed"
    assert run("sql_query", path="fake.db", query="SELECT 1", expected=1).status == "failed"
    assert run("sql_query", path="absent.db", query="SELECT 1", expected=1).status == "failed"
    assert run("sql_query", path="sales.db", query="SELECT 1", expected=1, engine="oracle").error is not None


def test_a_duckdb_file(ws: Path, run: Run) -> None:
    with duckdb.connect(str(ws / "sales.duckdb")) as db:
        db.execute("CREATE TABLE revenue AS SELECT * FROM (VALUES ('east', 11.0), ('south', 42.5)) t(region, revenue)")

    result = run(
        "sql_query", path="sales.duckdb", query="SELECT count(*), sum(revenue) FROM revenue", expected=[[2, 53.5]]
    )

    assert result.passed, result.evidence
    assert result.evidence["compared"]["database"] == "sales.duckdb (duckdb)"

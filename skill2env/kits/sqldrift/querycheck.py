"""The rubric's check that a produced SQL query computes its figures from the database.

The verifier runs this file as the inline source of a `python` check (standard library only):
`check(workspace, args)` with args

* `path`: the query file (one SELECT statement);
* `cases`: databases the verifier holds, each `{"db": <zlib + base64 SQL script>, "rows": [[key, n, x], ...]}`
  — the workspace's database as it was handed out, and a copy holding other orders that the workspace never
  showed, so a query of literal figures passes at most the first;
* `columns`: the result's column names, in order (key column first);
* `keys`: the keys whose rows must match (a key with no expected row must be absent); none: every row;
* `tolerance`: for the last column.

Each case's script is built into a private in-memory database; the query runs there read-only, under an
authorizer that allows reading only (no ATTACH, no PRAGMA, no writes), with a step budget.
"""

from __future__ import annotations

import base64
import math
import sqlite3
import zlib
from pathlib import Path
from typing import Any

MAX_BYTES = 256 << 10
MAX_ROWS = 10_000
STEP_BUDGET = 200_000
"""Progress-handler calls (every 1,000 virtual-machine steps) before a query is cut off."""
ALLOWED = {
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_FUNCTION,
    getattr(sqlite3, "SQLITE_RECURSIVE", 33),
}
SHOWN = 10


def _query(workspace: Path, relative: str) -> str:
    path = workspace / relative
    if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_BYTES:
        raise ValueError(f"{relative} is not a regular file of at most {MAX_BYTES} bytes")
    text = path.read_bytes()[: MAX_BYTES + 1].decode("utf-8-sig")
    query = text.strip().rstrip(";").strip()
    if not query:
        raise ValueError(f"{relative} is empty")
    return query


def _authorize(action: int, *_: Any) -> int:
    return sqlite3.SQLITE_OK if action in ALLOWED else sqlite3.SQLITE_DENY


def _run(script: str, query: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    connection = sqlite3.connect(":memory:")
    try:
        connection.executescript(script)
        connection.execute("PRAGMA query_only = ON")
        steps = [0]

        def progress() -> int:
            steps[0] += 1
            return 1 if steps[0] > STEP_BUDGET else 0

        connection.set_progress_handler(progress, 1000)
        connection.set_authorizer(_authorize)
        cursor = connection.execute(query)
        columns = [str(d[0]).strip().lower() for d in cursor.description or ()]
        return columns, cursor.fetchmany(MAX_ROWS + 1)
    finally:
        connection.close()


def _same(want: list[Any], got: list[Any], tolerance: float) -> bool:
    if len(got) < len(want):
        return False
    for n, value in enumerate(want):
        other = got[n]
        if isinstance(value, str):
            if str(other).strip() != value:
                return False
            continue
        try:
            number = float(other)
        except (TypeError, ValueError):
            return False
        limit = tolerance if n == len(want) - 1 else 1e-9
        if not math.isfinite(number) or abs(number - float(value)) > limit:
            return False
    return True


def _answer(script: str, query: str) -> dict[str, Any]:
    """The query's columns and rows on the database of `script`, or why it failed."""
    try:
        columns, rows = _run(script, query)
    except sqlite3.Error as exc:
        return {"failed": str(exc)}
    return {"columns": columns, "rows": [list(row) for row in rows]}


def _remembered(inputs: list[bytes], compute: Any) -> dict[str, Any]:
    """`compute()` through the check library's memo where there is one (the verifier's batch mode keeps
    answers across items and candidate workspaces, keyed by the database script and the query)."""
    keep = globals().get("remembered")  # given to inline checks by the verifier's python check
    return compute() if keep is None else keep("sql-answer", inputs, compute)


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    query = _query(workspace, str(args["path"]))
    wanted_columns = [str(c).lower() for c in args["columns"]]
    keys = args.get("keys")
    tolerance = float(args.get("tolerance", 0.01))
    problems: list[str] = []
    for number, case in enumerate(args["cases"], start=1):
        script = zlib.decompress(base64.b64decode(case["db"])).decode("utf-8")
        ran = _remembered([script.encode(), query.encode()], lambda script=script: _answer(script, query))
        if "failed" in ran:
            problems.append(f"database {number}: the query failed: {ran['failed']}")
            continue
        columns, rows = ran["columns"], ran["rows"]
        if columns[: len(wanted_columns)] != wanted_columns:
            problems.append(f"database {number}: columns {columns[:SHOWN]}, not {wanted_columns}")
            continue
        if len(rows) > MAX_ROWS:
            problems.append(f"database {number}: more than {MAX_ROWS} rows")
            continue
        got: dict[str, list[Any]] = {}
        for row in rows:
            key = str(row[0]).strip()
            if key in got:
                problems.append(f"database {number}: two rows for {key}")
            got[key] = row
        want = {str(row[0]): row for row in case["rows"]}
        scope = sorted(set(want) | set(got)) if keys is None else sorted(str(k) for k in keys)
        for key in scope:
            expected, actual = want.get(key), got.get(key)
            if expected is None and actual is not None:
                problems.append(f"database {number}: a row for {key}, which has none")
            elif expected is not None and actual is None:
                problems.append(f"database {number}: no row for {key}")
            elif expected is not None and actual is not None and not _same(list(expected), actual, tolerance):
                problems.append(f"database {number}: the row for {key} is {list(actual)[:4]}")
    return not problems, {
        "summary": "; ".join(problems[:3])
        or f"the query returns the expected rows on all {len(args['cases'])} databases",
        "problems": problems[:SHOWN],
    }

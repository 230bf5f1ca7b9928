"""Every registered check against hostile workspaces: whatever the agent left behind, a check
returns `passed` or `failed` with evidence, within its time limit, and never raises.

Workspaces hold huge integers, NaN / Infinity, JSON nested past the recursion limit, wrong
types, invalid UTF-8, binary, sparse files of many gigabytes, links out of the workspace and
loops, FIFOs and device files, directories where files are expected, garbage and valid
SQLite / DuckDB files, CSVs with enormous fields, XLSX files that are not zips, zip bombs or
claim a million rows. Params are well-formed but hostile too (NaN in `expected`, extreme
tolerances and caps).

The other direction: a value no number (NaN, ±inf, an overflowing literal, a boolean, text) or a
number floats would confuse with the expected one (2**53 + 1) never passes a comparing check.

A registered check without a strategy here fails `test_every_registered_check_has_a_hostile_strategy`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import math
import os
import shutil
import sqlite3
import stat
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skill2env.rubric.checks import REGISTRY, CheckResult, CheckTimeout, judge_inputs, run_check
from skill2env.rubric.verify_main import time_limit

EXAMPLES = 500
CHECK_SECONDS = 10.0
"""Each example runs under the verifier's own time limit; running past it fails the test. The
costliest hostile input (a sheet claiming a row a billion rows down) takes under 2 s unloaded."""
HOSTILE = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

NAMES = (
    "data.csv",
    "data.tsv",
    "data.json",
    "data.jsonl",
    "data.txt",
    "data.xlsx",
    "data.db",
    "data.db-wal",
    "data.duckdb",
    "report.md",
    "sub/data.csv",
    "sub/deeper/data.json",
)
TABLES = ("data.csv", "data.tsv", "data.xlsx", "sub/data.csv", "data.txt", "data.json")
GLOBS = ("*", "*.csv", "**/*", "**/*.json", "sub/*", "data.*", "sub/**", "[ds]*/*.csv", "?ata.txt")
ODD_FILE_SHA256 = hashlib.sha256(b"a,b\n1,2\n").hexdigest()
SPARSE_BYTES = 1 << 36
"""A file claiming 64 GiB that occupies no disk (truncate, never written)."""


# -- hostile values -------------------------------------------------------------------------------

BIG_DIGITS = "__BIG_DIGITS__"
"""Stands for an integer literal of 5000 digits in JSON text (past `int()`'s 4300-digit limit)."""

big_integers = st.sampled_from([2**53 + 1, 2**63, -(2**63) - 1, 10**308, 10**309, 10**400, -(10**400), int("9" * 4299)])
numeric_strings = st.sampled_from(
    [
        "1e999",
        "-1e999",
        "1e-999",
        "NaN",
        "nan",
        "-inf",
        "Infinity",
        "1,234.5",
        "(5)",
        "$1e999",
        "7%",
        "9" * 400,
        "1" * 5000,
        "0x10",
        "١٢٣",
        "\u00a05",
        "",
        " ",
        "true",
        "2025-01-03",
        "01/03/2025",
        "\x00",
    ]
)
lone_surrogate = st.just("\ud800")
"""In a workspace's JSON (escaped as \\ud800): decodes to a str no UTF-8 writer accepts."""
ordinary_scalars = st.one_of(
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(max_size=12),
)
hostile_scalars = st.one_of(
    big_integers,
    st.sampled_from([math.nan, math.inf, -math.inf, 1.7976931348623157e308, 5e-324]),
    numeric_strings,
    lone_surrogate,
    st.just(BIG_DIGITS),
)
scalars = st.one_of(hostile_scalars, ordinary_scalars)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(["a", "b", "total", "", "a b"]), inner, max_size=4)
    ),
    max_leaves=8,
)
json_documents = st.one_of(
    json_values, st.fixed_dictionaries({"total": st.one_of(hostile_scalars, scalars)}, optional={"a": json_values})
)
"""Python values as a workspace's JSON may hold them (and a few it cannot: the BIG_DIGITS marker)."""
param_values = st.recursive(
    st.one_of(
        st.integers(min_value=-(10**20), max_value=10**20),
        big_integers,
        st.floats(allow_nan=True, allow_infinity=True),
        st.booleans(),
        st.none(),
        st.text(max_size=12),
        numeric_strings,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=3)
    ),
    max_leaves=8,
)
"""Values a rubric may give as `expected` (NaN and infinities included)."""


def json_text(value: Any) -> str:
    return json.dumps(value).replace(json.dumps(BIG_DIGITS), "1" * 5000)


@st.composite
def deep_json(draw: st.DrawFn) -> str:
    depth = draw(st.sampled_from([99, 100, 101, 400, 990, 1000, 1100, 50_000]))
    if draw(st.booleans()):
        return "[" * depth + "1" + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


@st.composite
def csv_text(draw: st.DrawFn) -> str:
    delimiter = draw(st.sampled_from([",", "\t", ";"]))
    width = draw(st.integers(min_value=0, max_value=4))
    header = draw(
        st.lists(st.sampled_from(["a", "b", "total", "v", "id", " a ", "A", ""]), min_size=width, max_size=width)
    )
    rows = draw(st.lists(st.lists(scalars, max_size=width + 1), max_size=5))
    lines = [delimiter.join(header)]
    lines += [delimiter.join(json_text(c).strip('"') if not isinstance(c, str) else c for c in row) for row in rows]
    text = "\n".join(lines)
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        text += "\n" + "x" * draw(st.integers(min_value=131_000, max_value=140_000)) + delimiter + "1"
    if draw(st.booleans()):
        text = text.replace("a", '"a', 1)  # an unbalanced quote
    return text


SHEET = "xl/worksheets/sheet1.xml"
SHEET_OPEN = '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'


@functools.cache
def _plain_workbook() -> bytes:
    import openpyxl

    buffer = io.BytesIO()
    openpyxl.Workbook().save(buffer)
    return buffer.getvalue()


def xlsx_from_sheet(sheet_xml: str) -> bytes:
    """A workbook whose first worksheet is `sheet_xml` (the body of <worksheet>), as written."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_plain_workbook())) as source, zipfile.ZipFile(buffer, "w") as target:
        for member in source.infolist():
            data = f"{SHEET_OPEN}{sheet_xml}</worksheet>".encode() if member.filename == SHEET else source.read(member)
            target.writestr(member.filename, data, zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def _row(number: int, cells: str) -> str:
    return f'<row r="{number}">{cells}</row>'


def _declaring(data: bytes, unpacked: int) -> bytes:
    """`data` (a zip) with every member's central-directory size set to `unpacked` bytes."""
    patched = bytearray(data)
    at = patched.find(b"PK\x01\x02")
    while at >= 0:
        patched[at + 24 : at + 28] = unpacked.to_bytes(4, "little")
        at = patched.find(b"PK\x01\x02", at + 4)
    return bytes(patched)


@functools.cache
def blobs() -> dict[str, bytes]:
    """Hostile binary deliverables, built once."""
    header = _row(1, '<c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="B1" t="inlineStr"><is><t>b</t></is></c>')
    made = {
        "xlsx_values": xlsx_from_sheet(
            "<sheetData>"
            + header
            + _row(2, '<c r="A2"><v>1e999</v></c><c r="B2" t="b"><v>1</v></c>')
            + _row(3, '<c r="A3"><v>9007199254740993</v></c><c r="B3" t="e"><v>#DIV/0!</v></c>')
            + "</sheetData>"
        ),
        "xlsx_big_integer": xlsx_from_sheet(
            "<sheetData>" + header + _row(2, f'<c r="A2"><v>{"1" * 5000}</v></c>') + "</sheetData>"
        ),
        "xlsx_far_row": xlsx_from_sheet(
            '<dimension ref="A1:XFD1048576"/><sheetData>'
            + header
            + _row(999_999_999, '<c r="XFD999999999"><v>1</v></c>')
            + "</sheetData>"
        ),
        "xlsx_wide_rows": xlsx_from_sheet(
            "<sheetData>" + "".join(_row(n, f'<c r="XFD{n}"><v>1</v></c>') for n in range(1, 1400)) + "</sheetData>"
        ),
        "xlsx_bad_xml": xlsx_from_sheet("<sheetData><row r='x'><c r='A1'><v>1</v></row>"),
        "not_a_zip": b"PK\x03\x04" + b"\x00" * 40,
        "empty_zip": _zip_of({}),
        "zip_of_junk": _zip_of({"xl/workbook.xml": b"\xff\xfe not xml"}),
    }
    made["zip_bomb"] = _declaring(made["xlsx_values"], 0xFFFF_FFF0)
    made.update(_databases())
    return made


def _zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _databases() -> dict[str, bytes]:
    made: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch, "ok.db")
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE t (v)")
            db.executemany(
                "INSERT INTO t VALUES (?)",
                [(1e308,), (math.inf,), (-(2**63),), ("1e999",), (b"\xff\x00",), (None,), ("x" * 1000,)],
            )
        made["sqlite_values"] = path.read_bytes()
        path = Path(scratch, "bad_text.db")
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE t (v)")
            db.execute("INSERT INTO t VALUES (CAST(x'ff80fe' AS TEXT))")
        made["sqlite_bad_text"] = path.read_bytes()
        path = Path(scratch, "wal.db")
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA wal_autocheckpoint=0")
        db.execute("CREATE TABLE t (v)")
        db.execute("INSERT INTO t VALUES (42)")
        db.commit()
        made["sqlite_wal_main"] = path.read_bytes()
        made["sqlite_wal_log"] = Path(scratch, "wal.db-wal").read_bytes()
        db.close()
        try:
            import duckdb
        except ImportError:
            return made
        path = Path(scratch, "ok.duckdb")
        with duckdb.connect(str(path)) as duck:
            duck.execute("CREATE TABLE t (v DOUBLE, s VARCHAR, d DECIMAL(38, 2), h HUGEINT)")
            duck.execute("INSERT INTO t VALUES (1e308, 'a', 12.5, 170141183460469231731687303715884105727)")
            duck.execute("INSERT INTO t VALUES ('inf', NULL, NULL, -1), ('nan', '', 0, 0)")
        made["duckdb_values"] = path.read_bytes()
        corrupt = bytearray(made["duckdb_values"])
        corrupt[len(corrupt) // 2 : len(corrupt) // 2 + 64] = b"\xa5" * 64
        made["duckdb_corrupt"] = bytes(corrupt)
    return made


# -- hostile workspaces ---------------------------------------------------------------------------

Entry = tuple[str, str, Any]
"""(workspace-relative name, kind, payload): one thing to put into the workspace."""


PAYLOADS = ("binary", "invalid_utf8", "json", "deep_json", "jsonl", "csv", "blob", "sqlite_garbage", "duckdb_garbage")
SUITED = {
    ".json": ("json", "json", "json", "deep_json", "deep_json"),
    ".jsonl": ("jsonl", "jsonl", "jsonl", "deep_json"),
    ".csv": ("csv", "csv", "csv"),
    ".tsv": ("csv", "csv", "csv"),
    ".txt": ("csv", "json"),
    ".md": ("csv",),
    ".xlsx": ("xlsx", "xlsx", "xlsx"),
    ".db": ("database", "database", "sqlite_garbage"),
    ".duckdb": ("database", "database", "duckdb_garbage"),
}
"""Extra chances for the content a name's suffix promises: a check reading it gets past its first
test of the format and meets the hostile values inside."""


@st.composite
def payloads(draw: st.DrawFn, name: str, *, suited: bool = False) -> bytes:
    """Hostile bytes for a file called `name`; `suited`: of the format its suffix promises."""
    fitting = SUITED.get(Path(name).suffix, ())
    kind = draw(st.sampled_from(fitting if suited and fitting else PAYLOADS + fitting))
    if kind == "binary":
        return draw(st.binary(max_size=64))
    if kind == "invalid_utf8":
        return draw(st.sampled_from([b"\xff\xfe\xfd", b"a,b\n\xed\xa0\x80,1\n", b"\xc3\x28", b"\xef\xbb\xbf\x80"]))
    if kind == "json":
        return json_text(draw(json_documents)).encode()
    if kind == "deep_json":
        return draw(deep_json()).encode()
    if kind == "jsonl":
        return "\n".join(json_text(v) for v in draw(st.lists(json_documents, max_size=4))).encode()
    if kind == "csv":
        return draw(csv_text()).encode("utf-8", "surrogatepass")
    if kind in ("blob", "xlsx", "database"):
        wanted = {"blob": "", "xlsx": "xlsx", "database": "db"}[kind]
        return blobs()[draw(st.sampled_from(sorted(k for k in blobs() if wanted in k)))]
    if kind == "sqlite_garbage":
        return b"SQLite format 3\x00" + draw(st.binary(min_size=0, max_size=200))
    return b"\x00" * 8 + b"DUCK" + draw(st.binary(max_size=200))


SPECIAL = ("link_out", "link_out_dir", "link_in", "link_loop", "link_broken", "fifo", "dir", "sparse", "device")


@st.composite
def entries(draw: st.DrawFn, names: st.SearchStrategy[str]) -> Entry:
    name = draw(names)
    kind = draw(st.sampled_from(("file",) * len(SPECIAL) + SPECIAL))
    if kind == "file":
        return name, kind, draw(payloads(name))
    return name, kind, draw(st.sampled_from(NAMES))


@st.composite
def read_entry(draw: st.DrawFn, name: str) -> Entry:
    """What lies at a name the check reads: mostly a file of the promised format, hostile inside."""
    kind = draw(st.sampled_from(("file",) * 3 * len(SPECIAL) + SPECIAL))
    if kind == "file":
        return name, kind, draw(payloads(name, suited=draw(st.booleans())))
    return name, kind, draw(st.sampled_from(NAMES))


odd_names = st.sampled_from([b"\xff.csv", b"new\nline.csv", b"x" * 255, b" .csv", b"-", b"sub/\xfe\xff"])


class Workspace:
    """One directory reused by every example (cleared between them), and a file outside it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.path = root / "workspace"
        self.tests = root / "tests"
        self.outside = root / "outside"
        self.tests.mkdir(exist_ok=True)
        self.outside.mkdir(exist_ok=True)
        (self.outside / "secret.csv").write_text("a,b\n1,2\n")
        (self.tests / "expected.csv").write_text("a,b\n1,2\n")
        (self.tests / "check_module.py").write_text("def check(workspace, args):\n    return True\n")

    def fill(self, items: list[Entry], odd: list[bytes]) -> None:
        if self.path.exists():
            shutil.rmtree(self.path)
        self.path.mkdir()
        for name, kind, payload in items:
            self._put(name, kind, payload)
        for raw in odd:
            target = os.fsencode(self.path) + b"/" + raw
            try:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as handle:
                    handle.write(b"a,b\n1,2\n")
            except OSError:
                pass

    def _put(self, name: str, kind: str, payload: Any) -> None:
        path = self.path / name
        if os.path.lexists(path):
            return  # the first entry for a name wins
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "file":
            path.write_bytes(payload)
        elif kind == "link_out":
            path.symlink_to(self.outside / "secret.csv")
        elif kind == "link_out_dir":
            path.symlink_to(self.outside)
        elif kind == "link_in":
            path.symlink_to(self.path / payload)
        elif kind == "link_loop":
            path.symlink_to(path)
        elif kind == "link_broken":
            path.symlink_to(self.path / "nothing-here")
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "dir":
            path.mkdir()
        elif kind == "sparse":
            with path.open("wb") as handle:
                handle.truncate(SPARSE_BYTES)
        elif kind == "device":
            try:
                os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero: endless if read
            except (PermissionError, OSError):
                path.symlink_to("/dev/zero")


@pytest.fixture(scope="module")
def workspace() -> Iterator[Workspace]:
    memory = Path("/dev/shm")  # thousands of examples create and delete files: keep them off the disk
    where = str(memory) if memory.is_dir() and os.access(memory, os.W_OK) else None
    with tempfile.TemporaryDirectory(prefix="hostile_", dir=where) as root:
        yield Workspace(Path(root))


# -- hostile params, per check --------------------------------------------------------------------

paths = st.sampled_from(NAMES)
max_bytes = st.one_of(st.none(), st.sampled_from([0, 1, 100, 10_000, 1 << 20, 10**30, -1]))
tolerances = st.sampled_from([0.0, 0.0, 1e-9, 0.01, 0.5, 1.0, 1e308, math.nan, math.inf, -1.0])
normalize = st.lists(st.sampled_from(["case", "whitespace", "dates", "numbers"]), max_size=3, unique=True)


def optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict with any subset of `fields` (absent rather than None)."""
    return st.fixed_dictionaries({}, optional=fields)


comparison_params = optional(
    tolerance=tolerances, relative_tolerance=tolerances, normalize=normalize, numeric=st.booleans()
)


def merged(*parts: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    return st.tuples(*parts).map(lambda dicts: {k: v for d in dicts for k, v in d.items()})


def required(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(fields)


columns = st.lists(st.sampled_from(["a", "b", "total", "v", "id"]), min_size=1, max_size=3, unique=True)


@st.composite
def expected_tables(draw: st.DrawFn) -> dict[str, Any]:
    names = draw(columns)
    rows = draw(st.lists(st.lists(param_values, min_size=len(names), max_size=len(names)), max_size=4))
    form = draw(st.sampled_from(["table", "records", "csv", "file"]))
    if form == "table":
        return {"expected": {"columns": names, "rows": rows}}
    if form == "records":
        return {"expected": [dict(zip(names, row, strict=True)) for row in rows]}
    if form == "csv":
        return {"expected_csv": "\n".join([",".join(names)] + [",".join(str(c) for c in row) for row in rows])}
    return {"expected_file": "expected.csv"}


@st.composite
def csv_equals_params(draw: st.DrawFn) -> dict[str, Any]:
    params: dict[str, Any] = {"path": draw(st.sampled_from(TABLES)), **draw(expected_tables())}
    names = params["expected"]["columns"] if isinstance(params.get("expected"), dict) else ["a", "b"]
    params.update(
        draw(
            optional(
                key_columns=st.lists(st.sampled_from(names), max_size=2, unique=True),
                ignore_row_order=st.booleans(),
                ignore_column_order=st.booleans(),
                allow_extra_columns=st.booleans(),
                allow_extra_rows=st.booleans(),
                delimiter=st.sampled_from([",", "\t", ";"]),
                sheet=st.sampled_from(["Sheet1", "missing"]),
                max_bytes=max_bytes.filter(lambda v: v is not None),
            )
        )
    )
    params.update(draw(comparison_params))
    return params


json_paths = st.sampled_from(
    ["$", "$", "$.total", "$.total", "$.total", "$.a", "$[0]", "$[-1]", "$[*]", "$.*", "$['a b']", "$.a[*].b", "$[99]"]
)


@st.composite
def cross_file_params(draw: st.DrawFn) -> dict[str, Any]:
    def source() -> dict[str, Any]:
        kind = draw(st.sampled_from(["json_path", "csv_column", "regex", "count"]))
        if kind == "json_path":
            return {"path": draw(paths), "json_path": draw(json_paths)}
        if kind == "csv_column":
            found: dict[str, Any] = {
                "path": draw(st.sampled_from(TABLES)),
                "csv_column": draw(st.sampled_from(["a", "b", "total", "v"])),
                "aggregate": draw(st.sampled_from(["sum", "count", "distinct_count", "min", "max", "first", "mean"])),
            }
            if draw(st.booleans()):
                found["where"] = {draw(st.sampled_from(["a", "b"])): draw(param_values)}
            return found
        if kind == "regex":
            return {"path": draw(paths), "regex": draw(st.sampled_from([r"(\d+)", r"total: (\S+)", r"^(.*)$"]))}
        return {"path": draw(paths), "count": "rows"}

    params: dict[str, Any] = {"sources": [source() for _ in range(draw(st.integers(min_value=1, max_value=3)))]}
    if len(params["sources"]) < 2 or draw(st.booleans()):
        params["expected"] = draw(param_values)
    params.update(draw(comparison_params))
    return params


PYTHON_SOURCES = (
    "def check(workspace, args):\n"
    "    deep = 1\n"
    "    for _ in range(5000):\n        deep = [deep]\n"
    "    return (True, {'deep': deep})\n",
    "class Opaque:\n    def __repr__(self):\n        raise ValueError('no repr')\n\n"
    "def check(workspace, args):\n    return (False, {'object': Opaque(), 3: 10**5000, 'text': '\\ud800'})\n",
    "class Unprintable(Exception):\n    def __str__(self):\n        raise ValueError('no str')\n\n"
    "def check(workspace, args):\n    raise Unprintable()\n",
    # Functions a rubric might ship, run against the hostile workspace: they look, they parse,
    # they return odd verdicts, they fail in every way a function can.
    "def check(workspace, args):\n"
    "    path = workspace / args.get('path', 'data.json')\n"
    "    if not path.is_file() or path.is_symlink():\n        return False\n"
    "    import json\n    return json.loads(path.read_bytes()[:4096]) == args.get('expected')\n",
    "def check(workspace, args):\n    return sorted(p.name for p in workspace.iterdir())\n",
    "def check(workspace, args):\n    return (True, 'evidence that is not a mapping')\n",
    "def check(workspace, args):\n    return {'passed': True, 'evidence': ['not', 'a', 'mapping']}\n",
    "def check(workspace, args):\n    import sys\n    sys.exit(0)\n",
    "def check(workspace, args):\n    raise SystemExit('bye')\n",
    "def check(workspace, args):\n    return check(workspace, args)\n",
    "def check(workspace, args):\n    assert (workspace / 'data.csv').stat().st_size < 10\n    return True\n",
    "class R:\n    passed = True\n    evidence = 'x'\n    error = 3\n\ndef check(workspace, args):\n    return R()\n",
    "def check(workspace, args):\n    return float('nan')\n",
    "import sys\nsys.exit(3)\n",
    "def check(workspace, args):\n"
    "    return (True, {1: float('inf'), 'deep': [[[[[[[[[[[[1]]]]]]]]]]]], 'b': b'\\xff'})\n",
)

STRATEGIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "file_exists": merged(
        required(path=st.one_of(paths, st.sampled_from(GLOBS))),
        optional(
            kind=st.sampled_from(["file", "dir", "any"]),
            min_bytes=st.sampled_from([0, 1, SPARSE_BYTES, 10**30]),
            min_count=st.integers(min_value=0, max_value=3),
        ),
    ),
    "file_absent": required(path=st.one_of(paths, st.sampled_from(GLOBS))),
    "file_unchanged": st.one_of(
        merged(
            required(
                path=paths, sha256=st.sampled_from([hashlib.sha256(b"a,b\n1,2\n").hexdigest(), "0" * 64, "Z" * 64])
            ),
            optional(max_bytes=st.sampled_from([0, 100, 1 << 30, 10**30])),
        ),
        required(files=st.dictionaries(paths, st.just("0" * 64), min_size=1, max_size=3)),
    ),
    "text_contains": merged(
        required(path=paths, contains=st.lists(st.text(max_size=6), min_size=1, max_size=3)),
        optional(
            absent=st.lists(st.text(max_size=6), max_size=2),
            ignore_case=st.booleans(),
            normalize_whitespace=st.booleans(),
            max_bytes=max_bytes.filter(lambda v: v is not None),
        ),
    ),
    "text_matches": merged(
        required(path=paths, pattern=st.sampled_from([r"\d+", r"^total", r"a|b", r".*", r"[\s\S]{0,3}x", r""])),
        optional(
            flags=st.lists(st.sampled_from(["IGNORECASE", "MULTILINE", "DOTALL"]), max_size=2, unique=True),
            min_count=st.integers(min_value=0, max_value=3),
            max_count=st.integers(min_value=0, max_value=3),
            full_match=st.booleans(),
            max_bytes=max_bytes.filter(lambda v: v is not None),
        ),
    ),
    "csv_equals": csv_equals_params(),
    "json_equals": merged(
        required(path=paths),
        st.one_of(required(expected=param_values), st.just({"expected_file": "expected.csv"})),
        optional(
            ignore_list_order=st.booleans(),
            allow_extra_keys=st.booleans(),
            max_bytes=max_bytes.filter(lambda v: v is not None),
        ),
        comparison_params,
    ),
    "json_path_equals": merged(
        required(path=paths),
        st.one_of(
            required(json_path=json_paths, expected=param_values),
            required(values=st.dictionaries(json_paths, param_values, min_size=1, max_size=3)),
        ),
        optional(ignore_list_order=st.booleans(), allow_extra_keys=st.booleans()),
        comparison_params,
    ),
    "row_count": merged(
        required(path=paths),
        st.one_of(
            required(expected=st.integers(min_value=-1, max_value=10**30)),
            optional(min=st.integers(min_value=-1, max_value=5), max=st.integers(min_value=0, max_value=10)),
        ),
        optional(
            format=st.sampled_from(["csv", "tsv", "xlsx", "json", "jsonl", "lines"]),
            json_path=json_paths,
            delimiter=st.sampled_from([",", "\t"]),
            max_bytes=max_bytes.filter(lambda v: v is not None),
        ),
    ),
    "sql_query": merged(
        required(
            path=st.sampled_from(["data.db", "data.duckdb", "data.csv", "data.xlsx", "sub/data.csv"]),
            query=st.sampled_from(
                [
                    "SELECT 1",
                    "SELECT * FROM t",
                    "SELECT count(*) FROM t",
                    "SELECT v FROM t ORDER BY 1",
                    "SELECT sum(v) FROM t",
                    "SELECT name FROM sqlite_master",
                    "DELETE FROM t",
                    "SELECT 1; SELECT 2",
                ]
            ),
            expected=param_values,
        ),
        optional(
            engine=st.sampled_from(["auto", "sqlite", "duckdb"]),
            ignore_row_order=st.booleans(),
            max_bytes=st.sampled_from([0, 100, 1 << 20, 10**30, -5]),
        ),
        comparison_params,
    ),
    "cross_file_consistent": cross_file_params(),
    "python": merged(
        st.one_of(
            required(source=st.sampled_from(PYTHON_SOURCES)),
            st.just({"module": "check_module.py"}),
        ),
        optional(args=st.fixed_dictionaries({}, optional={"path": paths, "expected": param_values})),
    ),
}


def test_every_registered_check_has_a_hostile_strategy() -> None:
    assert sorted(REGISTRY) == sorted(STRATEGIES), "give every registered check a hostile strategy here"


# -- the properties -------------------------------------------------------------------------------


def workspaces(read: list[str] | None = None) -> st.SearchStrategy[tuple[list[Entry], list[bytes]]]:
    """Hostile workspaces: something at each name in `read` (the files the check reads), a few
    other entries, and files whose names are not UTF-8."""
    at_read = st.tuples(*(read_entry(name) for name in dict.fromkeys(read or []))).map(list)
    others = st.lists(entries(st.sampled_from(NAMES)), max_size=3)
    return st.tuples(st.tuples(at_read, others).map(lambda both: both[0] + both[1]), st.lists(odd_names, max_size=2))


def read_by(params: Any) -> list[str]:
    """The workspace names a check's params mention."""
    if isinstance(params, str):
        return [params] if params in NAMES else []
    if isinstance(params, dict):
        return [name for value in params.values() for name in read_by(value)]
    if isinstance(params, list):
        return [name for value in params for name in read_by(value)]
    return []


def run_bounded(check: Callable[[], CheckResult]) -> CheckResult:
    try:
        with time_limit(CHECK_SECONDS):
            return check()
    except CheckTimeout:
        pytest.fail(f"the check ran past {CHECK_SECONDS:g} s")


def assert_clean(result: CheckResult) -> None:
    """Passed or failed, with evidence saying why; never the catch-all for a check's own exception;
    evidence the verifier can write (JSON text that encodes as UTF-8)."""
    assert isinstance(result, CheckResult)
    assert result.status in ("passed", "failed")
    assert result.evidence.get("summary") or result.error, result.evidence
    assert not (result.error or "").startswith("the check raised"), (result.error, result.evidence)
    json.dumps(result.evidence, ensure_ascii=False, default=repr).encode("utf-8")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_hostile_workspace_never_breaks_a_check(workspace: Workspace, name: str) -> None:
    params_strategy = STRATEGIES.get(name)
    if params_strategy is None:
        pytest.fail(f"no hostile strategy for the registered check {name!r}")

    @HOSTILE
    @given(params=params_strategy, data=st.data())
    def example(params: dict[str, Any], data: st.DataObject) -> None:
        workspace.fill(*data.draw(workspaces(read_by(params)), label="workspace"))
        result = run_bounded(lambda: run_check(name, workspace.path, params, tests_dir=workspace.tests))
        assert_clean(result)

    example()


@settings(HOSTILE, max_examples=200)
@given(
    layout=workspaces(),
    patterns=st.lists(st.one_of(paths, st.sampled_from([*GLOBS, "sub", "."])), min_size=1, max_size=3),
)
def test_judge_inputs_of_a_hostile_workspace(
    workspace: Workspace, layout: tuple[list[Entry], list[bytes]], patterns: list[str]
) -> None:
    """What a judge reads is collected from regular files inside the workspace only, never raises
    and always encodes."""
    workspace.fill(*layout)
    try:
        with time_limit(CHECK_SECONDS):
            collected = judge_inputs(workspace.path, patterns, file_chars=2000, item_chars=5000)
    except CheckTimeout:
        pytest.fail(f"collecting judge inputs ran past {CHECK_SECONDS:g} s")
    json.dumps(collected, ensure_ascii=False).encode("utf-8")
    root = os.path.realpath(workspace.path)
    for entry in collected["files"]:
        path = workspace.path / entry["path"]
        if not entry.get("text") or not os.path.lexists(path):
            continue  # nothing shown, or a name shown escaped (not UTF-8)
        real = os.path.realpath(path)
        assert real.startswith(root + os.sep) and stat.S_ISREG(os.lstat(real).st_mode), entry


# -- hostile values never pass --------------------------------------------------------------------

FOOLING = ("json_path_equals", "json_equals", "csv_equals", "sql_query", "cross_file_consistent")
"""The checks comparing a deliverable's value with an expected one."""
FOOLS = ("nan", "inf", "-inf", "overflow", "huge_int", "bool", "neighbour", "text")


@st.composite
def fooling_cases(draw: st.DrawFn, check: str) -> tuple[float | int, str, dict[str, Any]]:
    """(expected, what the deliverable holds instead, tolerance params): a value that is no number,
    not a finite one, or another number that floats would confuse with the expected one."""
    fools = [f for f in FOOLS if not (check == "sql_query" and f == "bool")]  # SQLite stores booleans as 0 / 1
    fool = draw(st.sampled_from(fools))
    if fool == "neighbour":
        expected: float | int = draw(
            st.one_of(st.integers(min_value=-(10**30), max_value=10**30), st.sampled_from([2**53, 2**63 - 1, 10**15]))
        )
        assert isinstance(expected, int)
        return expected, str(expected + draw(st.sampled_from([-1, 1]))), {}
    expected = draw(
        st.one_of(
            st.integers(min_value=-(10**30), max_value=10**30),
            st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False),
        )
    )
    written = {
        "nan": "NaN",
        "inf": "Infinity",
        "-inf": "-Infinity",
        "overflow": "1e999",
        "huge_int": str(draw(st.sampled_from([10**400, -(10**400)]))),
        "bool": draw(st.sampled_from(["true", "false"])),
        "text": json.dumps(f"{expected} units"),
    }[fool]
    tolerance = draw(
        optional(tolerance=st.sampled_from([0.0, 0.01, 1e6]), relative_tolerance=st.sampled_from([0.0, 0.5, 1.0]))
    )
    return expected, written, tolerance


def _cell(written: str) -> str:
    """The JSON literal as a CSV cell would spell it."""
    return {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(written, written.strip('"'))


def _database_value(written: str) -> Any:
    value = json.loads(written)
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return str(value)  # past SQLite's integers: stored as text
    return value


def write_fool(path: Path, check: str, expected: float | int, written: str) -> dict[str, Any]:
    """Put the hostile value where `check` reads it; the params that check would be given."""
    if check == "csv_equals":
        (path / "out.csv").write_text(f"total\n{_cell(written)}\n")
        return {"path": "out.csv", "expected": [{"total": expected}]}
    if check == "sql_query":
        with sqlite3.connect(path / "out.db") as db:
            db.execute("CREATE TABLE t (v)")
            db.execute("INSERT INTO t VALUES (?)", (_database_value(written),))
        return {"path": "out.db", "query": "SELECT v FROM t", "expected": expected}
    (path / "out.json").write_text(f'{{"total": {written}}}')
    if check == "json_path_equals":
        return {"path": "out.json", "json_path": "$.total", "expected": expected}
    if check == "json_equals":
        return {"path": "out.json", "expected": {"total": expected}}
    return {"sources": [{"path": "out.json", "json_path": "$.total"}], "expected": expected}


@pytest.mark.parametrize("name", FOOLING)
def test_a_hostile_value_never_passes_for_the_expected_one(workspace: Workspace, name: str) -> None:
    @HOSTILE
    @given(case=fooling_cases(name))
    def example(case: tuple[float | int, str, dict[str, Any]]) -> None:
        expected, written, tolerance = case
        workspace.fill([], [])
        params = {**write_fool(workspace.path, name, expected, written), **tolerance}
        result = run_bounded(lambda: run_check(name, workspace.path, params, tests_dir=workspace.tests))
        assert_clean(result)
        assert result.status == "failed", (written, result.evidence)

    example()

"""The rubric's check that a finding category is empty *and* the audit behind it was done.

"No finding of kind X" alone passes on a findings file that holds only its header, so the item also
asks for the true findings of the rules the challenge concerns. The verifier runs this file as the
inline source of a `python` check (standard library only): `check(workspace, args)` with args

* `path`: the findings CSV (header `rule,file,line,...`);
* `absent`: `[rule, file]` pairs no row may carry (`file` "*": no row of that rule at all);
* `present`: `[rule, file, line]` rows that must all be there.

Cells compare as `csv_equals` compares them by default: trimmed, case kept, a line as a number.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

MAX_BYTES = 4 << 20
SHOWN = 10


def _line(value: str) -> int | str:
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        return text
    return int(number) if math.isfinite(number) and number.is_integer() else text


def _rows(workspace: Path, relative: str) -> list[tuple[str, str, int | str]]:
    path = workspace / relative
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{relative} is not a regular file")
    with path.open("rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{relative} is larger than {MAX_BYTES} bytes")
    records = [r for r in csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")) if r]
    if not records:
        raise ValueError(f"{relative} has no header")
    header = [c.strip() for c in records[0]]
    missing = [c for c in ("rule", "file", "line") if c not in header]
    if missing:
        raise ValueError(f"{relative} lacks the column(s) {missing}")
    at = [header.index(c) for c in ("rule", "file", "line")]
    cells = [[r[i] if i < len(r) else "" for i in at] for r in records[1:]]
    return [(rule.strip(), file.strip(), _line(line)) for rule, file, line in cells]


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    rows = _rows(workspace, str(args["path"]))
    absent = {(str(rule), str(file)) for rule, file in args["absent"]}
    wanted = [(str(rule), str(file), int(line)) for rule, file, line in args["present"]]
    reported = set(rows)
    missing = [row for row in wanted if row not in reported]
    wrong = [row for row in rows if (row[0], row[1]) in absent or (row[0], "*") in absent]
    problems = [f"{len(missing)} expected finding(s) missing"] if missing else []
    problems += [f"{len(wrong)} finding(s) where there is none"] if wrong else []
    return not problems, {
        "summary": "; ".join(problems) or f"all {len(wanted)} expected finding(s) present, none where there is none",
        "missing": [list(row) for row in missing[:SHOWN]],
        "unexpected": [list(row) for row in wrong[:SHOWN]],
        "rows": len(rows),
    }

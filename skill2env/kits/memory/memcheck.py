"""The rubric's checks of an updated memory file (standard library only).

The verifier runs this file as the inline source of a `python` check: `check(workspace, args)` with
`args["kind"]` one of

* `structure`: the file's `##` headings are exactly `headings`, in that order; with `front_matter`,
  the file opens with a `---` block holding the keys `project` and `consolidated`;
* `section`: the section headed `heading` holds exactly the entries of `entries` (subject → value
  and source): one line `- <subject>: <value> ...` per subject, the value in the conventions' form
  and the line citing `source: <journal file>` of the session that set it.

Every kind first requires exactly one consolidation date in the file (`Last consolidated: <date>` or
`consolidated: <date>` in front matter), equal to `consolidated`: a file not brought up to the last
session earns nothing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

MAX_BYTES = 512 << 10
CONSOLIDATED = re.compile(r"^[\s*_>-]*(?:last\s+)?consolidated[\s*_]*:\s*(\S+)\s*$", re.M | re.I)
HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)
ENTRY = re.compile(r"^\s*[-*]\s+`?(?P<key>[^:`\n]+?)`?\s*:\s*(?P<value>\S+)(?P<rest>.*)$", re.M)
SOURCE = re.compile(r"source\s*:\s*`?([^\s`),;]+)", re.I)


def _text(workspace: Path, relative: str) -> str | None:
    path = workspace / relative
    if not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def sections(text: str) -> dict[str, str]:
    marks = list(HEADING.finditer(text))
    found: dict[str, str] = {}
    for n, mark in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        found.setdefault(mark.group(1).strip().lower(), text[mark.end() : end])
    return found


def front_matter(text: str) -> dict[str, str]:
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---", 4)
    if end < 0:
        return {}
    return dict(
        (k.strip().lower(), v.strip()) for k, _, v in (ln.partition(":") for ln in text[4:end].splitlines()) if v
    )


def clean(value: str) -> str:
    return value.strip().strip("`*_").rstrip(",;.")


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    text = _text(workspace, args["path"])
    if text is None:
        return False, {"reason": "no memory file"}
    dates = CONSOLIDATED.findall(text)
    if len(dates) != 1 or clean(dates[0]) != args["consolidated"]:
        return False, {"reason": "the consolidation date is not the last session's", "found": dates[:3]}
    if args["kind"] == "structure":
        headings = [h.strip() for h in HEADING.findall(text)]
        ok = [h.lower() for h in headings] == [h.lower() for h in args["headings"]]
        if args.get("front_matter"):
            meta = front_matter(text)
            ok = ok and {"project", "consolidated"} <= set(meta)
        return ok, {"headings": headings}
    part = sections(text).get(args["heading"].lower())
    if part is None:
        return False, {"reason": f"no section {args['heading']}"}
    found: dict[str, list[tuple[str, str]]] = {}
    for entry in ENTRY.finditer(part):
        source = SOURCE.search(entry.group("rest"))
        found.setdefault(entry.group("key").strip().lower(), []).append(
            (clean(entry.group("value")), source.group(1) if source else "")
        )
    expected = {k.lower(): v for k, v in args["entries"].items()}
    wrong = sorted(key for key, want in expected.items() if found.get(key) != [(want["value"], want["source"])])
    extra = sorted(set(found) - set(expected) - {"(none)"})
    return not wrong and not extra, {"wrong": wrong, "extra": extra}

"""The rubric's checks of a cited summary and its reference list (standard library only).

The verifier runs this file as the inline source of a `python` check: `check(workspace, args)` with
`args["kind"]` one of

* `answer`: section `## Q<n>` of `summary` gives `Answer: <number>` within `tolerance` of `value` and
  cites one of `keys` (the work the answer rests on) and none of `forbidden`;
* `citations`: every question section cites at least one key, every cited key is in `bibliography`
  and none is in `forbidden`;
* `references`: the keys of `references` (a JSON list of `{"key", "doi", ...}` or `{"references": [...]}`)
  are exactly `expected`, each once;
* `excluded`: every question is answered and neither deliverable cites a key in `forbidden`;
* `agreement`: the keys the summary cites are within (level 1) or equal to (level ≥ 2) the reference
  list's keys; at level 3 each reference's DOI is the bibliography's DOI for its key (`dois`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

SECTION = re.compile(r"^#{1,6}\s*Q(\d+)\b[^\n]*$", re.M | re.I)
ANSWER = re.compile(r"^[\s*>_-]*answer[\s*_]*:[\s*_]*([-+\u2212]?\d[\d,]*(?:\.\d+)?)", re.M | re.I)
CITE = re.compile(r"\[([^\[\]]*@[^\[\]]*)\]")
KEY = re.compile(r"@([A-Za-z0-9_:-]+)")
MAX_BYTES = 512 << 10


def _text(workspace: Path, relative: str) -> str | None:
    path = workspace / relative
    if not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def sections(text: str) -> dict[int, str]:
    marks = list(SECTION.finditer(text))
    found: dict[int, str] = {}
    for n, mark in enumerate(marks):
        end = marks[n + 1].start() if n + 1 < len(marks) else len(text)
        found.setdefault(int(mark.group(1)), text[mark.end() : end])
    return found


def cited(text: str) -> set[str]:
    return {key for group in CITE.findall(text) for key in KEY.findall(group)}


def answer(section: str) -> float | None:
    found = ANSWER.findall(section)
    if len(found) != 1:
        return None
    return float(found[0].replace(",", "").replace("\u2212", "-"))


def doi(text: str) -> str:
    return re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", str(text).strip().lower())


def reference_list(workspace: Path, relative: str) -> list[dict[str, Any]] | None:
    text = _text(workspace, relative)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if isinstance(data, dict):
        data = data.get("references")
    if not isinstance(data, list) or not all(isinstance(e, dict) and isinstance(e.get("key"), str) for e in data):
        return None
    return data


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    kind = args["kind"]
    summary = _text(workspace, args["summary"])
    if summary is None:
        return False, {"reason": "no summary"}
    parts = sections(summary)
    questions = int(args["questions"])
    if any(n not in parts or answer(parts[n]) is None for n in range(1, questions + 1)):
        return False, {"reason": "a question is not answered", "sections": sorted(parts)}
    forbidden = set(args.get("forbidden", []))
    if kind == "answer":
        part = parts[int(args["question"])]
        value, keys = answer(part), cited(part)
        ok = (
            value is not None
            and abs(value - float(args["value"])) <= float(args["tolerance"])
            and bool(keys & set(args["keys"]))
            and not keys & forbidden
        )
        return ok, {"answer": value, "cited": sorted(keys)}
    if kind == "citations":
        keys = cited(summary)
        bibliography = set(args["bibliography"])
        empty = [n for n in range(1, questions + 1) if not cited(parts[n])]
        ok = not empty and keys <= bibliography and not keys & forbidden
        return ok, {"unknown": sorted(keys - bibliography), "uncited_sections": empty}
    references = reference_list(workspace, args["references"])
    if references is None:
        return False, {"reason": "no reference list"}
    listed = [e["key"] for e in references]
    if kind == "references":
        expected = sorted(args["expected"])
        return sorted(listed) == expected, {"listed": sorted(listed)}
    if kind == "excluded":
        bad = (cited(summary) | set(listed)) & forbidden
        return not bad, {"forbidden_cited": sorted(bad)}
    keys, level = cited(summary), int(args["level"])
    ok = keys <= set(listed) and bool(keys)
    if level >= 2:
        ok = ok and keys == set(listed) and len(listed) == len(set(listed))
    if level >= 3:
        dois = args["dois"]
        ok = ok and all(doi(e.get("doi", "")) == dois.get(e["key"], "\0") for e in references)
    return ok, {"cited": sorted(keys), "listed": sorted(listed)}

"""Reference solver for the personal-records kit.

It reads the birthdays list section by section (each section's heading says how its dates are written:
DD.MM.YYYY by default, YYYY-MM-DD, MM/DD/YYYY, or a month in words), maps nicknames to full names through
the contacts, merges people listed twice (keeping the year any entry gives), moves 29 February birthdays
by the list's own rule and computes every age from the year of birth, never from the list's notes. It
reads the task tracker with Python's sqlite3 module and the README's rules (whose rows are the user's,
deleted rows, sentinel due dates and priorities), and replays the whole focus log, every file (gzipped or
not) in time order, each timestamp at its own clock (the phone's bare timestamps in UTC when the README
says so).
"""

from __future__ import annotations

import gzip
import json
import re
import sqlite3
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
ENTRY = re.compile(r"^- \*\*(?P<name>.+?)\*\* - (?P<date>\S+(?: \d+)?)")
LOCAL = timezone(timedelta(hours=1))


def parse_date(text: str, form: str) -> tuple[int, int, int | None] | None:
    """(month, day, year or None) of a written date in its section's form."""
    text = text.strip()
    if form == "iso" and (found := re.fullmatch(r"(\d{4}|-)-(\d{2})-(\d{2})", text)):
        year = None if found.group(1) == "-" else int(found.group(1))
        return int(found.group(2)), int(found.group(3)), year
    if form == "us" and (found := re.fullmatch(r"(\d{1,2})/(\d{1,2})(?:/(\d{4}))?", text)):
        return int(found.group(1)), int(found.group(2)), int(found.group(3)) if found.group(3) else None
    if found := re.fullmatch(r"(\d{1,2})\.(\d{1,2})\.(\d{4})?", text):
        return int(found.group(2)), int(found.group(1)), int(found.group(3)) if found.group(3) else None
    if found := re.fullmatch(r"([A-Za-z]{3})[a-z]* (\d{1,2})", text):
        return MONTHS.index(found.group(1).lower()) + 1, int(found.group(2)), None
    return None


def section_form(heading: str) -> str:
    if "YYYY-MM-DD" in heading:
        return "iso"
    if "MM/DD" in heading:
        return "us"
    return "dotted"


def contacts() -> dict[str, str]:
    """Nickname or full name (lower case) → full name."""
    names: dict[str, str] = {}
    for line in rt.read_text(rt.workspace() / "records" / "contacts.md").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and cells[0] not in ("Name", "") and not cells[0].startswith("---"):
            names[cells[0].lower()] = cells[0]
            names[cells[1].lower()] = cells[0]
    return names


def celebrated(month: int, day: int, year: int, rule: str) -> date:
    if (month, day) == (2, 29):
        try:
            return date(year, 2, 29)
        except ValueError:
            return date(year, 3, 1) if rule == "mar1" else date(year, 2, 28)
    return date(year, month, day)


def upcoming(today: date, window: int) -> list[dict[str, Any]]:
    text = rt.read_text(rt.workspace() / "records" / "birthdays.md")
    rule = "mar1" if re.search(r"29 February celebrates on 1 March", text) else "feb28"
    names = contacts()
    people: dict[str, dict[str, Any]] = {}
    form = "dotted"
    for line in text.splitlines():
        if line.startswith("## "):
            form = section_form(line)
            continue
        found = ENTRY.match(line)
        if not found:
            continue
        parsed = parse_date(found.group("date"), form)
        if parsed is None:
            continue
        month, day, year = parsed
        name = names.get(found.group("name").strip().lower(), found.group("name").strip())
        person = people.setdefault(name, {"month": month, "day": day, "year": None})
        person["year"] = person["year"] or year
    result = []
    for name, p in people.items():
        when = celebrated(p["month"], p["day"], today.year, rule)
        if when < today:
            when = celebrated(p["month"], p["day"], today.year + 1, rule)
        if (when - today).days <= window:
            turns = when.year - p["year"] if p["year"] else None
            result.append({"name": name, "date": when.isoformat(), "turns": turns})
    return sorted(result, key=lambda p: (p["date"], p["name"]))


def tasks(today: date) -> dict[str, Any]:
    readme = rt.read_text(rt.workspace() / "tasks" / "README.md")
    connection = sqlite3.connect(f"file:{rt.workspace() / 'tasks' / 'tasks.db'}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    rows = [dict(r) for r in connection.execute("SELECT * FROM tasks")]
    connection.close()
    me = re.search(r"`(\w+)` is ", readme)
    shared = re.search(r"carry the tag `([^`]+)`", readme)
    someday = "1970-01-01" if "1970-01-01" in readme else None
    unset = 0 if "`priority` 0 means not set" in readme else None
    monday = today - timedelta(days=today.weekday())

    def mine(row: dict[str, Any]) -> bool:
        if me and "owner" in row and row["owner"] != me.group(1):
            return False
        if shared and shared.group(1) in str(row.get("tags") or "").split(","):
            return False
        return not row.get("deleted_at")

    def due(row: dict[str, Any]) -> date | None:
        text = (row.get("due_date") or "").strip()
        if not text or text == someday:
            return None
        return date.fromisoformat(text[:10])

    def rank(row: dict[str, Any]) -> int:
        return 5 if unset is not None and row["priority"] == unset else int(row["priority"])

    late = [r for r in rows if mine(r) and r["status"] != "done" and (d := due(r)) is not None and d < today]
    late.sort(key=lambda r: (rank(r), due(r), r["id"]))
    done = [
        r for r in rows if mine(r) and r["status"] == "done" and r["completed_at"]
        and monday <= date.fromisoformat(r["completed_at"][:10]) <= today
    ]  # fmt: skip
    return {"overdue": [r["id"] for r in late], "completed_this_week": len(done)}


def focus() -> dict[str, int]:
    root = rt.workspace() / "focus"
    readme = rt.read_text(root / "README.md")
    bare_utc = "UTC, without an offset" in readme
    events = []
    for path in sorted(root.iterdir()):
        if path.name.endswith(".jsonl.gz"):
            text = gzip.decompress(path.read_bytes()).decode("utf-8")
        elif path.name.endswith(".jsonl"):
            text = rt.read_text(path)
        else:
            continue
        for line in text.splitlines():
            if line.strip():
                record = json.loads(line)
                stamp = str(record["ts"]).replace("Z", "+00:00")
                at = datetime.fromisoformat(stamp)
                if at.tzinfo is None:
                    at = at.replace(tzinfo=UTC if bare_utc else LOCAL)
                events.append((at, record["goal"], record["event"]))
    events.sort(key=lambda e: e[0])
    minutes: dict[str, float] = {}
    since: dict[str, datetime] = {}
    for at, goal, kind in events:
        minutes.setdefault(goal, 0.0)
        if kind in ("start", "resume"):
            since[goal] = at
        elif goal in since:
            minutes[goal] += (at - since.pop(goal)).total_seconds() / 60
    return {goal: int(value) for goal, value in sorted(minutes.items())}


def stated() -> tuple[date, int]:
    """Today and the window, as the user's request in the workspace states them."""
    text = rt.read_text(rt.workspace() / "REQUEST.md")
    today = re.search(r"Today is (\d{4}-\d{2}-\d{2})", text)
    window = re.search(r"next (\d+) days", text)
    if not today or not window:
        raise SystemExit("REQUEST.md does not state today and the window")
    return date.fromisoformat(today.group(1)), int(window.group(1))


def main() -> None:
    today, window = stated()
    rt.write_json("upcoming.json", {"upcoming": upcoming(today, window)})
    if rt.partial_mode():
        return
    rt.write_json("tasks.json", tasks(today))
    rt.write_json("focus.json", {"minutes": focus()})


if __name__ == "__main__":
    main()

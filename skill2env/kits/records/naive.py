"""Naive baseline for the personal-records kit: the obvious reading of each file. It reads every
birthdays line whose date looks like DD.MM.YYYY, DD.MM. or D/M/Y (day first), skips what it cannot
parse, trusts a "turns N" or "(wird N)" note when there is one, and lists every line (no merging of
nicknames); it queries every row of the tracker (no owner, tag or deletion rule, no sentinels: due
dates and priorities compared as written); and it replays each focus-log file on its own, reading
timestamps as local wall clock time without their offsets, skipping gzipped files. It never reads the
READMEs or the contacts."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import date, datetime, timedelta

from skill2env.kits.runtime import rt  # kit-runtime

LINE = re.compile(r"^- \*\*(.+?)\*\* - (\d{1,2})[./](\d{1,2})[./]?(\d{4})?(.*)$")


def main() -> None:
    request = rt.read_text(rt.workspace() / "REQUEST.md")
    today = date.fromisoformat(re.findall(r"\d{4}-\d{2}-\d{2}", request)[0])
    window = int(re.findall(r"next (\d+) days", request)[0])
    found = []
    for line in rt.read_text(rt.workspace() / "records" / "birthdays.md").splitlines():
        match = LINE.match(line)
        if not match:
            continue
        name, day, month, year, rest = match.groups()
        try:
            when = date(today.year, int(month), int(day))
            if when < today:
                when = date(today.year + 1, int(month), int(day))
        except ValueError:
            continue
        if (when - today).days > window:
            continue
        note = re.search(r"\((?:turns|wird) (\d+)\)", rest)
        turns = int(note.group(1)) if note else (when.year - int(year) if year else None)
        found.append({"name": name, "date": when.isoformat(), "turns": turns})
    rt.write_json("upcoming.json", {"upcoming": sorted(found, key=lambda p: (p["date"], p["name"]))})

    connection = sqlite3.connect(f"file:{rt.workspace() / 'tasks' / 'tasks.db'}?mode=ro", uri=True)
    overdue = [row[0] for row in connection.execute(
        "SELECT id FROM tasks WHERE status != 'done' AND due_date IS NOT NULL AND due_date < ? "
        "ORDER BY priority, due_date, id", (today.isoformat(),))]  # fmt: skip
    monday = (today - timedelta(days=today.weekday())).isoformat()
    [(done,)] = connection.execute(
        "SELECT COUNT(*) FROM tasks WHERE status = 'done' AND substr(completed_at, 1, 10) BETWEEN ? AND ?",
        (monday, today.isoformat()),
    ).fetchall()
    connection.close()
    rt.write_json("tasks.json", {"overdue": overdue, "completed_this_week": done})

    minutes: dict[str, float] = {}
    for path in rt.files("focus/*.jsonl"):
        since: dict[str, datetime] = {}
        for raw in rt.read_text(path).splitlines():
            if not raw.strip():
                continue
            record = json.loads(raw)
            at = datetime.fromisoformat(str(record["ts"])[:19])
            goal = record["goal"]
            minutes.setdefault(goal, 0.0)
            if record["event"] in ("start", "resume"):
                since[goal] = at
            elif goal in since:
                minutes[goal] += (at - since.pop(goal)).total_seconds() / 60
    rt.write_json("focus.json", {"minutes": {g: int(m) for g, m in sorted(minutes.items())}})


if __name__ == "__main__":
    main()

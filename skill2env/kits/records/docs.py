"""Render the personal-records world: the birthdays list and contacts (Markdown), the task tracker (a
SQLite database built with Python's sqlite3 module, and its README) and the focus-session log (JSON
lines, one file or one a day, and its README)."""

from __future__ import annotations

import gzip
import json
import sqlite3
import tempfile
from datetime import UTC, datetime, timezone
from pathlib import Path

from skill2env.kits import render as r
from skill2env.kits.records.patterns import (
    BIRTHDAYS,
    CONTACTS,
    DATABASE,
    DUPLICATES,
    FOCUS_LOG,
    FOCUS_README,
    IMPORTED,
    REQUEST,
    TASKS_README,
)
from skill2env.kits.records.world import SECTIONS, Entry, Event, Task, World
from skill2env.kits.spec import Workspace

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
STATUSES = ("backlog", "todo", "in-progress", "done")


def written_date(world: World, entry: Entry) -> str:
    person = world.people[entry.person]
    d, m = person.day, person.month
    y = person.year if entry.year_shown else None
    if entry.form == "iso":
        return f"{y}-{m:02d}-{d:02d}" if y else f"--{m:02d}-{d:02d}"
    if entry.form == "us":
        return f"{m:02d}/{d:02d}/{y}" if y else f"{m:02d}/{d:02d}"
    if entry.form == "words":
        return f"{MONTHS[m - 1]} {d}"
    return f"{d:02d}.{m:02d}.{y}" if y else f"{d:02d}.{m:02d}."


def leap_rule(world: World) -> str:
    day = "1 March" if world.leap_rule == "mar1" else "28 February"
    return f"Someone born on 29 February celebrates on {day} in years without a 29 February."


def birthdays(world: World) -> str:
    footnote = world.levels.get("conditional_branch_on_data") == 3
    lines = [f"# Birthdays ({world.owner[0]})", "",
             "Dates are written DD.MM.YYYY, or DD.MM. when the year is not known."]  # fmt: skip
    if world.notes_dated:
        lines.append(f"The (turns N) notes were written on {world.notes_dated.isoformat()}.")
    if not footnote:
        lines.append(leap_rule(world))
    order = [*SECTIONS, *(IMPORTED[k] for k in ("iso", "us")), DUPLICATES]
    for section in order:
        found = [e for e in world.entries if e.section == section]
        if not found:
            continue
        found.sort(key=lambda e: (world.people[e.person].month, world.people[e.person].day, e.written_name))
        lines += ["", f"## {section}", ""]
        for entry in found:
            note = ""
            if entry.note is not None:
                note = f" (wird {entry.note})" if entry.german else f" (turns {entry.note})"
            lines.append(f"- **{entry.written_name}** - {written_date(world, entry)}{note}")
    if footnote:
        lines += ["", "---", "", f"Note: {leap_rule(world)}"]
    return "\n".join(lines) + "\n"


def contacts(world: World) -> str:
    rng = world.rng
    rows = []
    for person in sorted(world.people, key=lambda p: p.name):
        user = person.name.lower().replace(" ", ".").replace("á", "a")
        rows.append([person.name, person.nickname, f"+49 15{rng.randint(10, 79)} {rng.randint(1000000, 9999999)}",
                     f"{user}@example.org"])  # fmt: skip
    return f"# Contacts ({world.owner[0]})\n\n" + r.markdown_table(["Name", "Nickname", "Phone", "Email"], rows)


def _sql(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _stamp(at: datetime | None) -> str | None:
    return at.strftime("%Y-%m-%d %H:%M:%S") if at else None


def tags_of(world: World, task: Task) -> str:
    if task.owner != world.owner[1] and world.shared_tag:
        return f"shared:{world.partner[1]}"
    return ",".join(task.tags)


def database_script(world: World) -> str:
    extra = (", owner TEXT NOT NULL DEFAULT " + _sql(world.owner[1]) if world.owner_column else "") + (
        ", deleted_at DATETIME" if world.deleted_column else "")  # fmt: skip
    lines = [
        "CREATE TABLE schema_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, migration_name TEXT NOT NULL UNIQUE, "
        "applied_at DATETIME DEFAULT CURRENT_TIMESTAMP);",
        "CREATE TABLE tasks (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, description TEXT, tags TEXT, "
        "status TEXT DEFAULT 'backlog' CHECK(status IN ('backlog', 'todo', 'in-progress', 'done')), "
        "created_at DATETIME DEFAULT CURRENT_TIMESTAMP, updated_at DATETIME DEFAULT CURRENT_TIMESTAMP, "
        f"priority INTEGER, due_date TEXT, completed_at DATETIME{extra});",
        "CREATE INDEX idx_status ON tasks(status);",
    ]
    migrations = ["001_initial.sql", "002_priority_due.sql"]
    migrations += ["003_shared_owner.sql"] if world.owner_column else []
    migrations += ["004_soft_delete.sql"] if world.deleted_column else []
    start = world.tasks[0].created if world.tasks else datetime(2024, 1, 1)
    for n, name in enumerate(migrations):
        lines.append(f"INSERT INTO schema_migrations (migration_name, applied_at) VALUES ({_sql(name)}, "
                     f"{_sql(f'{start.year - 1}-0{n + 1}-15 10:00:00')});")  # fmt: skip
    for task in sorted(world.tasks, key=lambda t: t.id):
        due = task.due_text if task.due_text is not None else (task.due.isoformat() if task.due else None)
        updated = task.deleted or task.completed or task.created
        values: list[object] = [task.id, task.title, None, tags_of(world, task), task.status, _stamp(task.created),
                                _stamp(updated), task.priority, due, _stamp(task.completed)]  # fmt: skip
        values += [task.owner] if world.owner_column else []
        values += [_stamp(task.deleted)] if world.deleted_column else []
        lines.append(f"INSERT INTO tasks VALUES ({', '.join(_sql(v) for v in values)});")
    return "\n".join(lines) + "\n"


def database_bytes(script: str) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tasks.db"
        connection = sqlite3.connect(path)
        try:
            connection.executescript("BEGIN;\n" + script + "COMMIT;\n")
        finally:
            connection.close()
        return path.read_bytes()


def tasks_readme(world: World) -> str:
    me, other = world.owner, world.partner
    lines = [
        "# Task tracker",
        "",
        f"{me[0]}'s tasks, in SQLite: `{DATABASE}`, table `tasks` (schema changes in `schema_migrations`).",
        "",
        "- `status`: backlog, todo, in-progress or done. Every status but done is open.",
        "- `priority`: 1 is the highest, 4 the lowest.",
        "- `due_date`: YYYY-MM-DD, NULL when the task has no due date.",
        "- `completed_at`: local time (UTC+01:00) when the task was moved to done.",
    ]
    if "someday" in world.sentinels:
        lines.append("- A `due_date` of 1970-01-01 is the old app's 'someday': the task has no due date.")
    if "priority0" in world.sentinels:
        lines.append("- `priority` 0 means not set; such a task sorts after priority 4.")
    if "blank" in world.sentinels:
        lines.append("- An empty `due_date` also means the task has no due date.")
    if world.owner_column:
        lines.append(f"- The tracker is shared with {other[0]}: `owner` says whose task a row is (`{me[1]}` is "
                     f"{me[0].split()[0]}, `{other[1]}` is {other[0].split()[0]}).")  # fmt: skip
    if world.shared_tag:
        lines.append(f"- The tracker is shared with {other[0]}: their tasks carry the tag `shared:{other[1]}`.")
    if world.deleted_column:
        lines.append("- A deleted task keeps its row; `deleted_at` says when it was deleted.")
    return "\n".join(lines) + "\n"


def timestamp(event: Event) -> str:
    if event.style == "z":
        return event.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if event.style == "bare":
        return event.at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    return event.at.astimezone(timezone(event.offset)).isoformat()


def focus_files(world: World) -> dict[str, str]:
    events = sorted((e for s in world.sessions for e in s.events), key=lambda e: e.at)
    files: dict[str, list[str]] = {}
    for event in events:
        record = {"ts": timestamp(event), "goal": event.goal, "event": event.kind, "device": event.device}
        day = event.at.astimezone(timezone(event.offset)).date().isoformat()
        path = f"focus/{day}.jsonl" if world.rotated else FOCUS_LOG
        files.setdefault(path, []).append(json.dumps(record))
    return {path: "\n".join(lines) + "\n" for path, lines in files.items()}


def focus_readme(world: World) -> str:
    lines = [
        "# Focus sessions",
        "",
        "The focus timer appends one JSON object per event: `ts` (ISO 8601), `goal`, `event` (start, pause, "
        "resume or stop) and `device`.",
        "Focused time is the time from a start (or resume) to the next pause (or stop) of the same goal.",
    ]
    if world.rotated:
        lines.append("The log is rotated at local midnight into one file a day, `focus/YYYY-MM-DD.jsonl`"
                     + ("; older days are gzipped." if world.gzipped else "."))  # fmt: skip
    else:
        lines.append(f"Everything is in `{FOCUS_LOG}`.")
    if world.phone_utc_bare:
        lines.append("The phone app writes its clock in UTC, without an offset.")
    return "\n".join(lines) + "\n"


def request(world: World) -> str:
    first = world.owner[0].split()[0]
    return (
        f"# Request from {first}\n\nToday is {world.today.isoformat()}. Which birthdays come up in the next "
        f"{world.window} days, and how old does everyone turn? Which of my tasks are overdue, and how many did I get "
        "done this week? And how much focused time did I put into each goal?\n"
    )


def render_world(world: World) -> Workspace:
    ws = Workspace()
    ws.add_text(REQUEST, request(world))
    ws.add_text(BIRTHDAYS, birthdays(world))
    ws.add_text(CONTACTS, contacts(world))
    script = database_script(world)
    ws.add(DATABASE, database_bytes(script), script)
    ws.add_text(TASKS_README, tasks_readme(world))
    ws.add_text(FOCUS_README, focus_readme(world))
    files = focus_files(world)
    days = sorted(files)
    for path in days:
        text = files[path]
        if world.gzipped and path != days[-1]:
            ws.add(path + ".gz", gzip.compress(text.encode(), mtime=0), text)
        else:
            ws.add_text(path, text)
    return ws

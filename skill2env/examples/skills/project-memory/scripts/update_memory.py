#!/usr/bin/env python3
"""Rebuild a project's MEMORY.md from its session journal and report what the old one got wrong.

Journal: one Markdown file per session, named YYYY-MM-DD.md (a second session on a day:
YYYY-MM-DD-2.md), read in name order. Bullet lines with these forms are entries; every
other line is free text and ignored:

  - Decision [key]: text        a later decision with the same key supersedes it
  - Owner [area]: person        a later owner of the same area reassigns it
  - Action A7 [person]: text    opens action item A7
  - Reassign A7: person         hands A7 to someone else
  - Done A7                     closes A7 (optionally "Done A7: note")

The memory file is rendered from a template with the placeholders {last_session},
{decisions}, {owners}, {open_actions}, {closed_actions} and {superseded}; every entry
cites the session it comes from. Standard library only.

Exit codes: 0 the memory file already matches the journal, 1 it is stale (the
differences are reported), 2 usage or input error.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXIT_CURRENT, EXIT_STALE, EXIT_USAGE = 0, 1, 2
SESSION_FILE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.md$")
ENTRY = re.compile(
    r"^\s*[-*]\s+(?:(?P<kind>Decision|Owner)\s+\[(?P<key>[^\]]+)\]:\s*(?P<text>.+)"
    r"|Action\s+(?P<aid>[A-Z]+\d+)\s+\[(?P<who>[^\]]+)\]:\s*(?P<task>.+)"
    r"|Reassign\s+(?P<rid>[A-Z]+\d+):\s*(?P<to>\S.*)"
    r"|Done\s+(?P<did>[A-Z]+\d+)(?::\s*(?P<note>.*))?)\s*$",
    re.IGNORECASE,
)
MEMORY_ENTRY = re.compile(r"^- \*\*(?P<key>[^*]+)\*\*(?: \[(?P<who>[^\]]+)\])?: (?P<text>.+?) \(session [^)]*\)\s*$")
SECTIONS = {"Decisions": "decision", "Owners": "owner", "Open action items": "open", "Recently closed": "closed"}


class InputError(Exception):
    """An input is missing or malformed."""


@dataclass
class Item:
    key: str
    text: str
    session: str
    history: list[tuple[str, str]] = field(default_factory=list)
    """(session, earlier text) of the values this one replaced."""


@dataclass
class Action:
    aid: str
    task: str
    owner: str
    opened: str
    session: str
    closed: str | None = None
    note: str = ""
    handed_from: list[str] = field(default_factory=list)


@dataclass
class Memory:
    sessions: list[str] = field(default_factory=list)
    decisions: dict[str, Item] = field(default_factory=dict)
    owners: dict[str, Item] = field(default_factory=dict)
    actions: dict[str, Action] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def session_files(journal: Path) -> list[tuple[str, Path]]:
    found = []
    for path in journal.iterdir():
        match = SESSION_FILE.match(path.name)
        if match and path.is_file():
            found.append(((match.group(1), int(match.group(2) or 1)), path.stem, path))
    return [(stem, path) for _, stem, path in sorted(found)]


def replay(journal: Path) -> Memory:
    memory = Memory()
    for session, path in session_files(journal):
        memory.sessions.append(session)
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            match = ENTRY.match(line)
            if not match:
                continue
            where = f"{path.name}:{number}"
            if match["kind"]:
                table = memory.decisions if match["kind"].lower() == "decision" else memory.owners
                key, text = match["key"].strip(), match["text"].strip()
                old = table.get(key)
                if old and old.text == text:
                    continue
                history = [*old.history, (old.session, old.text)] if old else []
                table[key] = Item(key, text, session, history)
            elif match["aid"]:
                aid = match["aid"].upper()
                if aid in memory.actions:
                    memory.warnings.append(f"{where}: action {aid} opened again; the first one is kept")
                    continue
                memory.actions[aid] = Action(aid, match["task"].strip(), match["who"].strip(), session, session)
            elif match["rid"]:
                action = memory.actions.get(match["rid"].upper())
                if action is None:
                    memory.warnings.append(f"{where}: reassign of unknown action {match['rid']}")
                    continue
                action.handed_from.append(action.owner)
                action.owner, action.session = match["to"].strip(), session
            else:
                action = memory.actions.get(match["did"].upper())
                if action is None:
                    memory.warnings.append(f"{where}: done of unknown action {match['did']}")
                    continue
                action.closed, action.note = session, (match["note"] or "").strip()
    if not memory.sessions:
        raise InputError(f"no session notes (YYYY-MM-DD.md) in {journal}")
    return memory


def entries(memory: Memory) -> dict[str, dict[str, tuple[str, str | None]]]:
    """Section -> key -> (text, person) as the rebuilt memory states them."""
    return {
        "decision": {k: (v.text, None) for k, v in memory.decisions.items()},
        "owner": {k: (v.text, None) for k, v in memory.owners.items()},
        "open": {a.aid: (a.task, a.owner) for a in memory.actions.values() if not a.closed},
        "closed": {a.aid: (a.task, a.owner) for a in memory.actions.values() if a.closed},
    }


def render(memory: Memory, template: str) -> str:
    def items(table: dict[str, Item]) -> str:
        lines = []
        for key in sorted(table):
            item = table[key]
            since = f"; replaces {item.history[-1][0]}" if item.history else ""
            lines.append(f"- **{key}**: {item.text} (session {item.session}{since})")
        return "\n".join(lines) or "- (none)"

    def actions(closed: bool) -> str:
        lines = []
        for aid in sorted(memory.actions, key=lambda a: (re.sub(r"\d", "", a), int(re.sub(r"\D", "", a)))):
            a = memory.actions[aid]
            if bool(a.closed) != closed:
                continue
            cite = f"closed {a.closed}" if a.closed else f"opened {a.opened}"
            if a.handed_from:
                cite += f"; reassigned {a.session}"
            note = f" - {a.note}" if a.note else ""
            lines.append(f"- **{aid}** [{a.owner}]: {a.task}{note} (session {cite})")
        return "\n".join(lines) or "- (none)"

    superseded = [
        f"- {label} **{key}**: {old} (session {when}; superseded)"
        for label, table in (("decision", memory.decisions), ("owner", memory.owners))
        for key in sorted(table)
        for when, old in table[key].history
    ]
    values = {
        "last_session": memory.sessions[-1],
        "decisions": items(memory.decisions),
        "owners": items(memory.owners),
        "open_actions": actions(closed=False),
        "closed_actions": actions(closed=True),
        "superseded": "\n".join(superseded) or "- (none)",
    }
    missing = [name for name in values if "{" + name + "}" not in template]
    if missing:
        raise InputError(f"template lacks placeholder(s): {', '.join(missing)}")
    out = template
    for name, value in values.items():
        out = out.replace("{" + name + "}", value)
    return out


def read_memory(text: str) -> dict[str, dict[str, tuple[str, str | None]]]:
    found: dict[str, dict[str, tuple[str, str | None]]] = {s: {} for s in SECTIONS.values()}
    section = None
    for line in text.splitlines():
        if line.startswith("## "):
            section = SECTIONS.get(line[3:].strip())
            continue
        match = MEMORY_ENTRY.match(line)
        if section and match:
            text_ = re.sub(r" - [^-]*$", "", match["text"]) if section == "closed" else match["text"]
            found[section][match["key"].strip()] = (text_.strip(), match["who"])
    return found


def compare(old: dict[str, dict[str, tuple[str, str | None]]], new: dict[str, dict[str, tuple[str, str | None]]]):
    stale = []
    for section in SECTIONS.values():
        for key in sorted(set(old[section]) | set(new[section])):
            was, now = old[section].get(key), new[section].get(key)
            if was == now:
                continue
            moved = next((s for s in SECTIONS.values() if s != section and key in new[s]), None)
            if was and not now and moved:
                continue  # reported under the section it moved to
            stale.append({"section": section, "key": key, "memory": fmt(was), "journal": fmt(now)})
    return stale


def fmt(entry: tuple[str, str | None] | None) -> str | None:
    if entry is None:
        return None
    return f"[{entry[1]}] {entry[0]}" if entry[1] else entry[0]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Rebuild MEMORY.md from dated session notes and list what the current memory file gets wrong.",
        epilog="Exit codes: 0 memory file current, 1 memory file stale, 2 usage or input error.",
    )
    parser.add_argument("--journal", required=True, type=Path, help="folder of YYYY-MM-DD.md session notes")
    parser.add_argument("--template", required=True, type=Path, help="memory file template")
    parser.add_argument("--memory", type=Path, help="the current memory file to check (optional)")
    parser.add_argument("--output", type=Path, help="write the rebuilt memory file here")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if not args.journal.is_dir():
            raise InputError(f"journal folder not found: {args.journal}")
        if not args.template.is_file():
            raise InputError(f"template not found: {args.template}")
        if args.memory is not None and not args.memory.is_file():
            raise InputError(f"memory file not found: {args.memory}")
        memory = replay(args.journal)
        rebuilt = render(memory, args.template.read_text(encoding="utf-8"))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    current = entries(memory)
    stale = compare(read_memory(args.memory.read_text(encoding="utf-8")), current) if args.memory else []
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(rebuilt, encoding="utf-8")
    summary: dict[str, Any] = {
        "sessions": memory.sessions,
        "decisions": len(memory.decisions),
        "superseded": sorted(f"{k} ({w})" for t in (memory.decisions,) for k in t for w, _ in t[k].history),
        "reassigned": sorted(
            [f"owner {k}" for k, v in memory.owners.items() if v.history]
            + [f"action {a.aid}" for a in memory.actions.values() if a.handed_from]
        ),
        "open_actions": sorted(current["open"]),
        "closed_actions": sorted(current["closed"]),
        "stale": stale,
        "warnings": memory.warnings,
    }
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print(f"sessions: {len(memory.sessions)} ({memory.sessions[0]} .. {memory.sessions[-1]})")
        print(f"open actions: {', '.join(summary['open_actions']) or '-'}; closed: "
              f"{', '.join(summary['closed_actions']) or '-'}")  # fmt: skip
        for s in stale:
            print(f"stale {s['section']} {s['key']}: memory says {s['memory']!r}, journal says {s['journal']!r}")
        for w in memory.warnings:
            print(f"warning: {w}")
    return EXIT_STALE if stale else EXIT_CURRENT


if __name__ == "__main__":
    sys.exit(main())

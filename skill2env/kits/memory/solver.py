"""Reference solver for the memory kit.

It reads the thread (the requester's questions, then the requester's own later changes to them; a
colleague's suggestions bind nothing), replays the whole journal in date order (daily notes and
session transcripts: owners, deadlines and decisions set and changed, action items opened, closed by
id or only in prose, reopened), answers the questions as of the last session in the conventions'
forms (handles, ISO dates, option codes, ids), and writes the memory file in the template's layout
(its headings in its order, front matter when the template has it), every current entry citing the
journal file of the session that set it. The memory store and its index are never trusted for values.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

DATE = r"(\d{4}-\d{2}-\d{2})"
CODE = r".*?\(`([\w-]+)`\)"
NOTE = r"(?:Remember: the|Please note for the memory: the|Please also remember that the) (.+?) is (\S+)\.$"
ROLE_OF = {"owner": "owners", "deadline": "deadlines", "decision": "decisions"}
PLACEHOLDER_ROLES = (
    ("<owner handle> (since", "owners"),
    ("<deadline>", "deadlines"),
    ("<chosen option code>", "decisions"),
    ("<action id>", "open"),
    ("<note>", "notes"),
    ("<old value>", "superseded"),
)


def journal() -> list[tuple[str, str, str]]:
    """(journal file, session date, line) in date order."""
    lines = []
    for path in rt.files("journal/*"):
        day = path.stem
        if path.suffix == ".jsonl":
            for raw in rt.read_text(path).splitlines():
                if raw.strip():
                    lines.append((rt.rel(path), day, str(json.loads(raw).get("text", ""))))
        else:
            for raw in rt.read_text(path).splitlines():
                if raw.startswith("- "):
                    lines.append((rt.rel(path), day, raw[2:].strip()))
    return lines


def replay(lines: list[tuple[str, str, str]]) -> dict[str, Any]:
    workstreams = sorted({m.group(1) for _, _, t in lines if (m := re.match(r"Owner of (.+?): ", t))}, key=len)
    topics = sorted({m.group(1) for _, _, t in lines if (m := re.match(r"Decision on (.+?): ", t))}, key=len)
    values: dict[str, dict[str, str]] = {"owners": {}, "deadlines": {}, "decisions": {}, "notes": {}}
    sources: dict[str, tuple[str, str]] = {}
    history: list[str] = []
    actions: dict[str, dict[str, str]] = {}
    opened: set[str] = set()

    def put(role: str, subject: str, value: str, path: str, day: str) -> None:
        old = values[role].get(subject)
        if old is not None and old != value:
            history.append(f"- {role} of {subject}: {old} (superseded {day})")
        values[role][subject] = value
        sources[f"{role}/{subject}"] = (path, day)

    for path, day, text in lines:
        for ws in workstreams:
            w = re.escape(ws)
            for pattern in (rf"^Owner of {w}: .*?@(\w+)", rf"The {w} work is reassigned to .*?@(\w+)",
                            rf"@(\w+)\) is taking over the {w} work"):  # fmt: skip
                if found := re.search(pattern, text):
                    put("owners", ws, "@" + found.group(1), path, day)
            for pattern in (rf"^Deadline for {w}: {DATE}", rf"The {w} deadline moves to {DATE}",
                            rf"\b{w} slips to {DATE}"):  # fmt: skip
                if found := re.search(pattern, text):
                    put("deadlines", ws, found.group(1), path, day)
        for topic in topics:
            t = re.escape(topic)
            for pattern in (rf"^Decision on {t}:{CODE}", rf"reversed the {t} call:{CODE}",
                            rf"switch the {t} decision to{CODE}"):  # fmt: skip
                if found := re.search(pattern, text):
                    put("decisions", topic, found.group(1), path, day)
        if found := re.match(r"Action (A-\d+) \((.+?)\) goes to .*?@(\w+)", text):
            actions[found.group(1)] = {"desc": found.group(2), "owner": "@" + found.group(3)}
            opened.add(found.group(1))
            sources["open/" + found.group(1)] = (path, day)
        closed = re.match(r"(A-\d+) is done\.", text) or re.match(r"Closed (A-\d+)\b", text)
        target = closed.group(1) if closed else None
        if implicit := re.search(r"work on the (.+?) was finished", text):
            target = next((a for a, v in actions.items() if v["desc"].endswith(implicit.group(1))), None)
        if target and target in opened:
            opened.discard(target)
            history.append(f"- open item {target}: closed (superseded {day})")
        if found := re.search(NOTE, text):
            put("notes", found.group(1), found.group(2), path, day)
        if (found := re.match(r"Forget what I said about the (.+?):", text)) and found.group(1) in values["notes"]:
            history.append(f"- note on {found.group(1)}: {values['notes'].pop(found.group(1))} (superseded {day})")
        if found := re.match(r"Reopening (A-\d+)", text):
            opened.add(found.group(1))
            sources["open/" + found.group(1)] = (path, day)
    values["open"] = {a: actions[a]["owner"] for a in sorted(opened)}
    return {"values": values, "sources": sources, "history": history, "actions": actions}


def thread() -> list[tuple[str, str, str]]:
    """The thread's messages: (sender, date, text), the request first."""
    text = rt.read_text(rt.workspace() / "requests" / "thread.md")
    messages = []
    for part in re.split(r"^---$", text, flags=re.M):
        sender, day = re.search(r"^From:\s*(.+)$", part, re.M), re.search(r"^Date:\s*(\S+)", part, re.M)
        if sender and day:
            messages.append((sender.group(1).strip(), day.group(1), part))
    return messages


def requests(messages: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The requester's later messages as (file, date, line), to replay after the journal."""
    requester = messages[0][0]
    return [
        ("requests/thread.md", day, raw.strip())
        for sender, day, text in messages[1:]
        if sender == requester
        for raw in text.split("\n\n", 1)[-1].splitlines()
        if raw.strip()
    ]


def questions(messages: list[tuple[str, str, str]]) -> dict[int, tuple[str, str]]:
    """Question number → (kind, subject), with the requester's later changes applied."""
    requester = messages[0][0]
    asked: dict[int, tuple[str, str]] = {}
    for number, question in re.findall(r"^(\d+)\. (.+)$", messages[0][2], re.M):
        for kind, pattern in (("owner", r"Who owns the (.+?) work now"), ("deadline", r"current deadline for (.+?)\?"),
                              ("decision", r"binds now for the (.+?) decision"), ("open", r"still open")):  # fmt: skip
            if found := re.search(pattern, question):
                asked[int(number)] = (kind, found.group(1) if found.groups() else "")
                break
    for sender, _, later in messages[1:]:
        if sender != requester:
            continue
        for number, subject in re.findall(
            r"[Qq]uestion (\d+)[:,]\s*(?:make that|please switch to) (.+?)(?: instead of .+?)?\.\s*$", later, re.M
        ):
            kind, _ = asked[int(number)]
            asked[int(number)] = (kind, subject.strip())
    return asked


def template() -> tuple[list[str], list[tuple[str, str]]]:
    """The template's lines before its first section, and its (heading, role) sections in order."""
    text = rt.read_text(rt.workspace() / "memory" / "TEMPLATE.md")
    block = re.search(r"```(?:markdown)?\n(.*?)```", text, re.S)
    body = block.group(1) if block else text
    head = body.split("\n## ", 1)[0].splitlines()
    sections = []
    for part in re.split(r"^## ", body, flags=re.M)[1:]:
        heading, _, rest = part.partition("\n")
        role = next((r for marker, r in PLACEHOLDER_ROLES if marker in rest), "other")
        sections.append((heading.strip(), role))
    return head, sections


def main() -> None:
    lines, messages = journal(), thread()
    state = replay(lines + requests(messages))
    values, sources = state["values"], state["sources"]
    answers: dict[str, Any] = {}
    for number, (kind, subject) in sorted(questions(messages).items()):
        answers[f"q{number}"] = sorted(values["open"]) if kind == "open" else values[ROLE_OF[kind]][subject]
    rt.write_json("answers.json", answers)
    if rt.partial_mode():
        return
    last = max(day for _, day, _ in lines)
    title = re.search(r"^# Project memory: (.+)$", rt.read_text(rt.workspace() / "MEMORY.md"), re.M)
    project = title.group(1).strip() if title else ""
    head, sections = template()
    out = [ln.replace("<project>", project).replace("<YYYY-MM-DD>", last) for ln in head]
    while out and not out[-1].strip():
        out.pop()
    for heading, role in sections:
        out += ["", f"## {heading}", ""]
        if role == "superseded":
            entries = state["history"]
        elif role in values:
            entries = []
            for subject, value in values[role].items():
                path, day = sources[f"{role}/{subject}"]
                what = f" — {state['actions'][subject]['desc']}" if role == "open" else ""
                entries.append(f"- {subject}: {value}{what} (since {day}, source: {path})")
        else:
            entries = []
        out += entries or ["- (none)"]
    rt.write_text("MEMORY.md", "\n".join(out) + "\n")


if __name__ == "__main__":
    main()

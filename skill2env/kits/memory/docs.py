"""Render the memory world: the journal (Markdown daily notes and JSONL session transcripts), the
requester's thread, the team roster, and the memory store (MEMORY.md, its index, its template and
its conventions)."""

from __future__ import annotations

import json
from datetime import date

from skill2env.kits import render as r
from skill2env.kits.memory.world import CONSOLIDATED, THREAD, Event, Message, World, ordered, state_at
from skill2env.kits.spec import Workspace

MEMORY = "MEMORY.md"
INDEX = "memory/index.json"
TEMPLATE = "memory/TEMPLATE.md"
CONVENTIONS = "memory/CONVENTIONS.md"
CHECKPOINT = "memory/consolidation.json"
TEAM = "team.md"
CHATTER = (
    "Standup ran long; nothing else to note.",
    "Reviewed the dashboard numbers together.",
    "Pairing session on the flaky integration tests.",
    "Walked the new joiner through the repository layout.",
    "Short retro: fewer meetings next week.",
    "The CI queue was slow again this afternoon.",
    "Demo prepared for Friday.",
)
WHAT = {"owners": "owner of", "deadlines": "deadline of", "decisions": "decision on", "open": "open item",
        "notes": "note on"}  # fmt: skip
TITLE = "# Project memory: <project>"
PLACEHOLDERS = {
    "owners": "- <workstream>: <owner handle> (since <YYYY-MM-DD>, source: <journal file>)",
    "deadlines": "- <workstream>: <deadline> (since <YYYY-MM-DD>, source: <journal file>)",
    "decisions": "- <decision topic>: <chosen option code> (since <YYYY-MM-DD>, source: <journal file>)",
    "open": "- <action id>: <owner handle> — <action> (since <YYYY-MM-DD>, source: <journal file>)",
    "notes": "- <note>: <value> (since <YYYY-MM-DD>, source: <journal file or request thread>)",
    "superseded": "- <what>: <old value> (superseded <YYYY-MM-DD>)",
}


def who(world: World, handle: str) -> str:
    person = world.person(handle)
    return f"{person.name} (@{handle})"


def option(world: World, topic: str, code: str) -> str:
    return f"{world.option_label(topic, code)} (`{code}`)"


def line(world: World, event: Event) -> str:
    """An event as the journal phrases it."""
    s, v, style = event.subject, event.value, event.style
    if event.kind == "owner":
        phrasings = (
            f"Owner of {s}: {who(world, v)}.",
            f"The {s} work is reassigned to {who(world, v)}.",
            f"Heads-up: {who(world, v)} is taking over the {s} work.",
        )
        return phrasings[style]
    if event.kind == "deadline":
        phrasings = (
            f"Deadline for {s}: {v}.",
            f"The {s} deadline moves to {v}.",
            f"Heads-up: {s} slips to {v}, agreed with the client.",
        )
        return phrasings[style]
    if event.kind == "decision":
        chosen = option(world, s, v)
        phrasings = (
            f"Decision on {s}: {chosen}.",
            f"We reversed the {s} call: going with {chosen}.",
            f"After the review we switch the {s} decision to {chosen}.",
        )
        return phrasings[style]
    action = world.action(s) if s.startswith("A-") else None
    if event.kind == "open" and action:
        return f"Action {s} ({action.desc}) goes to {who(world, v)}."
    if event.kind == "close" and action:
        return f"{s} is done." if style != 2 else f"Closed {s} ({action.desc})."
    if event.kind == "close_implicit" and action:
        return f"By the way, the work on the {action.thing} was finished on {v}."
    if event.kind == "proposal":
        if style == 1:
            return f"Could we go with {option(world, s, v)} for the {s}? Let's talk it through next week."
        return f"Proposal from the design review: move the {s} decision to {option(world, s, v)}? Not decided yet."
    if event.kind == "note":
        if style == 1:
            return f"Please note for the memory: the {s} is {v}."
        return f"Remember: the {s} is {v}."
    if event.kind == "forget":
        return f"Forget what I said about the {s}: it no longer applies."
    if event.kind == "reopen":
        return f"Reopening {s}: the earlier fix did not hold."
    if event.kind == "confirm_owner":
        return f"{who(world, v)} still owns the {s} work."
    if event.kind == "confirm_deadline":
        return f"The {s} deadline stays {v}."
    if event.kind == "confirm_decision":
        return f"No change on {s}: still {option(world, s, v)}."
    return f"{s} is still in progress."


def journal(world: World, ws: Workspace) -> None:
    events = ordered(world)
    for session, day in enumerate(world.days):
        rng = world.rng
        lines = [line(world, e) for e in events if e.session == session]
        for _ in range(2):
            lines.insert(rng.randint(0, len(lines)), rng.choice(CHATTER))
        if world.formats[session] == "md":
            text = f"# Daily notes — {day.isoformat()}\n\nProject: {world.project}\n\n"
            ws.add_text(world.path(session), text + "".join(f"- {x}\n" for x in lines))
        else:
            records = [
                {"ts": f"{day.isoformat()}T{9 + n // 4:02d}:{(n * 13) % 60:02d}:00",
                 "speaker": rng.choice(world.team).name, "text": x}
                for n, x in enumerate(lines)
            ]  # fmt: skip
            ws.add_text(world.path(session), "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in records))


def question_text(world: World) -> list[str]:
    lines = []
    for n, q in enumerate(world.questions, 1):
        lines.append({
            "owner": f"{n}. Who owns the {q.subject} work now?",
            "deadline": f"{n}. What is the current deadline for {q.subject}?",
            "decision": f"{n}. Which option binds now for the {q.subject} decision?",
            "open": f"{n}. Which action items are still open?",
        }[q.kind])  # fmt: skip
    return lines


def message(msg: Message, subject: str) -> str:
    return (
        f"---\nFrom: {msg.sender.name} <{msg.sender.handle}@example.com>\nDate: {msg.day.isoformat()}\n"
        f"Subject: {subject}\n\n{msg.text}\n"
    )


def thread(world: World) -> str:
    first = Message(world.requester, world.days[-1], "\n".join([
        "Hi, before the steering meeting I need a few answers from the project memory:", "",
        *question_text(world), "", "Please also bring the memory file up to date while you are at it.",
    ]))  # fmt: skip
    parts = [f"# Thread: where things stand on {world.project}\n", message(first, "Where do things stand?")]
    parts += [message(m, "Re: Where do things stand?") for m in world.thread]
    return "\n".join(parts)


def human_date(text: str) -> str:
    day = date.fromisoformat(text)
    return f"{day.day} {day.strftime('%B %Y')}"


def store_entries(world: World, session: int) -> dict[str, list[str]]:
    """The memory store's lines per role as consolidated at `session`, in the store's own forms."""
    state = state_at(world, session)
    for key, (value, at) in world.misread.items():
        role, subject = key.split("/", 1)
        if state.sources[key] <= at <= session:
            getattr(state, role)[subject] = value
            state.sources[key] = at

    def owner(handle: str) -> str:
        return world.person(handle).name if world.store_names else "@" + handle

    def when(text: str) -> str:
        return human_date(text) if world.store_dates else text

    def cite(key: str) -> str:
        at = state.sources[key]
        return f"(since {when(world.days[at].isoformat())}, source: {world.path(at)})"

    labels = {t: world.option_label(t, c) if world.store_labels else c for t, c in state.decisions.items()}
    return {
        "owners": [f"- {k}: {owner(v)} {cite('owners/' + k)}" for k, v in state.owners.items()],
        "deadlines": [f"- {k}: {when(v)} {cite('deadlines/' + k)}" for k, v in state.deadlines.items()],
        "decisions": [f"- {k}: {labels[k]} {cite('decisions/' + k)}" for k in state.decisions],
        "open": [f"- {k}: {owner(v)} — {world.action(k).desc} {cite('open/' + k)}" for k, v in state.open.items()],
        "notes": [f"- {k}: {v} {cite('notes/' + k)}" for k, v in state.notes.items()],
        "superseded": [
            f"- {WHAT[role]} {subject}: {old} (superseded {world.days[at].isoformat()})"
            for role, subject, old, at in state.history
        ],
    }


def memory_file(world: World) -> str:
    lines = [f"# Project memory: {world.project}", "", f"Last consolidated: {world.days[CONSOLIDATED].isoformat()}"]
    found = store_entries(world, CONSOLIDATED)
    for role, subject, session in world.half_applied:
        found[role] += [x for x in store_entries(world, session)[role] if x.startswith(f"- {subject}: ")]
    for role, heading in world.layout:
        lines += ["", f"## {heading}", "", *(found[role] or ["- (none)"])]
    return "\n".join(lines) + "\n"


def checkpoint(world: World) -> str:
    marker = world.checkpoint or {"status": "completed", "applied_through": world.days[CONSOLIDATED].isoformat()}
    return json.dumps({"job": "memory consolidation", **marker}, indent=2) + "\n"


def index(world: World) -> str:
    state = state_at(world, world.index_at)
    found = store_entries(world, world.index_at)
    data: dict[str, object] = {"built_at": world.days[world.index_at].isoformat()} if world.index_dated else {}
    records = []
    for role, kind, values in (("owners", "owner", state.owners), ("deadlines", "deadline", state.deadlines),
                               ("decisions", "decision", state.decisions)):  # fmt: skip
        for n, subject in enumerate(values):
            value = found[role][n].split(": ", 1)[1].split(" (since ")[0]
            at = state.sources[f"{role}/{subject}"]
            records.append({"key": f"{kind}/{subject}", "value": value, "updated": world.days[at].isoformat(),
                            "source": world.path(at)})  # fmt: skip
    data["entries"] = records
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def template(world: World) -> str:
    meta = ["---", "project: <project>", "consolidated: <YYYY-MM-DD>", "---", ""]
    dated = ["", "Last consolidated: <YYYY-MM-DD>"]
    head = [*meta, TITLE] if world.front_matter else [TITLE, *dated]
    body = [*head]
    for role, heading in world.template:
        body += ["", f"## {heading}", "", PLACEHOLDERS[role]]
    revised = f" (revised {world.template_date})" if world.template_date else ""
    return "\n".join([
        f"# Memory file template{revised}", "",
        "The memory file follows this layout exactly: the tools that read it find the sections by their "
        "headings, in this order, and read each entry line as shown. Keep every section, even an empty one.", "",
        "```markdown", *body, "```", "",
    ])  # fmt: skip


def conventions() -> str:
    return """# Memory conventions

- Owners are written as the person's handle with its `@` (for example `@jdoe`), as listed in `team.md`.
- Dates are written `YYYY-MM-DD`.
- A decision is written as the chosen option's code (the word in backticks in the journal), not its label.
- Action items are named by their id (`A-01`).
- Every current entry ends with `(since <date the value took effect>, source: <journal file that set it>)`.
- A value that was replaced moves to the Superseded section; a current section holds only what is true now.
- An action item that is done leaves the open items.
- Only a decision recorded as taken binds; a proposal or a question in a session binds nothing.
"""


def render_world(world: World) -> Workspace:
    ws = Workspace()
    journal(world, ws)
    ws.add_text(THREAD, thread(world))
    rows = [[p.name, "@" + p.handle] for p in [world.requester, world.colleague, *world.team]]
    ws.add_text(TEAM, f"# Team: {world.project}\n\n" + r.markdown_table(["Name", "Handle"], rows))
    ws.add_text(MEMORY, memory_file(world))
    ws.add_text(INDEX, index(world))
    ws.add_text(TEMPLATE, template(world))
    ws.add_text(CONVENTIONS, conventions())
    ws.add_text(CHECKPOINT, checkpoint(world))
    return ws

"""The memory world: a project's journal (daily notes and session transcripts), its team, and the
memory store that was consolidated from the journal some sessions ago.

The journal's events set and change the project's state: who owns each workstream, each
workstream's deadline, the option chosen for each open decision, and the action items (opened,
closed, reopened). `state_at` replays the events up to a session; the memory store (`MEMORY.md`)
is the state at the consolidation session and its index (`memory/index.json`) the state at the
session it was built. The base world changes nothing after the consolidation; the patterns add the
changes (a later reversal, an implicit closure, a stale index, a revised request, a new template or
conventions the store does not follow yet). Every expected value is computed from the events.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from skill2env.kits.spec import seeded

PROJECTS = ("Harbor data platform", "Atlas mobile relaunch", "Ledger billing rewrite", "Beacon support portal")
PEOPLE = (
    ("Kim Lee", "klee"),
    ("Ravi Menon", "rmenon"),
    ("Ana Souza", "asouza"),
    ("Tom Berg", "tberg"),
    ("Mia Chen", "mchen"),
    ("Omar Haddad", "ohaddad"),
    ("Lena Vogel", "lvogel"),
    ("Sam Ortiz", "sortiz"),
)
WORKSTREAMS = ("data export", "login flow", "billing page", "search service", "audit report", "mobile release")
DECISIONS = (
    ("database", (("managed-postgres", "managed PostgreSQL"), ("self-hosted-mysql", "self-hosted MySQL"),
                  ("sqlite-edge", "SQLite at the edge"))),
    ("auth provider", (("keycloak", "Keycloak"), ("auth0", "Auth0"), ("cognito", "Amazon Cognito"))),
    ("release cadence", (("weekly", "weekly releases"), ("biweekly", "releases every two weeks"),
                         ("monthly", "monthly releases"))),
    ("frontend framework", (("react", "React"), ("svelte", "Svelte"), ("vue", "Vue"))),
)  # fmt: skip
ACTIONS = (
    ("rotate the API keys", "API keys"),
    ("write the rollback runbook", "rollback runbook"),
    ("book the load test", "load test"),
    ("review the vendor contract", "vendor contract"),
    ("update the privacy notice", "privacy notice"),
    ("set up the error alerts", "error alerts"),
    ("migrate the staging database", "staging database"),
)
"""(description, the thing it is about: how a later session names it without its id)."""
NOTES = (
    ("staging URL", ("https://staging-3.example.com", "https://staging-7.example.com", "https://stg.example.net")),
    ("standup time", ("09:30", "10:00", "09:15")),
    ("release branch", ("release/2024.3", "release/2024.4", "release/next")),
    ("support inbox", ("support@example.com", "help@example.com", "care@example.com")),
    ("VPN profile", ("eu-west-2", "us-east-1", "ap-south-1")),
    ("status page", ("status.example.com", "health.example.com", "uptime.example.com")),
)
"""Standing notes the team asks the memory to keep: (key, the values it may take)."""
THREAD = "requests/thread.md"
SESSIONS = 8
CONSOLIDATED = 4
"""The session (0-based) the memory store was last consolidated at; later sessions are not in it."""
ROLES = ("owners", "deadlines", "decisions", "open", "notes", "superseded")
HEADINGS = {"owners": "Owners", "deadlines": "Deadlines", "decisions": "Decisions", "open": "Open items",
            "notes": "Standing notes", "superseded": "Superseded"}  # fmt: skip


@dataclass(frozen=True)
class Person:
    name: str
    handle: str


@dataclass(frozen=True)
class Action:
    id: str
    desc: str
    thing: str


@dataclass
class Event:
    session: int
    """The journal session (0-based); one past the last for a request in the thread."""
    kind: str
    """owner, deadline, decision, open, close, close_implicit, reopen, note, forget, or (changing nothing)
    proposal and confirm_*."""
    subject: str
    value: str = ""
    style: int = 0
    """Which phrasing the journal uses (0 the plain form of the first session)."""


@dataclass
class Question:
    kind: str
    """owner, deadline, decision or open."""
    subject: str


@dataclass
class Message:
    sender: Person
    day: date
    text: str


@dataclass
class World:
    seed: int
    rng: random.Random
    project: str
    requester: Person
    colleague: Person
    team: list[Person]
    workstreams: list[str]
    topics: list[str]
    notes: list[str]
    """The standing notes' keys this project can use (the first ones set at the start)."""
    actions: list[Action]
    days: list[date]
    formats: list[str]
    """Per session: 'md' (daily notes) or 'jsonl' (a session transcript)."""
    events: list[Event] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    """As the requester's first message asks them."""
    revisions: list[tuple[int, str]] = field(default_factory=list)
    """(question number, new subject) from the requester's later messages, in order."""
    thread: list[Message] = field(default_factory=list)
    """Later messages (after the first), in order."""
    index_at: int = CONSOLIDATED
    index_dated: bool = True
    store_names: bool = False
    """The store writes owners as full names (the conventions want handles)."""
    store_dates: bool = False
    store_labels: bool = False
    layout: list[tuple[str, str]] = field(default_factory=list)
    """The store's (role, heading) order as MEMORY.md has it."""
    template: list[tuple[str, str]] = field(default_factory=list)
    """The (role, heading) order the template wants."""
    front_matter: bool = False
    template_date: str = ""
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → rubric item ids whose result its trap changes."""
    half_applied: list[tuple[str, str, int]] = field(default_factory=list)
    """(role, subject, session): entries an interrupted consolidation appended to MEMORY.md without
    removing the entry they replace."""
    misread: dict[str, tuple[str, int]] = field(default_factory=dict)
    """'<role>/<subject>' → (value, session): a proposal the consolidation took for a decision."""
    checkpoint: dict[str, str] = field(default_factory=dict)
    """The consolidation run's progress marker (`memory/consolidation.json`)."""

    def person(self, handle: str) -> Person:
        return next(p for p in self.team if p.handle == handle)

    def action(self, action_id: str) -> Action:
        return next(a for a in self.actions if a.id == action_id)

    def path(self, session: int) -> str:
        if session > self.last:
            return THREAD
        return f"journal/{self.days[session].isoformat()}.{self.formats[session]}"

    @property
    def last(self) -> int:
        return len(self.days) - 1

    def tag(self, pattern: str, *items: str) -> None:
        self.tags.setdefault(pattern, set()).update(items)

    def option_label(self, topic: str, code: str) -> str:
        options = dict(next(o for t, o in DECISIONS if t == topic))
        return options[code]

    def note_values(self, key: str) -> list[str]:
        return list(dict(NOTES)[key])

    def options(self, topic: str) -> list[str]:
        return [code for code, _ in next(o for t, o in DECISIONS if t == topic)]

    def asked(self) -> list[Question]:
        """The questions after the requester's revisions."""
        result = [Question(q.kind, q.subject) for q in self.questions]
        for number, subject in self.revisions:
            result[number - 1].subject = subject
        return result


def generate(seed: int, salt: int) -> World:
    rng = seeded("memory", seed, salt)
    people = [Person(n, h) for n, h in PEOPLE]
    rng.shuffle(people)
    start = date(2024, rng.randint(2, 9), rng.randint(1, 20))
    days = [start]
    for _ in range(SESSIONS - 1):
        days.append(days[-1] + timedelta(days=rng.randint(1, 3)))
    workstreams = rng.sample(WORKSTREAMS, 4)
    topics = rng.sample([t for t, _ in DECISIONS], 3)
    actions = [Action(f"A-{n:02d}", d, t) for n, (d, t) in enumerate(rng.sample(ACTIONS, 5), 1)]
    formats = ["md", *(rng.choice(("md", "jsonl")) for _ in range(SESSIONS - 1))]
    notes = rng.sample([key for key, _ in NOTES], 4)
    world = World(seed, rng, rng.choice(PROJECTS), people[0], people[1], people[2:], workstreams, topics, notes,
                  actions, days, formats)  # fmt: skip
    handles = [p.handle for p in world.team]
    for ws in workstreams:
        world.events.append(Event(0, "owner", ws, rng.choice(handles)))
        world.events.append(Event(0, "deadline", ws, (start + timedelta(days=rng.randint(20, 60))).isoformat()))
    for topic in topics:
        world.events.append(Event(0, "decision", topic, rng.choice(world.options(topic))))
    for action in actions:
        world.events.append(Event(0, "open", action.id, rng.choice(handles)))
    for key in notes[:2]:
        world.events.append(Event(rng.randint(0, CONSOLIDATED), "note", key, rng.choice(world.note_values(key))))
    for session in range(1, CONSOLIDATED):
        change(world, session, rng.choice(("owner", "deadline", "decision")), rng.choice((1, 2)))
    for action_id in rng.sample([a.id for a in actions], 2):
        world.events.append(Event(rng.randint(1, CONSOLIDATED), "close", action_id, style=rng.choice((1, 2))))
    world.questions = [
        Question("owner", workstreams[0]),
        Question("deadline", workstreams[1]),
        Question("decision", topics[0]),
        Question("open", ""),
    ]
    world.layout = [(role, HEADINGS[role]) for role in ROLES]
    world.template = list(world.layout)
    return world


def change(world: World, session: int, kind: str, style: int, subject: str = "") -> Event:
    """A new value for a subject (differing from its current one), recorded at `session`."""
    rng, state = world.rng, state_at(world, session)
    if kind == "owner":
        subject = subject or rng.choice(world.workstreams)
        value = rng.choice([p.handle for p in world.team if p.handle != state.owners[subject]])
    elif kind == "deadline":
        subject = subject or rng.choice(world.workstreams)
        value = (date.fromisoformat(state.deadlines[subject]) + timedelta(days=rng.randint(5, 25))).isoformat()
    else:
        subject = subject or rng.choice(world.topics)
        value = rng.choice([c for c in world.options(subject) if c != state.decisions[subject]])
    event = Event(session, kind, subject, value, style)
    world.events.append(event)
    return event


# -- the truth --------------------------------------------------------------------------------------


@dataclass
class State:
    owners: dict[str, str] = field(default_factory=dict)
    deadlines: dict[str, str] = field(default_factory=dict)
    decisions: dict[str, str] = field(default_factory=dict)
    open: dict[str, str] = field(default_factory=dict)
    """Open action id → owner handle."""
    notes: dict[str, str] = field(default_factory=dict)
    sources: dict[str, int] = field(default_factory=dict)
    """'<role>/<subject>' → the session that set the current value."""
    history: list[tuple[str, str, str, int]] = field(default_factory=list)
    """(role, subject, superseded value, session it was superseded at)."""


def ordered(world: World) -> list[Event]:
    return sorted(world.events, key=lambda e: e.session)


def state_at(world: World, session: int) -> State:
    """The project's state after every event up to and including `session`."""
    state, owners_of_actions = State(), {}
    roles = {"owner": ("owners", state.owners), "deadline": ("deadlines", state.deadlines),
             "decision": ("decisions", state.decisions)}  # fmt: skip
    for event in ordered(world):
        if event.session > session:
            break
        if event.kind in roles:
            role, values = roles[event.kind]
            if event.subject in values:
                state.history.append((role, event.subject, values[event.subject], event.session))
            values[event.subject] = event.value
            state.sources[f"{role}/{event.subject}"] = event.session
        elif event.kind == "open":
            owners_of_actions[event.subject] = event.value
            state.open[event.subject] = event.value
            state.sources[f"open/{event.subject}"] = event.session
        elif event.kind in ("close", "close_implicit") and event.subject in state.open:
            del state.open[event.subject]
            state.history.append(("open", event.subject, "closed", event.session))
        elif event.kind == "note":
            if event.subject in state.notes:
                state.history.append(("notes", event.subject, state.notes[event.subject], event.session))
            state.notes[event.subject] = event.value
            state.sources[f"notes/{event.subject}"] = event.session
        elif event.kind == "forget" and event.subject in state.notes:
            state.history.append(("notes", event.subject, state.notes.pop(event.subject), event.session))
        elif event.kind == "reopen":
            state.open[event.subject] = owners_of_actions[event.subject]
            state.sources[f"open/{event.subject}"] = event.session
    state.open = dict(sorted(state.open.items()))
    return state


def final(world: World) -> State:
    """The state after the last session and the requests in the thread."""
    return state_at(world, world.last + 1)


def answers(world: World) -> dict[str, object]:
    """Question key → the expected answer, in the conventions' forms."""
    state = final(world)
    result: dict[str, object] = {}
    for number, question in enumerate(world.asked(), 1):
        if question.kind == "owner":
            result[f"q{number}"] = "@" + state.owners[question.subject]
        elif question.kind == "deadline":
            result[f"q{number}"] = state.deadlines[question.subject]
        elif question.kind == "decision":
            result[f"q{number}"] = state.decisions[question.subject]
        else:
            result[f"q{number}"] = sorted(state.open)
    return result


def entries(world: World, role: str) -> dict[str, dict[str, str]]:
    """A current section's expected entries: subject → its value (conventions' form) and source file."""
    state = final(world)
    values = {"owners": {k: "@" + v for k, v in state.owners.items()}, "deadlines": state.deadlines,
              "decisions": state.decisions, "open": {k: "@" + v for k, v in state.open.items()},
              "notes": state.notes}[role]  # fmt: skip
    return {k: {"value": v, "source": world.path(state.sources[f"{role}/{k}"])} for k, v in values.items()}

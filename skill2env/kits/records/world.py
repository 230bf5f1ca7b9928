"""The personal-records world: one person's birthdays list, contacts, task tracker and focus-session log,
as an assistant keeps them, on a fixed "today".

The birthdays are people with a birth month and day and sometimes a year; what the list shows of them
(entries, sections, date formats, "turns N" notes) is derived in `docs.py` from `entries`. The tasks are
rows of the tracker's `tasks` table; the focus log is sessions of work on goals, each a run of focused
and paused stretches between real instants. The patterns change what is written (imported sections in
other date formats, stale age notes, duplicate entries under a nickname, 29 February birthdays, another
person's or deleted rows, sentinel values, clock changes and a rotated log). The `expected_*` functions
compute every checked result from the world itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone

from skill2env.kits.spec import seeded

OWNERS = (("Nora Lindqvist", "nora"), ("Jonas Weber", "jonas"), ("Priya Raman", "priya"), ("Tomás Ortega", "tomas"))
PARTNERS = (("Malte Berg", "malte"), ("Ines Costa", "ines"), ("Devon Park", "devon"))
FIRST = (
    ("Katherine", "Kate"), ("William", "Bill"), ("Robert", "Bobby"), ("Elizabeth", "Liz"), ("Alexander", "Sasha"),
    ("Margaret", "Maggie"), ("Jonathan", "Jonny"), ("Theodore", "Teddy"), ("Valentina", "Vale"), ("Matthias", "Matze"),
    ("Charlotte", "Lotte"), ("Benjamin", "Ben"), ("Francesca", "Frankie"), ("Dominik", "Dom"), ("Isabella", "Bella"),
    ("Leonard", "Leo"), ("Josephine", "Josie"), ("Nikolai", "Kolya"),
)  # fmt: skip
LAST = ("Miller", "Hoffmann", "Nakamura", "Okafor", "Duarte", "Kowalski", "Brennan", "Sato", "Lindgren", "Moreau",
        "Schulz", "Ferreira", "Haddad", "Novak")  # fmt: skip
SECTIONS = ("Family", "Friends", "Work")
GOALS = ("thesis chapter draft", "tax return", "guitar practice", "portfolio website", "spanish course")
TASK_TITLES = (
    "Renew passport", "Book dentist appointment", "Pay electricity bill", "Call the landlord about the heater",
    "Return library books", "Submit expense report", "Order birthday present", "Back up the laptop",
    "Cancel old gym membership", "Fix the bike brakes", "Write thank-you notes", "Update CV",
    "Plan weekend trip", "Repot the plants", "Reply to the school newsletter", "Sort the tax receipts",
    "Schedule car service", "Clean out the garage", "Buy a new desk lamp", "Review insurance policy",
    "Sign up for the 10k run", "Donate old clothes", "Print photos for the album", "Set up the new router",
)  # fmt: skip
TAGS = ("home", "admin", "health", "money", "family", "errand", "work")
LOCAL = timezone(timedelta(hours=1))
"""The person's clock (UTC+01:00) unless a pattern moves it."""


@dataclass
class Person:
    name: str
    nickname: str
    month: int
    day: int
    year: int | None
    section: str


@dataclass
class Entry:
    """One line of the birthdays list."""

    person: int
    written_name: str
    form: str
    """dotted (DD.MM.YYYY / DD.MM.), iso (YYYY-MM-DD), us (MM/DD/YYYY / MM/DD) or words (Feb 14)."""
    section: str
    note: int | None = None
    """A "turns N" note written next to the entry (None: no note)."""
    german: bool = False
    """The note written as the skill's "(wird N)"."""
    year_shown: bool = True
    """False: the entry leaves out the person's year (another entry may give it)."""


@dataclass
class Task:
    id: int
    title: str
    tags: list[str]
    status: str
    priority: int
    due: date | None
    completed: datetime | None
    created: datetime
    owner: str
    deleted: datetime | None = None
    due_text: str | None = None
    """A sentinel written in due_date instead of the date (the date is then None)."""


@dataclass
class Event:
    at: datetime
    """The real instant (aware)."""
    kind: str
    """start, pause, resume or stop."""
    goal: str
    device: str = "laptop"
    offset: timedelta = timedelta(hours=1)
    """The offset of the clock that wrote the event."""
    style: str = "offset"
    """How its timestamp is written: offset (+01:00), z (UTC with Z) or bare (UTC without an offset)."""


@dataclass
class Session:
    goal: str
    events: list[Event]


@dataclass
class World:
    seed: int
    rng: random.Random
    owner: tuple[str, str]
    partner: tuple[str, str]
    today: date
    window: int
    leap_rule: str
    """mar1 or feb28: when a 29 February birthday is celebrated in other years."""
    people: list[Person]
    entries: list[Entry]
    tasks: list[Task]
    sessions: list[Session]
    levels: dict[str, int] = field(default_factory=dict)
    harmful: set[str] = field(default_factory=set)
    imported: str = ""
    """The imported section's date form (iso, us, words) and its heading; '' without one."""
    notes_dated: date | None = None
    """The date the age notes were written, when the list says it."""
    owner_column: bool = False
    shared_tag: bool = False
    deleted_column: bool = False
    sentinels: list[str] = field(default_factory=list)
    """The README's sentinel rules in force (someday, priority0, blank)."""
    rotated: bool = False
    gzipped: bool = False
    phone_utc_bare: bool = False

    @property
    def monday(self) -> date:
        return self.today - timedelta(days=self.today.weekday())

    @property
    def goals(self) -> list[str]:
        return sorted({s.goal for s in self.sessions})


def celebrated(person: Person, year: int, leap_rule: str) -> date:
    """The day `person`'s birthday falls on in `year`."""
    if (person.month, person.day) == (2, 29):
        try:
            return date(year, 2, 29)
        except ValueError:
            return date(year, 3, 1) if leap_rule == "mar1" else date(year, 2, 28)
    return date(year, person.month, person.day)


def next_birthday(person: Person, today: date, leap_rule: str) -> date:
    day = celebrated(person, today.year, leap_rule)
    return day if day >= today else celebrated(person, today.year + 1, leap_rule)


def in_window(world: World, person: Person) -> bool:
    return (next_birthday(person, world.today, world.leap_rule) - world.today).days <= world.window


def expected_upcoming(world: World) -> list[dict[str, object]]:
    """Every person whose next birthday falls from today to today + window, with the age they turn."""
    found: list[dict[str, object]] = []
    for person in world.people:
        if in_window(world, person):
            day = next_birthday(person, world.today, world.leap_rule)
            turns = day.year - person.year if person.year else None
            found.append({"name": person.name, "date": day.isoformat(), "turns": turns})
    return sorted(found, key=lambda p: (str(p["date"]), str(p["name"])))


def own(world: World, task: Task) -> bool:
    return task.owner == world.owner[1] and task.deleted is None


def priority_rank(task: Task, world: World) -> int:
    return 5 if task.priority == 0 and "priority0" in world.sentinels else task.priority


def expected_overdue(world: World) -> list[int]:
    late = [t for t in world.tasks if own(world, t) and t.status != "done" and t.due and t.due < world.today]
    return [t.id for t in sorted(late, key=lambda t: (priority_rank(t, world), t.due, t.id))]


def expected_completed(world: World) -> int:
    return sum(
        1
        for t in world.tasks
        if own(world, t) and t.status == "done" and t.completed and world.monday <= t.completed.date() <= world.today
    )


def focused_minutes(session: Session) -> int:
    total, since = timedelta(), None
    for event in session.events:
        if event.kind in ("start", "resume"):
            since = event.at
        elif since is not None:
            total += event.at - since
            since = None
    return int(total.total_seconds() // 60)


def expected_minutes(world: World) -> dict[str, int]:
    minutes: dict[str, int] = {}
    for session in world.sessions:
        minutes[session.goal] = minutes.get(session.goal, 0) + focused_minutes(session)
    return dict(sorted(minutes.items()))


def local(day: date, hour: int, minute: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=LOCAL)


def make_session(goal: str, begin: datetime, stretches: list[int]) -> Session:
    """A session from `begin`: focused, paused, focused, ... stretches (minutes), ending with a stop."""
    events, at = [Event(begin, "start", goal)], begin
    for n, length in enumerate(stretches):
        at += timedelta(minutes=length)
        if n == len(stretches) - 1:
            events.append(Event(at, "stop", goal))
        else:
            events.append(Event(at, "pause" if n % 2 == 0 else "resume", goal))
    return Session(goal, events)


def _people(rng: random.Random, world_today: date, window: int) -> list[Person]:
    firsts = rng.sample(FIRST, 12)
    lasts = rng.sample(LAST, 12)
    people = []
    inside = {0, 1, 2, 3, 4}
    for n, ((first, nick), last) in enumerate(zip(firsts, lasts, strict=True)):
        offset = rng.randint(0, window) if n in inside else rng.randint(window + 3, 330)
        day = world_today + timedelta(days=offset)
        if (day.month, day.day) == (2, 29):
            day += timedelta(days=1)
        year = None if n in (1, 7) else rng.randint(1950, 2015)
        people.append(Person(f"{first} {last}", nick, day.month, day.day, year, SECTIONS[n % 3]))
    return people


def _tasks(rng: random.Random, today: date, me: str) -> list[Task]:
    titles = rng.sample(TASK_TITLES, 18)
    monday = today - timedelta(days=today.weekday())
    tasks: list[Task] = []

    def add(status: str, due: date | None, completed: datetime | None = None, priority: int | None = None) -> Task:
        created = datetime.combine(today - timedelta(days=rng.randint(20, 60)), datetime.min.time()).replace(
            hour=rng.randint(8, 20), minute=rng.choice((0, 15, 30, 45))
        )
        task = Task(len(tasks) + 1, titles[len(tasks)], rng.sample(TAGS, rng.randint(1, 2)), status,
                    priority or rng.randint(1, 4), due, completed, created, me)  # fmt: skip
        tasks.append(task)
        return task

    prios = rng.sample([1, 2, 3, 4], 4)
    for n in range(4):  # overdue, open
        add(rng.choice(("todo", "in-progress", "backlog")), today - timedelta(days=rng.randint(1, 25)),
            priority=prios[n])  # fmt: skip
    for _ in range(3):  # due later or today
        add(rng.choice(("todo", "in-progress", "backlog")), today + timedelta(days=rng.randint(0, 20)))
    add("backlog", None)
    done_days = rng.randint(1, max(1, today.weekday() + 1))
    for n in range(done_days):  # done this week
        day = monday + timedelta(days=min(n, today.weekday()))
        add("done", day - timedelta(days=rng.randint(0, 5)), _stamp(rng, day))
    for _ in range(2):  # done before this week
        day = monday - timedelta(days=rng.randint(1, 12))
        add("done", day, _stamp(rng, day))
    rng.shuffle(tasks)
    for n, task in enumerate(tasks, 1):
        task.id = n
    return tasks


def _stamp(rng: random.Random, day: date) -> datetime:
    return datetime(day.year, day.month, day.day, rng.randint(8, 21), rng.choice((5, 20, 35, 50)))


def _sessions(rng: random.Random, today: date) -> list[Session]:
    goals = rng.sample(GOALS, 3)
    sessions = []
    for back in range(6, 0, -1):
        day = today - timedelta(days=back)
        hour = rng.randint(8, 10)
        for _ in range(rng.randint(1, 2)):
            goal = rng.choice(goals)
            stretches = [rng.randint(20, 55)]
            if rng.random() < 0.6:
                stretches += [rng.randint(5, 15), rng.randint(15, 40)]
            sessions.append(make_session(goal, local(day, hour, rng.choice((0, 10, 25, 40))), stretches))
            hour += 3
    for goal in goals:
        if all(s.goal != goal for s in sessions):
            sessions.append(make_session(goal, local(today - timedelta(days=1), 19, 0), [35]))
    return sessions


def generate(seed: int, salt: int = 0) -> World:
    rng = seeded("records", seed, salt)
    year = rng.choice((2025, 2026, 2027))
    today = date(year, 1, 24) + timedelta(days=rng.randint(0, 31))
    window = rng.randint(35, 42)
    owner, partner = rng.choice(OWNERS), rng.choice(PARTNERS)
    people = _people(rng, today, window)
    entries = [Entry(n, p.name, "dotted", p.section) for n, p in enumerate(people)]
    return World(
        seed=seed,
        rng=rng,
        owner=owner,
        partner=partner,
        today=today,
        window=window,
        leap_rule=rng.choice(("mar1", "feb28")),
        people=people,
        entries=entries,
        tasks=_tasks(rng, today, owner[1]),
        sessions=_sessions(rng, today),
    )


def utc(at: datetime) -> datetime:
    return at.astimezone(UTC)

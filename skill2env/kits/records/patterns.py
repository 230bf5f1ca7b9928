"""Pattern transformers of the personal-records kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but the obvious
reading happens to be right: the imported or duplicated people fall outside the window, the other
person's tasks are neither late nor done this week, the clock changes between sessions): likely at
intensity 1, less so at 2, never at 3. A harmful trap is recorded in `world.harmful`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, datetime, timedelta

from skill2env.kits.records.world import (
    Entry,
    Person,
    Task,
    World,
    in_window,
    local,
    make_session,
    next_birthday,
)
from skill2env.kits.spec import Design, draw_benign

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.9, 2: 0.4, 3: 0.0}
BIRTHDAYS = "records/birthdays.md"
CONTACTS = "records/contacts.md"
DATABASE = "tasks/tasks.db"
TASKS_README = "tasks/README.md"
FOCUS_README = "focus/README.md"
FOCUS_LOG = "focus/log.jsonl"
REQUEST = "REQUEST.md"
IMPORTED = {
    "iso": "From the calendar export (dates as YYYY-MM-DD)",
    "us": "Imported from phone contacts (dates as MM/DD/YYYY, MM/DD without a year)",
}
DUPLICATES = "Added from the old phone"


def benign(world: World, pattern: str, level: int, rng: random.Random) -> bool:
    return draw_benign(world.levels, world.harmful, pattern, level, rng, BENIGN)


def _swapped_inside(world: World, person: Person) -> bool:
    """Whether reading the person's MM/DD date day-first lands inside the window."""
    if person.day > 12 or person.day == person.month:
        return False
    twin = Person(person.name, "", person.day, person.month, None, "")
    return in_window(world, twin)


def units_hidden_in_header(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "units_hidden_in_header", level, rng)
    form = "iso" if level == 1 else "us"

    def person(index: int) -> Person:
        return world.people[world.entries[index].person]

    plain = [n for n, e in enumerate(world.entries) if e.form == "dotted"]
    inside = [n for n in plain if in_window(world, person(n))]
    outside = [n for n in plain if n not in inside]
    if form == "us":
        inside = [n for n in inside if person(n).day != person(n).month]
        outside = [n for n in outside if not _swapped_inside(world, person(n))]
    count = {1: 2, 2: 2, 3: 3}[level]
    chosen = rng.sample(outside, min(count, len(outside))) if harmless else [
        rng.choice(inside), *rng.sample(outside, min(count - 1, len(outside)))]  # fmt: skip
    world.imported = form
    for n, index in enumerate(chosen):
        entry = world.entries[index]
        entry.section = IMPORTED[form]
        entry.form = "words" if level == 3 and n == len(chosen) - 1 else form
        if entry.form == "words":
            person(index).year = None
    design.plant("units_hidden_in_header", "birthdays.imported", "a section of the list writes its dates another "
                 "way, said only in its heading", IMPORTED[form], BIRTHDAYS)  # fmt: skip
    design.forms["units_hidden_in_header"] = {
        1: "A section imported from a calendar export writes its dates YYYY-MM-DD, said only in its heading.",
        2: "A section imported from phone contacts writes its dates month first (MM/DD/YYYY), said only in its "
        "heading.",
        3: "As level 2, with one more imported entry written in words (Feb 14) and no year.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "stale_derived_artifact", level, rng)
    dated = [n for n, e in enumerate(world.entries) if world.people[e.person].year and e.year_shown]
    inside = [n for n in dated if in_window(world, world.people[world.entries[n].person])]
    noted = [n for n in dated if n not in inside] if harmless else dated
    world.notes_dated = world.today - timedelta(days=rng.randint(300, 360)) if level == 1 else None
    for index in noted:
        entry = world.entries[index]
        person = world.people[entry.person]
        turns = next_birthday(person, world.today, world.leap_rule).year - (person.year or 0)
        stale = 1 if level < 3 else rng.choice((1, 2))
        fresh = level == 2 and index not in inside[:1] and rng.random() < 0.5
        entry.note = turns if fresh else turns - stale
        entry.german = level >= 2
    design.plant("stale_derived_artifact", "birthdays.notes", "the list's age notes were written earlier",
                 world.notes_dated.isoformat() if world.notes_dated else "wird", BIRTHDAYS)  # fmt: skip
    design.forms["stale_derived_artifact"] = {
        1: "The list's entries carry 'turns N' notes written about a year ago (the date is in the list's header).",
        2: "The entries carry the skill's '(wird N)' notes, some current and some a year old, undated.",
        3: "Every entry with a year carries a '(wird N)' note one or two years old.",
    }[level]


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "duplicate_claim_across_periods", level, rng)
    people = list(range(len(world.people)))
    inside = [n for n in people if in_window(world, world.people[n])]
    outside = [n for n in people if n not in inside]
    count = 2 if level == 3 else 1
    chosen = rng.sample(outside, count) if harmless else rng.sample(inside, count)
    if level == 3 and not harmless:
        chosen.sort(key=lambda n: world.people[n].year is not None)
    for n, index in enumerate(chosen):
        person = world.people[index]
        name = person.name if level == 1 else person.nickname
        duplicate = Entry(index, name, "dotted", DUPLICATES)
        if level == 3 and n == 0:
            if person.year is None:
                person.year = rng.randint(1960, 2010)
            for entry in world.entries:
                if entry.person == index:
                    entry.year_shown = False
        world.entries.append(duplicate)
        design.plant("duplicate_claim_across_periods", f"duplicate.{n}", "a person is listed twice",
                     name, BIRTHDAYS)  # fmt: skip
    design.plant("duplicate_claim_across_periods", "contacts.nicknames", "the contacts give each person's nickname",
                 "Nickname", CONTACTS)  # fmt: skip
    design.forms["duplicate_claim_across_periods"] = {
        1: "A person is listed twice: once more, under the same name, in a section added from an old phone.",
        2: "As level 1, the second entry under the person's nickname (the contacts give it).",
        3: "Two people listed twice under a nickname; for one only the duplicate gives the year of birth.",
    }[level]


def conditional_branch_on_data(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "conditional_branch_on_data", level, rng)
    names = (("Leah", "Lee"), ("Marius", "Mo"), ("Greta", "Gigi"))
    lasts = ("Ahlberg", "Quinn", "Esposito")
    count = {1: 1, 2: 2, 3: 2}[level]
    for n in range(count):
        first, nick = names[n]
        year = None if n == 1 else rng.choice((1988, 1992, 1996, 2000, 2004))
        day = 28 if harmless else 29
        world.people.append(Person(f"{first} {lasts[n]}", nick, 2, day, year, "Friends"))
        world.entries.append(Entry(len(world.people) - 1, f"{first} {lasts[n]}", "dotted", "Friends"))
    if not harmless and not in_window(world, world.people[-1]):
        world.leap_rule = "feb28"
    design.plant("conditional_branch_on_data", "birthdays.leap", "the list says when a 29 February birthday is "
                 "celebrated in other years", "1 March" if world.leap_rule == "mar1" else "28 February",
                 BIRTHDAYS)  # fmt: skip
    design.forms["conditional_branch_on_data"] = {
        1: "Someone was born on 29 February; the list's rule says which day they celebrate in other years.",
        2: "As level 1, and a second 29 February birthday with no year.",
        3: "As level 2, the rule given only in a footnote at the end of the list.",
    }[level]


def _partner_task(world: World, status: str, due: date | None, completed: datetime | None) -> Task:
    task = Task(len(world.tasks) + 1, f"{world.partner[0].split()[0]}: " + world.rng.choice(
        ("renew car insurance", "pick up the parcel", "book the flights", "call the plumber", "file the receipts")),
        ["shared"], status, world.rng.randint(1, 4), due, completed,
        datetime.combine(world.today - timedelta(days=30), datetime.min.time()), world.partner[1])  # fmt: skip
    world.tasks.append(task)
    return task


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "scope_distractor", level, rng)
    today = world.today
    if harmless:
        _partner_task(world, "todo", today + timedelta(days=rng.randint(2, 9)), None)
        _partner_task(world, "done", today - timedelta(days=20), datetime.combine(world.monday - timedelta(days=3),
                                                                                   datetime.min.time()))  # fmt: skip
    else:
        _partner_task(world, "todo", today - timedelta(days=rng.randint(1, 9)), None)
        _partner_task(world, "done", today, datetime.combine(world.monday, datetime.min.time()).replace(hour=18))
        _partner_task(world, "in-progress", today + timedelta(days=3), None)
    world.owner_column = level != 2
    world.shared_tag = level == 2
    if level == 3:
        world.deleted_column = True
        gone = datetime.combine(today - timedelta(days=1), datetime.min.time()).replace(hour=9)
        mine = Task(len(world.tasks) + 1, "Renew the parking permit", ["admin"], "todo", 1,
                    today - timedelta(days=rng.randint(2, 6)), None,
                    datetime.combine(today - timedelta(days=40), datetime.min.time()), world.owner[1],
                    deleted=gone)  # fmt: skip
        world.tasks.append(mine)
    design.plant("scope_distractor", "tasks.scope", "the tracker holds rows that are not the user's own tasks",
                 world.partner[1], DATABASE)  # fmt: skip
    design.forms["scope_distractor"] = {
        1: "The tracker is shared: another person's tasks sit in the same table, told apart by its owner column.",
        2: "As level 1, the other person's tasks told apart only by a tag the README explains.",
        3: "As level 1, and a deleted task of the user's keeps its row with deleted_at set.",
    }[level]


def sentinel_missing_values(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "sentinel_missing_values", level, rng)
    mine = [t for t in world.tasks if t.owner == world.owner[1] and t.deleted is None]
    later = [t for t in mine if t.status != "done" and (t.due is None or t.due >= world.today)]
    done = [t for t in mine if t.status == "done"]
    world.sentinels = ["someday"]
    target = rng.choice(done if harmless else later)
    target.due, target.due_text = None, "1970-01-01"
    if level >= 2:
        world.sentinels.append("priority0")
        late = [t for t in mine if t.status != "done" and t.due and t.due < world.today]
        pick = rng.choice(done) if harmless else sorted(late, key=lambda t: t.priority)[0]
        pick.priority = 0
    if level == 3:
        world.sentinels.append("blank")
        rest = [t for t in later if t is not target]
        blank = rng.choice(rest)
        blank.due, blank.due_text = None, ""
    design.plant("sentinel_missing_values", "tasks.sentinels", "the README says which values stand for none",
                 "1970-01-01", TASKS_README)  # fmt: skip
    design.forms["sentinel_missing_values"] = {
        1: "A task with no real due date carries the sentinel 1970-01-01, as the tracker's README says.",
        2: "As level 1, and priority 0 means unset (sorted after the lowest priority).",
        3: "As level 2, and an empty due date also means none.",
    }[level]


def chunk_boundary_state(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "chunk_boundary_state", level, rng)
    world.rotated = True
    world.gzipped = level == 3
    goal = rng.choice(world.goals)
    day = world.today - timedelta(days=rng.randint(3, 5))
    if harmless:
        session = make_session(goal, local(day, 21, rng.choice((0, 15))), [rng.randint(30, 50)])
    elif level == 1:
        session = make_session(goal, local(day, 23, rng.choice((5, 20))), [rng.randint(60, 80)])
    else:
        session = make_session(goal, local(day, 23, rng.choice((5, 15))), [rng.randint(25, 35), 25,
                                                                            rng.randint(30, 50)])  # fmt: skip
    world.sessions.append(session)
    world.sessions.sort(key=lambda s: s.events[0].at)
    design.plant("chunk_boundary_state", "focus.rotated", "the focus log is rotated into one file a day",
                 "focus/", "focus/")  # fmt: skip
    design.forms["chunk_boundary_state"] = {
        1: "The focus log is rotated at midnight into one file a day, and a session runs past midnight.",
        2: "As level 1, the session paused before midnight and resumed after it.",
        3: "As level 2, the older days' files gzipped.",
    }[level]


def implicit_timezone(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "implicit_timezone", level, rng)
    candidates = [s for s in world.sessions if len(s.events) >= 2 and s.events[0].at.hour < 20]
    session = rng.choice(candidates)
    k = 0 if harmless else rng.randint(1, len(session.events) - 1)
    if level == 1:
        change = session.events[k].at if not harmless else session.events[0].at - timedelta(minutes=1)
        for other in world.sessions:
            for event in other.events:
                if event.at >= change:
                    event.offset = timedelta(0)
    else:
        world.phone_utc_bare = level == 3
        for event in session.events[k:]:
            event.device = "phone"
            event.style = "bare" if level == 3 else "z"
    design.plant("implicit_timezone", "focus.clock", "the focus log's timestamps change clock",
                 session.goal, FOCUS_LOG)  # fmt: skip
    design.forms["implicit_timezone"] = {
        1: "The user travelled: from one event on, the log's clock is UTC+00:00 instead of UTC+01:00.",
        2: "Part of a session was logged from the phone, its timestamps in UTC (Z) beside the laptop's +01:00.",
        3: "As level 2, the phone's timestamps with no offset at all; the log's README says its clock is UTC.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "units_hidden_in_header": units_hidden_in_header,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "stale_derived_artifact": stale_derived_artifact,
    "conditional_branch_on_data": conditional_branch_on_data,
    "scope_distractor": scope_distractor,
    "sentinel_missing_values": sentinel_missing_values,
    "chunk_boundary_state": chunk_boundary_state,
    "implicit_timezone": implicit_timezone,
}
PATTERNS = tuple(TRANSFORMERS)

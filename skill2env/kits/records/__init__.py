"""Kit: personal records kept by an assistant.

One person's records on a fixed "today": a birthdays list in Markdown with its contacts, a task tracker
in SQLite and a focus-session log in JSON lines, with traps (an imported section whose dates are written
another way, said only in its heading; stale "turns N" notes; a person listed twice, under a nickname;
29 February birthdays and the list's rule for other years; another person's and deleted rows in a shared
tracker; sentinel due dates and priorities; a log rotated at midnight under a session, gzipped days; a
clock change and a phone logging in UTC) → the birthdays of the coming days with the age each person
turns, the overdue open tasks in priority order with the count done this week, and the focused minutes
per goal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from skill2env.kits.base import FOCUS_FACT, Kit
from skill2env.kits.records.docs import render_world
from skill2env.kits.records.patterns import (
    BIRTHDAYS,
    CONTACTS,
    DATABASE,
    FOCUS_README,
    PATTERNS,
    TASKS_README,
    TRANSFORMERS,
)
from skill2env.kits.records.world import (
    World,
    expected_completed,
    expected_minutes,
    expected_overdue,
    expected_upcoming,
    generate,
)
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item, KitError
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.patterns.traits import SkillProfile
from skill2env.rubric import CheckSpec

UPCOMING = "output/upcoming.json"
TASKS = "output/tasks.json"
FOCUS = "output/focus.json"

RECORD_CUES = {
    UPCOMING: re.compile(r"\bbirthdays?\b|\banniversar(?:y|ies)\b"),
    TASKS: re.compile(r"\btasks?\b|\bto-?dos?\b|\boverdue\b"),
    FOCUS: re.compile(r"\bfocus(?:ed|ing)?\b|\bpomodoros?\b|\bsessions?\b|\bhabits?\b|\bstreaks?\b"),
}
"""Each record's words in a skill's text: the deliverable of the record the skill keeps."""
KEPT = {UPCOMING: "birthdays", TASKS: "tasks", FOCUS: "focus time"}
FOCUS_WEIGHT = 0.6
"""A focused task's share on the skill's own record: the other two records keep 0.2 each, enough that the
task is still the whole upkeep, little enough that most of the reward is the skill's own workflow."""
WHAT = {
    UPCOMING: "the birthdays of the window, with the age each person turns",
    TASKS: "the overdue open tasks in priority order, and the count completed this week",
    FOCUS: "the focused minutes per goal over the whole log",
}


class RecordsKit(Kit):
    name = "records"
    title = "Personal records upkeep"
    formats = ("markdown", "sqlite", "jsonl", "gzip", "json")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.PERSONAL_RECORDS: 1.5,
        Trait.TEMPORAL_DATA: 0.1,
        Trait.DATABASE: 0.1,
        Trait.PERSISTENT_STATE: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.PERSONAL_RECORDS: 0.4}
    """More than a mention of a date or a task: a person's own birthdays, to-dos, reminders, focus sessions."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.PERSONAL_RECORDS: "conditional_branch_on_data",
        Trait.TEMPORAL_DATA: "implicit_timezone",
        Trait.DATABASE: "sentinel_missing_values",
        Trait.PERSISTENT_STATE: "scope_distractor",
        Trait.LOGS: "chunk_boundary_state",
        Trait.DOCUMENTS: "units_hidden_in_header",
    }
    starters = (
        "conditional_branch_on_data",
        "scope_distractor",
        "implicit_timezone",
        "units_hidden_in_header",
        "sentinel_missing_values",
    )
    """One trap in each record (the birthdays, the tracker, the focus log) before a second one in any."""
    solver_module = "skill2env.kits.records.solver"
    naive_module = "skill2env.kits.records.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def focus_of(self, profile: SkillProfile) -> str | None:
        """The record the skill's text is about: more of its words than of the other two together."""
        counts = {path: len(cue.findall(profile.text.lower())) for path, cue in RECORD_CUES.items()}
        top = max(counts, key=lambda p: counts[p])
        return top if counts[top] > sum(counts.values()) - counts[top] else None

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        return self.compose_focused(seed, patterns, salt, None)

    def compose_focused(self, seed: int, patterns: Mapping[str, int], salt: int, focus: str | None) -> Composition:
        if focus is not None and focus not in RECORD_CUES:
            raise KitError(f"kit {self.name}: no record {focus!r} to focus on (one of {sorted(RECORD_CUES)})")
        world, design = self.world(seed, patterns, salt)
        workspace = render_world(world)
        composition = Composition(
            title=f"Bring {world.owner[0]}'s {KEPT[focus]} up to date, with the rest of the records"
            if focus
            else f"Bring {world.owner[0]}'s birthdays, tasks and focus time up to date",
            goal=f"From {world.owner[0]}'s own records as of {world.today.isoformat()}: the birthdays of the next "
            f"{world.window} days with the age each person turns, the overdue open tasks in priority order with the "
            "count done this week, and the focused minutes per goal.",
            body=instruction_body(world, workspace.files, focus),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[(path, "json", WHAT[path], share(path, focus)) for path in (UPCOMING, TASKS, FOCUS)],
            items=[],
        )
        found, stated = InformationLevel.DISCOVERABLE, InformationLevel.STATED
        if focus is not None:
            composition.fact(FOCUS_FACT, "the record the task is weighted toward", stated, focus)
        composition.fact("goal.today", "today's date", stated, world.today.isoformat())
        composition.fact("goal.window", "the window in days", stated, world.window)
        composition.fact("birthdays.list", "the birthdays list", found, "Birthdays", location=BIRTHDAYS)
        composition.fact("contacts.list", "the contacts", found, "Nickname", location=CONTACTS)
        composition.fact("tasks.table", "the task tracker", found, "tasks", location=DATABASE)
        composition.fact("tasks.rules", "the tracker's README", found, "priority", location=TASKS_README)
        composition.fact("focus.rules", "the focus log's README", found, "Focused time", location=FOCUS_README)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def share(path: str, focus: str | None) -> float:
    if focus is None:
        return 0.3 if path == FOCUS else 0.35
    return FOCUS_WEIGHT if path == focus else round((1.0 - FOCUS_WEIGHT) / 2, 6)


def instruction_body(world: World, files: Mapping[str, bytes], focus: str | None = None) -> str:
    logs = sorted(p for p in files if p.startswith("focus/") and not p.endswith("README.md"))
    shown = f"`{logs[0]}`" if len(logs) == 1 else f"`focus/` ({len(logs)} files)"
    weighted = f"\n`{focus}` ({WHAT[focus]}) counts most; all three are checked.\n" if focus else ""
    return f"""Today is {world.today.isoformat()} ({world.today.strftime("%A")}); {world.owner[0]}'s clock is UTC+01:00.
The assistant keeps {world.owner[0].split()[0]}'s records in the workspace: the birthdays list `{BIRTHDAYS}` with the
contacts `{CONTACTS}`, the task tracker `{DATABASE}` (SQLite; `{TASKS_README}` explains it) and the focus-session
log {shown} (`{FOCUS_README}` explains it). Each file's own notes govern how it is read.

1. `{UPCOMING}`: `{{"upcoming": [{{"name": "...", "date": "YYYY-MM-DD", "turns": ...}}, ...]}}` — every person whose
   next birthday falls from today up to and including {world.window} days from today, once each, by their full
   name as in the contacts, with the date of that birthday and the age they turn on it (`null` when their year of
   birth is not known); ordered by date, then name.
2. `{TASKS}`: `{{"overdue": [<task id>, ...], "completed_this_week": <count>}}` — {world.owner[0].split()[0]}'s own
   open tasks whose due date is before today, ordered by priority (highest first), then due date, then id; and how
   many of {world.owner[0].split()[0]}'s tasks were completed this week (Monday to today, local time).
3. `{FOCUS}`: `{{"minutes": {{"<goal>": <minutes>, ...}}}}` — for each goal of the log, the focused minutes over the
   whole log (pauses excluded), in whole minutes.
{weighted}"""


def json_check(path: str, json_path: str, expected: Any, *, extra_keys: bool = False) -> CheckSpec:
    params: dict[str, Any] = {"path": path, "json_path": json_path, "expected": expected, "tolerance": 0.0}
    if extra_keys:
        params["allow_extra_keys"] = True
    return CheckSpec(check="json_path_equals", params=params)


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    def of(*names: str) -> tuple[str, ...]:
        return tuple(p for p in names if p in patterns)

    def facts(*names: str, base: str) -> tuple[str, ...]:
        return (base, *(f for p in of(*names) for f in design.facts_of(p)))

    upcoming, overdue = expected_upcoming(world), expected_overdue(world)
    completed, minutes = expected_completed(world), expected_minutes(world)
    birthday_traps = ("units_hidden_in_header", "duplicate_claim_across_periods", "conditional_branch_on_data")
    return [
        Item("upcoming.names", "The upcoming birthdays name exactly the people of the window, once each, in date "
             "order.", UPCOMING, json_check(UPCOMING, "$.upcoming[*].name", [p["name"] for p in upcoming]),
             [p["name"] for p in upcoming], facts(*birthday_traps, base="birthdays.list"),
             "Every entry's date read in its section's form, people merged across nicknames, 29 February moved by "
             "the list's rule, the window counted from today.", of(*birthday_traps)),
        Item("upcoming.details", "Each upcoming birthday has its date and the age the person turns (null without a "
             "year).", UPCOMING, json_check(UPCOMING, "$.upcoming", upcoming, extra_keys=True), upcoming,
             facts(*birthday_traps, "stale_derived_artifact", base="birthdays.list"),
             "The age computed from the year of birth and the birthday's year, never from the list's notes.",
             of(*birthday_traps, "stale_derived_artifact")),
        Item("tasks.overdue", "The overdue open tasks of the user, in priority, due date and id order.", TASKS,
             json_check(TASKS, "$.overdue", overdue), overdue,
             facts("scope_distractor", "sentinel_missing_values", base="tasks.table"),
             "Open own rows with a real due date before today, ranked as the README says.",
             of("scope_distractor", "sentinel_missing_values")),
        Item("tasks.completed", "The count of the user's tasks completed this week, in a file whose overdue list is "
             "right too (a count alone is guessable).", TASKS,
             CheckSpec(check="json_path_equals", params={"path": TASKS, "tolerance": 0.0, "values": {
                 "$.completed_this_week": completed, "$.overdue": overdue}}), completed,
             facts("scope_distractor", "sentinel_missing_values", base="tasks.table"),
             "Own done rows whose completed_at falls from Monday to today.",
             of("scope_distractor", "sentinel_missing_values")),
        Item("focus.minutes", "The focused minutes of every goal over the whole log.", FOCUS,
             json_check(FOCUS, "$.minutes", minutes), minutes,
             facts("implicit_timezone", "chunk_boundary_state", base="focus.rules"),
             "Every file of the log in time order, each timestamp at its own clock, pauses left out.",
             of("implicit_timezone", "chunk_boundary_state")),
    ]  # fmt: skip


KIT = RecordsKit()

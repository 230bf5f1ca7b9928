"""Kit: agent memory upkeep.

A project's journal (Markdown daily notes and JSONL session transcripts), the requester's message
thread, a team roster and a memory store (MEMORY.md with its sections, a JSON index, the memory file's
template and its conventions) consolidated some sessions ago, with traps: a later reversal of an owner,
a deadline or a decision, an action item closed only in prose or reopened, an index built before the
store, a question changed later in the thread, a revised template and conventions the store does not
follow yet → answers (JSON) to the requester's questions as of the last session, and the memory file
brought up to date in the template's layout, every entry citing the session that set it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits.base import Kit
from skill2env.kits.memory.docs import CONVENTIONS, INDEX, MEMORY, TEAM, TEMPLATE, render_world
from skill2env.kits.memory.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.memory.world import THREAD, World, answers, entries, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

ANSWERS = "output/answers.json"
UPDATED = "output/MEMORY.md"
CHECK_SOURCE = (Path(__file__).parent / "memcheck.py").read_text(encoding="utf-8")
SECTIONS = ("owners", "deadlines", "decisions", "open", "notes")


class MemoryKit(Kit):
    name = "memory"
    title = "Agent memory upkeep"
    formats = ("markdown", "jsonl", "json")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.AGENT_MEMORY: 1.5,
        Trait.TEXT_CORPUS: 0.2,
        Trait.VERSION_HISTORY: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.AGENT_MEMORY: 0.4}
    """More than a mention of notes: memory files, journals, recall across sessions."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.AGENT_MEMORY: "pending_item_closure",
        Trait.TEXT_CORPUS: "goal_buried_in_thread",
        Trait.VERSION_HISTORY: "retroactive_correction",
        Trait.STRUCTURED_DATA: "stale_search_index",
        Trait.DOCUMENTS: "skill_template_as_is",
    }
    starters = (
        "pending_item_closure",
        "retroactive_correction",
        "stale_search_index",
        "goal_buried_in_thread",
        "skill_template_as_is",
    )
    solver_module = "skill2env.kits.memory.solver"
    naive_module = "skill2env.kits.memory.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title=f"Bring the project memory of {world.project} up to date",
            goal=f"Answer the requester's questions on {world.project} as of the last journal session and bring "
            "the memory file up to date in its template's layout, every entry citing its source session.",
            body=instruction_body(),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (ANSWERS, "json", "the answers to the requester's questions, as of the last session", 0.4),
                (UPDATED, "markdown", "the memory file brought up to the last session, in the template's layout", 0.6),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.project", "the project", InformationLevel.STATED, world.project)
        composition.fact("thread.questions", "the requester's questions", found, world.requester.name, location=THREAD)
        composition.fact("journal.sessions", "the journal's first session", found, world.days[0].isoformat(),
                         location=world.path(0))  # fmt: skip
        composition.fact("store.memory", "the memory store", found, world.project, location=MEMORY)
        composition.fact("store.template", "the memory file's template", found, "Memory file template",
                         location=TEMPLATE)  # fmt: skip
        composition.fact("store.conventions", "how values are written", found, "Memory conventions",
                         location=CONVENTIONS)  # fmt: skip
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body() -> str:
    return f"""This project keeps a long-lived memory: `journal/` holds its daily notes (Markdown) and session
transcripts (JSONL), `{MEMORY}` the memory file consolidated from them, `{INDEX}` a lookup index of it,
`{TEMPLATE}` the memory file's layout, `{CONVENTIONS}` how values are written and `{TEAM}` the team.
The requester's questions are in the message thread `{THREAD}`.

1. `{ANSWERS}`: `{{"q1": "...", "q2": "...", "q3": "...", "q4": ["...", ...]}}` — one key per question of the
   thread (by its number), each answer as things stand after the last journal session, written as the
   conventions say (a list of ids for a question about several items).
2. `{UPDATED}`: the memory file brought up to the last journal session, in the template's layout, its
   consolidation date that of the last session; every current entry with its value as of now and the
   journal file that set it.
"""


def mem_check(kind: str, world: World, **args: Any) -> CheckSpec:
    params = {"kind": kind, "path": UPDATED, "consolidated": world.days[world.last].isoformat(), **args}
    return CheckSpec(check="python", params={"source": CHECK_SOURCE, "function": "check", "args": params})


def answer_check(key: str, expected: object) -> CheckSpec:
    params: dict[str, Any] = {"path": ANSWERS, "json_path": f"$.{key}", "expected": expected, "tolerance": 0.0}
    if isinstance(expected, list):
        params["ignore_list_order"] = True
    return CheckSpec(check="json_path_equals", params=params)


def linked(world: World, patterns: Mapping[str, int], item_id: str) -> tuple[str, ...]:
    return tuple(p for p in patterns if item_id in world.tags.get(p, set()))


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    result: list[Item] = []
    asked = world.asked()
    for key, value in answers(world).items():
        question = asked[int(key[1:]) - 1]
        on = f" on {question.subject}" if question.subject else ""
        item_id = f"answers.{key}"
        tied = linked(world, patterns, item_id)
        result.append(
            Item(
                item_id,
                f"Question {key[1:]} ({question.kind}{on}) is answered as things stand after the last session.",
                ANSWERS,
                answer_check(key, value),
                value,
                tuple(f for p in tied for f in design.facts_of(p)) or ("thread.questions", "journal.sessions"),
                "The thread's questions after the requester's own later changes, answered by replaying the "
                "journal in date order, in the conventions' forms.",
                patterns=tied,
            )
        )
    headings = dict(world.template)
    for role in SECTIONS:
        item_id = f"memory.{role}"
        expected = entries(world, role)
        tied = linked(world, patterns, item_id)
        result.append(
            Item(
                item_id,
                f"The memory file's {headings[role]} section holds exactly the current entries, each citing the "
                "session that set it.",
                UPDATED,
                mem_check("section", world, heading=headings[role], entries=expected),
                expected,
                tuple(f for p in tied for f in design.facts_of(p)) or ("journal.sessions", "store.conventions"),
                "The journal replayed to the last session; each entry's source is the session of its last change.",
                patterns=tied,
            )
        )
    checked = {p for item in result for p in item.patterns}
    tied = linked(world, patterns, "memory.structure")
    quiet = tuple(p for p in patterns if p not in checked and p not in tied)
    structure = [heading for _, heading in world.template]
    result.append(
        Item(
            "memory.structure",
            "The memory file keeps the template's sections in order and is consolidated to the last session.",
            UPDATED,
            mem_check("structure", world, headings=structure, front_matter=world.front_matter),
            structure,
            ("store.template",),
            "The template's headings in order (and its front matter when it has one).",
            patterns=(*tied, *quiet),
        )
    )
    return result


KIT = MemoryKit()

"""The kit contract and the one build path every kit shares: world → Blueprint → TaskDraft."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from skill2env.kits import scripts
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item, KitError, apply_patterns
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.patterns.pool import seed_pool
from skill2env.patterns.traits import SkillProfile, skill_traits
from skill2env.rubric import Method, Rubric, RubricItem
from skill2env.tasks.blueprint import (
    AcceptanceCriterion,
    Blueprint,
    Challenge,
    Deliverable,
    Derivation,
    Environment,
    Fact,
    Revision,
    SkillRef,
)
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.normalize import Haystack, ValueKind, find, needle, numbers_in

MAX_SALTS = 8
"""Worlds re-drawn (with another salt) before a computed answer that shows in the workspace is an error."""
MIN_MATCH = 0.25
"""A skill whose best kit scores below this gets no offline task (recorded as skipped, with the scores)."""
LEAD_AT_LEAST = 0.4
"""How strongly a skill must show one of a kit's lead traits (its highest-weighted ones) for the kit to
serve it: one structural cue (a file extension, a dependency, a program) or four distinct cue words.
Without it the kit's world is not what the skill works on, however many side traits add up."""
FULL_CREDIT = 1.0 - 1e-9


@dataclass(frozen=True)
class KitMatch:
    """How well a kit serves a skill, and why."""

    kit: str
    score: float
    reason: str


def expected_fact(item_id: str) -> str:
    """The author-only fact holding a rubric item's expected result."""
    return "expected." + item_id


class Kit(ABC):
    """A procedural author: a seeded world generator, renderers, pattern transformers, a reference
    solver, deterministic checks and a naive baseline policy, for one family of tasks."""

    name: ClassVar[str]
    title: ClassVar[str]
    formats: ClassVar[tuple[str, ...]]
    patterns: ClassVar[tuple[str, ...]]
    """Pool pattern ids this kit implements, each at intensities 1-3."""
    traits: ClassVar[Mapping[Trait, float]]
    """Skill traits this kit's tasks exercise, with how much each counts toward a match."""
    requires: ClassVar[Mapping[Trait, float]] = {}
    """Traits a skill must show at least this strongly for the kit to serve it at all: a kit whose world
    is one activity (a literature review, a repository's history) serves only skills that do it,
    not every skill that mentions it once."""
    tool_patterns: ClassVar[Mapping[Trait, str]]
    """Skill trait → the pattern that makes the agent use that kind of tool."""
    starters: ClassVar[tuple[str, ...]]
    """Patterns added (in order) when a skill's selection maps onto too few of this kit's."""
    solver_module: ClassVar[str]
    naive_module: ClassVar[str]

    transformers: ClassVar[Mapping[str, Callable[[Any, int, random.Random, Design], None]]] = {}
    """Pattern id → the function that builds it into a world at an intensity (see `spec.apply_patterns`)."""

    @abstractmethod
    def generate_world(self, seed: int, salt: int) -> Any:
        """The ground-truth world for `seed` before any pattern (`salt` re-draws incidental values)."""

    def world(self, seed: int, patterns: Mapping[str, int], salt: int = 0) -> tuple[Any, Design]:
        """The world for `seed` with `patterns` (id → intensity) built in by `transformers`, and its design."""
        world, design = self.generate_world(seed, salt), Design()
        apply_patterns(self.name, self.transformers, world, patterns, design, seed=seed, salt=salt)
        return world, design

    @abstractmethod
    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        """The world for `seed` with `patterns` applied; `salt` re-draws incidental values."""

    # -- focus ----------------------------------------------------------------------------------

    def focus_of(self, profile: SkillProfile) -> str | None:
        """The part of the kit's world the skill itself works on, for a kit whose task spans several
        (None: the task weighs them alike). Most kits' worlds are one activity and have none."""
        return None

    def compose_focused(self, seed: int, patterns: Mapping[str, int], salt: int, focus: str | None) -> Composition:
        """`compose`, with the task weighted toward `focus` where the kit has parts to focus on."""
        return self.compose(seed, patterns, salt)

    # -- matching -------------------------------------------------------------------------------

    lead: ClassVar[tuple[Trait, ...]] = ()
    """The traits the kit's world is made of (one must show at `LEAD_AT_LEAST`); by default those of
    the highest weight."""

    @property
    def lead_traits(self) -> tuple[Trait, ...]:
        top = max(self.traits.values())
        return self.lead or tuple(t for t, w in self.traits.items() if w == top)

    def matches(self, profile: SkillProfile) -> KitMatch:
        offered = skill_traits(profile)
        for trait, least in self.requires.items():
            shown = offered[trait].strength if trait in offered else 0.0
            if shown < least:
                return KitMatch(self.name, 0.0, f"{self.title}: the skill shows {trait.value} at {shown:.2f}, "
                                                f"the kit needs {least:.2f}")  # fmt: skip
        lead = self.lead_traits
        if not any(offered[t].strength >= LEAD_AT_LEAST for t in lead if t in offered):
            leads = ", ".join(f"{t.value} {offered[t].strength if t in offered else 0.0:.2f}" for t in lead)
            return KitMatch(self.name, 0.0, f"{self.title}: the skill does not work on what the kit's world is "
                                            f"made of ({leads}; one needs {LEAD_AT_LEAST:.2f})")  # fmt: skip
        hits = [(t, w * offered[t].strength) for t, w in self.traits.items() if t in offered]
        score = round(sum(s for _, s in hits), 3)
        if not hits:
            return KitMatch(self.name, 0.0, f"the skill offers none of {', '.join(t.value for t in self.traits)}")
        best = sorted(hits, key=lambda h: -h[1])[:3]
        cues = "; ".join(f"{t.value} ({', '.join(offered[t].cues[:2])})" for t, _ in best)
        return KitMatch(self.name, score, f"{self.title}: {cues}")

    # -- building -------------------------------------------------------------------------------

    def check_patterns(self, patterns: Mapping[str, int]) -> None:
        if not patterns:
            raise KitError(f"kit {self.name}: at least one pattern is needed")
        for pattern_id, level in patterns.items():
            if pattern_id not in self.patterns:
                raise KitError(f"kit {self.name} does not implement pattern {pattern_id}")
            if level not in (1, 2, 3):
                raise KitError(f"pattern {pattern_id}: intensity {level} is not 1, 2 or 3")
        pool = seed_pool()
        for pattern_id in patterns:
            clash = sorted(pool.conflicts(pattern_id) & set(patterns)) if pattern_id in pool else []
            if clash:
                raise KitError(f"pattern {pattern_id} conflicts with {clash}")

    def build(
        self,
        seed: int,
        skill: SkillRef,
        domain: str,
        patterns: Mapping[str, int],
        *,
        iteration: int = 0,
        parent: Blueprint | None = None,
        proposal_id: str = "offline-rules",
        focus: str | None = None,
    ) -> TaskDraft:
        """The task for `seed` with `patterns` (id → intensity): deterministic for the same arguments. A
        rebuild from `parent` keeps the parent's focus."""
        self.check_patterns(patterns)
        if focus is None and parent is not None:
            focus = focus_in(parent)
        composition, leaks = None, []
        for salt in range(MAX_SALTS):
            composition = self.compose_focused(seed, dict(patterns), salt, focus)
            leaks = secret_leaks(composition)
            if not leaks:
                break
        if composition is None or leaks:
            raise KitError(f"kit {self.name} seed {seed}: computed answers show in the workspace: {leaks[:3]}")
        instruction = render_instruction(composition, skill)
        blueprint = assemble_blueprint(self, composition, seed, skill, domain, iteration)
        if parent is not None:
            blueprint = blueprint.model_copy(update={"revision": revision(parent, blueprint, proposal_id)})
            blueprint = Blueprint.model_validate(blueprint.model_dump())
        return TaskDraft(
            blueprint=blueprint,
            instruction=instruction,
            workspace=dict(composition.workspace.files),
            solve_sh=self.reference_solver(),
            author=f"offline:{self.name}",
        )

    def reference_solver(self) -> str:
        return scripts.shell_script(self.solver_module, f"Reference solution ({self.title}).")

    def partial_policy(self) -> str:
        """The reference solver stopped after its first deliverable (validation: must score below 0.7)."""
        return scripts.shell_script(self.solver_module, f"Partial solution ({self.title}).", mode="partial")

    def naive_policy(self) -> str:
        """A scripted baseline that does the obvious thing and ignores the designed challenges."""
        return scripts.shell_script(self.naive_module, f"Naive baseline policy ({self.title}).")

    def harden(
        self, draft_or_blueprint: TaskDraft | Blueprint, item_results: Mapping[str, float | bool]
    ) -> dict[str, int]:
        """The next iteration's patterns (id → intensity): one targeted step (see `kits.hardening`)."""
        from skill2env.kits.hardening import harden

        return harden(self, draft_or_blueprint, item_results)


# -- assembly ------------------------------------------------------------------------------------


FOCUS_FACT = "goal.focus"
"""The stated fact naming a focused task's focus (see `Kit.focus_of`)."""


def focus_in(blueprint: Blueprint) -> str | None:
    return next((str(f.value) for f in blueprint.facts if f.id == FOCUS_FACT and f.value is not None), None)


def task_name(kit: str, skill_name: str, seed: int, iteration: int) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", skill_name.lower()).strip("-")[:40].strip("-") or "skill"
    return f"{kit}-{slug}-s{seed}-i{iteration}"[:80].strip("-")


def value_text(item: Item) -> str | int | float | bool | None:
    """An expected result as a fact value the leak check can search for.

    A secret (computed) number stays a number, so every spelling of it is looked for. Any other
    result is a selection among values the workspace shows, so the fact is the conclusion
    (`item = value`), which must not be written anywhere; a table or list is named by its digest.
    """
    value = item.expected
    if item.secret and isinstance(value, int | float) and not isinstance(value, bool):
        return round(value, 2) if isinstance(value, float) else value
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return f"{item.id} = {value}"
    digest = hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return f"{item.id} digest {digest}"


def haystack(composition: Composition) -> Haystack:
    """Everything an agent can read: every file's text (OCR included), the file names, the instruction."""
    return Haystack.of([*composition.workspace.text.values(), *composition.workspace.files, composition.body])


def secret_leaks(composition: Composition) -> list[str]:
    """Secret (computed) results that are readable somewhere in the workspace or the instruction."""
    secrets = [needle(value_text(item)) for item in composition.items if item.secret]
    if not secrets:
        return []
    if all(target.kind == ValueKind.number for target in secrets):  # numbers only: skip the text index
        texts = [*composition.workspace.text.values(), *composition.workspace.files, composition.body]
        hay = Haystack(numbers=set().union(*(numbers_in(text) for text in texts)))
    else:
        hay = haystack(composition)
    return [
        f"{item.id}={item.expected!r}"
        for item in composition.items
        if item.secret and find(needle(value_text(item)), hay)
    ]


def _item_fact(item: Item) -> Fact:
    return Fact(
        id=expected_fact(item.id),
        statement=f"Expected result checked by rubric item {item.id}: {item.description}",
        value=value_text(item),
        level=InformationLevel.AUTHOR_ONLY,
        derived_from=list(item.derived_from),
    )


def _inferred_fact(challenge: ChallengeSpec, composition: Composition) -> Fact:
    """What the challenge leaves the agent to infer from the facts it planted (no value: a conclusion)."""
    found = [f.id for f in composition.facts if f.level == InformationLevel.DISCOVERABLE]
    return Fact(
        id=f"inferred.{challenge.pattern_id}",
        statement=f"To infer ({challenge.pattern_id}, intensity {challenge.intensity}): {challenge.form}",
        level=InformationLevel.INFERABLE,
        derived_from=list(challenge.facts) or found[:1],
    )


def item_weights(composition: Composition) -> dict[str, float]:
    """Each deliverable's share split evenly over its items; rounded, the last one absorbs the rest."""
    shares = {path: weight for path, _, _, weight in composition.deliverables}
    counts: dict[str, int] = {}
    for item in composition.items:
        counts[item.deliverable] = counts.get(item.deliverable, 0) + 1
    total = math.fsum(shares[p] for p in counts)
    weights = {
        item.id: round(shares[item.deliverable] / total / counts[item.deliverable], 6) for item in composition.items
    }
    last = composition.items[-1].id
    weights[last] = round(1.0 - math.fsum(w for i, w in weights.items() if i != last), 9)
    return weights


def assemble_blueprint(
    kit: Kit, composition: Composition, seed: int, skill: SkillRef, domain: str, iteration: int
) -> Blueprint:
    weights = item_weights(composition)
    items = [
        RubricItem(
            id=item.id,
            description=item.description,
            weight=weights[item.id],
            method=Method.deterministic,
            target_files=[item.deliverable],
            check=item.check,
        )
        for item in composition.items
    ]
    by_pattern: dict[str, list[str]] = {}
    for item in composition.items:
        for pattern_id in item.patterns:
            by_pattern.setdefault(pattern_id, []).append(expected_fact(item.id))
    inferred = [_inferred_fact(c, composition) for c in composition.challenges]
    challenges = [
        Challenge(
            pattern_id=c.pattern_id,
            intensity=c.intensity,
            form=c.form,
            facts=list(dict.fromkeys([*c.facts, inferred[n].id, *by_pattern.get(c.pattern_id, [])])),
        )
        for n, c in enumerate(composition.challenges)
    ]
    return Blueprint(
        task_name=task_name(kit.name, skill.name, seed, iteration),
        goal=composition.goal,
        skill=skill,
        domain=domain,
        iteration=iteration,
        challenges=challenges,
        facts=[*composition.facts, *inferred, *(_item_fact(item) for item in composition.items)],
        derivations=[
            Derivation(result=expected_fact(item.id), from_facts=list(item.derived_from), reasoning=item.reasoning)
            for item in composition.items
        ],
        deliverables=[Deliverable(path=p, format=f, description=d) for p, f, d, _ in composition.deliverables],
        acceptance_criteria=[
            AcceptanceCriterion(id=f"ac.{item.id}", description=item.description, rubric_item=item.id)
            for item in composition.items
        ],
        rubric=Rubric(
            items=items,
            summary=f"{kit.title}: {len(items)} deterministic items over {len(composition.deliverables)} deliverables.",
        ),
        environment=Environment(),
    )


def render_instruction(composition: Composition, skill: SkillRef) -> str:
    lines = [
        f"# {composition.title}",
        "",
        f"The **{skill.name}** skill is available at `{skill.mount}`. Read its `SKILL.md` first and use its "
        "procedures and tools wherever they fit this work.",
        "",
        composition.body.strip(),
        "",
        "## Deliverables",
        "",
        "Write these files into the workspace (`/workspace`):",
        "",
        *(f"- `{path}` ({fmt}): {description}" for path, fmt, description, _ in composition.deliverables),
        "",
    ]
    return "\n".join(lines)


def blueprint_digest(blueprint: Blueprint) -> str:
    return hashlib.sha256(blueprint.model_dump_json().encode()).hexdigest()


def revision(parent: Blueprint, child: Blueprint, proposal_id: str) -> Revision:
    before = {c.pattern_id: c.intensity for c in parent.challenges}
    after = {c.pattern_id: c.intensity for c in child.challenges}
    diff: list[dict[str, Any]] = []
    for pattern_id in sorted(before.keys() | after.keys()):
        if before.get(pattern_id) != after.get(pattern_id):
            diff.append({"pattern_id": pattern_id, "from": before.get(pattern_id), "to": after.get(pattern_id)})
    return Revision(parent_digest=blueprint_digest(parent), proposal_id=proposal_id, diff=diff)

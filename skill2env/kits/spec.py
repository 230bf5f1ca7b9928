"""What a kit's world composes into: workspace files, facts, challenges and rubric items.

A kit's `compose` fills a `Composition`; `skill2env.kits.base.Kit.build` turns it into a Blueprint and
a TaskDraft (instruction, workspace, reference solution, rubric) in one place, so every kit produces
the same contract.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, TypeVar

from skill2env.patterns.models import InformationLevel
from skill2env.rubric import CheckSpec
from skill2env.tasks.blueprint import Fact

_FACT_ID = re.compile(r"[^a-z0-9_.-]+")


class KitError(ValueError):
    """A kit cannot build the requested task (unknown pattern, bad intensity, or an answer that leaks)."""


W = TypeVar("W")
"""A kit's world type."""


def seeded(*parts: object) -> random.Random:
    """A generator seeded from `parts` (same parts, same draws on every machine and Python run)."""
    return random.Random(":".join(str(p) for p in parts))  # noqa: S311 - reproducible worlds, not cryptography


def apply_patterns(kit: str, transformers: Mapping[str, Callable[[W, int, random.Random, Design], None]], world: W,
                   patterns: Mapping[str, int], design: Design, *, seed: int, salt: int) -> None:  # fmt: skip
    """Apply the transformer of every pattern in `patterns` at its intensity, in the transformers'
    order, each with its own generator (adding a pattern never changes another's draws)."""
    for pattern_id, transform in transformers.items():
        if pattern_id in patterns:
            transform(world, patterns[pattern_id], seeded(kit, seed, salt, pattern_id), design)


class QuarterWorld:
    """A world that covers one calendar quarter: its dataclass has `year`, `quarter` and `months` (the
    first day of each month, in order)."""

    year: int
    quarter: int
    months: list[date]

    @property
    def period(self) -> str:
        return f"{self.year}-Q{self.quarter}"

    @property
    def start(self) -> date:
        return self.months[0]

    @property
    def end(self) -> date:
        last = self.months[-1]
        return date(last.year + (last.month == 12), last.month % 12 + 1, 1) - timedelta(days=1)


def fact_id(*parts: object) -> str:
    """A fact id from free parts: lower case, only `a-z0-9_.-`."""
    text = ".".join(str(p) for p in parts).lower()
    return _FACT_ID.sub("-", text).strip("-.") or "fact"


@dataclass
class Workspace:
    """The initial workspace: files by relative path, and the plain text each one shows an agent.

    `text` is what an agent can read out of a file (OCR included), recorded as the renderers write it;
    the build's leak guard searches it for author-only values.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    text: dict[str, str] = field(default_factory=dict)

    def add(self, path: str, data: bytes, text: str | None = None) -> str:
        if path in self.files:
            raise KitError(f"workspace file {path} written twice")
        self.files[path] = data
        self.text[path] = text if text is not None else data.decode("utf-8", "replace")
        return path

    def add_text(self, path: str, text: str) -> str:
        return self.add(path, text.encode(), text)


def draw_benign(levels: dict[str, int], harmful: set[str], pattern: str, level: int, rng: random.Random,
                odds: Mapping[int, float]) -> bool:  # fmt: skip
    """Record `pattern` at `level` in a world's `levels` and draw whether its trap is harmless this time
    (`odds` by level); a trap that bites is added to the world's `harmful`."""
    levels[pattern] = level
    if rng.random() < odds[level]:
        return True
    harmful.add(pattern)
    return False


@dataclass
class Design:
    """What pattern transformers planted: per pattern a form and fact ids; facts as (id, statement, value, file)."""

    forms: dict[str, str] = field(default_factory=dict)
    facts: list[tuple[str, str, object, str]] = field(default_factory=list)
    pattern_facts: dict[str, list[str]] = field(default_factory=dict)

    def plant(self, pattern: str, fid: str, statement: str, value: object, location: str) -> None:
        fid = fact_id(fid)
        self.facts.append((fid, statement, value, location))
        self.pattern_facts.setdefault(pattern, []).append(fid)

    def facts_of(self, pattern: str) -> tuple[str, ...]:
        return tuple(self.pattern_facts.get(pattern, ()))


@dataclass(frozen=True)
class Item:
    """One deterministic rubric item and the author-only result it checks."""

    id: str
    description: str
    deliverable: str
    """The deliverable's path: items share their deliverable's weight."""
    check: CheckSpec
    expected: Any
    """The result the check compares against (becomes the item's author-only fact)."""
    derived_from: tuple[str, ...]
    """Fact ids the result follows from."""
    reasoning: str
    patterns: tuple[str, ...] = ()
    """Pattern ids whose challenge this item checks (hardening reads them)."""
    secret: bool = False
    """True when the value must not be readable anywhere in the workspace (a computed total);
    False for a selection among values the workspace shows (an id, a status)."""


@dataclass(frozen=True)
class ChallengeSpec:
    pattern_id: str
    intensity: int
    form: str
    facts: tuple[str, ...] = ()


@dataclass
class Composition:
    """Everything a kit's world yields for one build."""

    title: str
    goal: str
    body: str
    """The task-specific part of the instruction (Markdown)."""
    workspace: Workspace
    facts: list[Fact]
    challenges: list[ChallengeSpec]
    deliverables: list[tuple[str, str, str, float]]
    """(path, format, description, weight share of the rubric)."""
    items: list[Item]

    def plant(self, design: Design) -> None:
        """The designed facts (a fact with no file is stated), each located in a file that exists."""
        for fid, statement, value, location in design.facts:
            level = InformationLevel.DISCOVERABLE if location else InformationLevel.STATED
            self.fact(fid, statement, level, value, location=self.resolve(location) if location else None)

    def resolve(self, location: str) -> str:
        """The workspace file (or folder) holding what was planted at `location` before it was renamed,
        compressed or packed into an archive by a later pattern."""
        files = self.workspace.files
        if location.endswith("/") or location in files:
            return location
        if location + ".gz" in files:
            return location + ".gz"
        if "!/" in location and location.split("!/")[0] in files:
            return location.split("!/")[0]
        folder = location.rsplit("/", 1)[0] + "/" if "/" in location else ""
        archives = [p for p in files if p.startswith(folder) and p.endswith((".zip", ".tar.gz", ".tgz"))]
        return archives[0] if archives else (folder or location)

    def fact(
        self,
        fid: str,
        statement: str,
        level: InformationLevel,
        value: Any = None,
        *,
        location: str | None = None,
        derived_from: list[str] | None = None,
    ) -> str:
        """Record a fact once (same id twice keeps the first) and return its id."""
        if all(f.id != fid for f in self.facts):
            self.facts.append(
                Fact(
                    id=fid,
                    statement=statement,
                    value=_scalar(value),
                    level=level,
                    location=location,
                    derived_from=derived_from or [],
                )
            )
        return fid


def _scalar(value: Any) -> str | int | float | bool | None:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)

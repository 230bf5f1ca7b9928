"""The authors `skill2env run` uses: the model author when one is configured, else the world kits.

`KitAuthor` matches a curated skill to the world kit that fits it best (from the same trait
profile pattern selection uses), maps the skill's selected patterns onto the patterns that kit
implements, tops them up with the kit's starters and the pattern that exercises the skill's kind
of tool, and builds the task at intensity 1 with a seed derived from the skill — so re-running
authors the same tasks.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from skill2env.home import Home
from skill2env.kits import KITS, Kit
from skill2env.kits.spec import KitError
from skill2env.lake.lake import Lake
from skill2env.llm.config import LlmSettings
from skill2env.patterns.traits import SkillProfile, skill_traits
from skill2env.tasks.authoring import Author, Rejection
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.model_author import model_author

MIN_PATTERNS = 3
MAX_PATTERNS = 5
SKILLS_MOUNT = "/skills"


class KitAuthor:
    """An `Author` backed by the offline world kits."""

    name = "offline-kits"

    def __init__(self, kits: Mapping[str, Kit] | None = None) -> None:
        self.kits = dict(kits or KITS)

    def draft(self, skill_row: Mapping[str, Any], selection_rows: Sequence[Mapping[str, Any]]) -> TaskDraft | Rejection:
        profile = SkillProfile.from_row(_profile_row(skill_row))
        matches = sorted(((kit.matches(profile), kit) for kit in self.kits.values()), key=lambda m: -m[0].score)
        best, kit = matches[0]
        if best.score <= 0:
            reasons = "; ".join(f"{m.kit}: {m.reason}" for m, _ in matches)
            return Rejection(f"no world kit fits this skill ({reasons})", author=self.name)
        patterns = kit_patterns(kit, profile, [str(r["pattern_id"]) for r in selection_rows if r.get("pattern_id")])
        skill = SkillRef(
            skill_id=str(skill_row["skill_id"]),
            name=str(skill_row.get("name") or skill_row["path"]).strip() or "skill",
            path=str(skill_row["path"]),
            mount=f"{SKILLS_MOUNT}/{_slug(str(skill_row.get('name') or skill_row['path']))}",
        )
        try:
            return kit.build(seed_of(skill.skill_id), skill, str(skill_row.get("domain") or "other"), patterns)
        except KitError as exc:
            return Rejection(f"kit {kit.name} could not build a task: {exc}", author=self.name)


def kit_patterns(kit: Kit, profile: SkillProfile, selected: Sequence[str]) -> dict[str, int]:
    """The skill's selected patterns the kit implements, then the tool pattern for the skill's
    strongest trait the kit knows, then the kit's starters, up to MAX_PATTERNS (intensity 1)."""
    chosen = [p for p in selected if p in kit.patterns]
    traits = skill_traits(profile)
    for trait, pattern_id in kit.tool_patterns.items():
        if trait in traits and pattern_id not in chosen:
            chosen.insert(0, pattern_id)
            break
    for starter in kit.starters:
        if len(chosen) >= MIN_PATTERNS:
            break
        if starter not in chosen:
            chosen.append(starter)
    ordered = list(dict.fromkeys(chosen))[:MAX_PATTERNS]
    patterns: dict[str, int] = {}
    for pattern_id in ordered:  # keep what the kit accepts together
        try:
            kit.check_patterns({**patterns, pattern_id: 1})
        except KitError:
            continue
        patterns[pattern_id] = 1
    return patterns


def seed_of(skill_id: str) -> int:
    return int(hashlib.sha256(skill_id.encode()).hexdigest()[:8], 16) % 100_000


def offline_or_model_author() -> Author:
    """The author of `skill2env run`: the model author when the author role has an endpoint (its
    `llm_calls` are appended to the home's lake after every skill), else the offline kits."""
    home = Home.resolve(None)
    author = model_author(LlmSettings.load(home), lake=Lake(home.lake_path))
    return author if author is not None else KitAuthor()


def _profile_row(row: Mapping[str, Any]) -> dict[str, Any]:
    dependencies = row.get("dependencies") or []
    names = [d.get("name") for d in dependencies if isinstance(d, Mapping)]
    return dict(row) | {"dependency_names": names}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "skill"

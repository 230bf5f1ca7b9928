"""The author role's model chooses (re-ranks) a skill's patterns among the rule-based candidates.

The rules find the compatible candidates; the model picks the subset that fits one goal and says
why. Its ids are validated against the candidates (sent back for repair when wrong), conflicts
and the policy's bounds are enforced, and on any model failure the rule-based choice stands with
a note saying why. It never invents a pattern: only pool ids reach the table.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from typing import Literal

from pydantic import BaseModel, Field, create_model

from skill2env.llm import ModelClient, ModelError, Prompt, render
from skill2env.llm.session import LlmSession
from skill2env.patterns.models import Trait
from skill2env.patterns.pool import PatternPool
from skill2env.patterns.selection import (
    Choice,
    ScoredPattern,
    Selection,
    SelectionPolicy,
    SelectionStatus,
    goal_focus,
    score_patterns,
    select_patterns,
)
from skill2env.patterns.traits import SkillProfile, TraitEvidence, skill_traits

logger = logging.getLogger(__name__)

ROLE = "author"
TEMPLATE = "author_select_patterns"
MAX_CANDIDATES = 25
MAX_SKILL_MD_CHARS = 8_000


class ModelPick(BaseModel):
    pattern_id: str = Field(max_length=64)
    rationale: str = Field(min_length=10, max_length=400)


class ModelChoice(BaseModel):
    picks: list[ModelPick] = Field(min_length=1, max_length=8)


@cache
def choice_model(candidates: tuple[str, ...], fewest: int, most: int) -> type[ModelChoice]:
    """`ModelChoice` whose schema says what the checks say: ids from `candidates` only (an enum) and
    between `fewest` and `most` picks, so a server that constrains output to the schema enforces them."""
    pick = create_model("ModelPick", __base__=ModelPick, pattern_id=(Literal[candidates], ...))  # type: ignore[arg-type]
    bounds = Field(min_length=fewest, max_length=most)
    return create_model("ModelChoice", __base__=ModelChoice, picks=(list[pick], bounds))


class ModelPatternChooser:
    """Chooses patterns with the author role's model; falls back to the rules (see the module docstring)."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client
        self.chooser = f"model:{client.model}"

    def select(self, profile: SkillProfile, pool: PatternPool, policy: SelectionPolicy) -> Selection:
        rules = select_patterns(profile, pool, policy)
        if rules.status == SelectionStatus.no_compatible_pattern:
            return rules
        traits = skill_traits(profile)
        candidates = score_patterns(profile, traits, goal_focus(traits, policy.focus_size), pool, policy)
        candidates = candidates[:MAX_CANDIDATES]
        by_id = {c.pattern.id: c for c in candidates}
        try:
            answer = self.client.structured(
                self._prompt(profile, traits, candidates, pool, policy),
                choice_model(tuple(by_id), policy.min_patterns, policy.max_patterns),
                check=lambda choice: problems(choice, by_id, pool, policy),
                partition_key=profile.domain,
            ).value
        except ModelError as exc:
            logger.warning("author %s could not choose patterns for %s: %s", self.client.model, profile.path, exc)
            note = f"{self.chooser} failed ({type(exc).__name__}); rule-based choice kept"
            return replace(rules, notes=(*rules.notes, note))
        choices = tuple(
            Choice(pick.pattern_id, by_id[pick.pattern_id].pattern.capability.value,
                   by_id[pick.pattern_id].score, pick.rationale)
            for pick in answer.picks
        )  # fmt: skip
        return replace(rules, status=SelectionStatus.selected, choices=choices, reason=None, chooser=self.chooser)

    def _prompt(
        self,
        profile: SkillProfile,
        traits: dict[Trait, TraitEvidence],
        candidates: Sequence[ScoredPattern],
        pool: PatternPool,
        policy: SelectionPolicy,
    ) -> Prompt:
        text = profile.text
        return render(
            TEMPLATE,
            name=profile.name,
            domain=profile.domain,
            traits=[{"name": t.value, "cues": list(e.cues[:3])} for t, e in sorted(traits.items())],
            skill_md=text[:MAX_SKILL_MD_CHARS],
            truncated=len(text) > MAX_SKILL_MD_CHARS,
            candidates=[
                {
                    "id": c.pattern.id,
                    "capability": c.pattern.capability.value,
                    "description": c.pattern.description,
                    "conflicts": sorted(pool.conflicts(c.pattern.id)),
                }
                for c in candidates
            ],
            min_patterns=policy.min_patterns,
            max_patterns=policy.max_patterns,
        )


def problems(choice: ModelChoice, candidates: dict[str, ScoredPattern], pool: PatternPool,
             policy: SelectionPolicy) -> list[str]:  # fmt: skip
    """What is wrong with a model's choice (sent back to it for repair); [] when it is acceptable."""
    found = []
    ids = [pick.pattern_id for pick in choice.picks]
    unknown = [i for i in ids if i not in candidates]
    if unknown:
        found.append(f"not in the candidate list: {unknown}; choose only listed ids")
    if len(set(ids)) != len(ids):
        found.append("a pattern is chosen twice")
    if not policy.min_patterns <= len(set(ids)) <= policy.max_patterns:
        found.append(f"choose between {policy.min_patterns} and {policy.max_patterns} patterns, not {len(set(ids))}")
    for i, first in enumerate(ids):
        for second in ids[i + 1 :]:
            if first in pool and second in pool.conflicts(first):
                found.append(f"{first} and {second} conflict; drop one")
    return found


def model_pattern_chooser(session: LlmSession) -> ModelPatternChooser | None:
    """The model chooser when the author role is configured; None (rules only) otherwise."""
    return ModelPatternChooser(session.client(ROLE)) if session.configured(ROLE) else None

"""The task blueprint: the author-side contract and single source of truth for one task.

Instruction, workspace, environment, rubric and reference solution are all built from it, and
revised together when hardening changes it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from skill2env.patterns.models import InformationLevel
from skill2env.rubric import Rubric

BLUEPRINT_SCHEMA_VERSION = 1


MAX_REFERENCES = 100
"""The most facts one challenge, fact or derivation may name (a bound in the schema a model answers to)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SkillRef(_Model):
    skill_id: str
    name: str
    path: str
    """Folder relative to the skills root."""
    mount: str = "/skills"
    """Where the skill folder is available inside the environment (named in the instruction)."""


class Challenge(_Model):
    """One pattern instance: which pattern, how strong, the concrete form it takes in this task."""

    pattern_id: str
    intensity: int = Field(ge=1, le=3)
    form: str = Field(min_length=10)
    facts: list[str] = Field(default_factory=list, max_length=MAX_REFERENCES)
    """Ids of the facts that carry the challenge."""


class Fact(_Model):
    """A piece of the environment's ground truth and where it lives."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    statement: str = Field(min_length=3)
    value: str | int | float | bool | None = None
    """The value as it must appear (discoverable facts) or must never appear (author-only ones)."""
    level: InformationLevel
    location: str | None = None
    """Workspace file holding a discoverable fact (relative to the workspace)."""
    derived_from: list[str] = Field(default_factory=list, max_length=MAX_REFERENCES)
    """Inferable and author-only facts: the fact ids they follow from."""

    @model_validator(mode="after")
    def _where_it_lives(self) -> Fact:
        if self.level == InformationLevel.DISCOVERABLE and not self.location:
            raise ValueError(f"fact {self.id}: a discoverable fact names the workspace file that holds it")
        if self.level == InformationLevel.INFERABLE and not self.derived_from:
            raise ValueError(f"fact {self.id}: an inferable fact names the facts it follows from")
        return self


class Derivation(_Model):
    """How one expected result follows from the facts (the reference reasoning; author-only)."""

    result: str
    """The fact id (author-only) or deliverable field it produces."""
    from_facts: list[str] = Field(min_length=1, max_length=MAX_REFERENCES)
    reasoning: str = Field(min_length=5)


class Deliverable(_Model):
    path: str
    """Relative to the workspace."""
    format: str
    description: str


class AcceptanceCriterion(_Model):
    id: str
    description: str = Field(min_length=5)
    rubric_item: str
    """The one rubric item that checks this criterion."""


class Environment(_Model):
    base_image: str = "skill2env-base"
    apt_packages: list[str] = Field(default_factory=list)
    pip_packages: list[str] = Field(default_factory=list)
    npm_packages: list[str] = Field(default_factory=list)
    """Installed globally with npm (which the build adds from Debian); left out of the serialized form
    when empty, so blueprints that declare none keep the digests they had before the field existed."""
    network_mode: str = "none"
    cpus: float = 1.0
    memory_mb: int = 2048
    storage_mb: int = 2048
    agent_timeout_sec: int = 1800
    verifier_timeout_sec: int = 600

    @model_serializer(mode="wrap")
    def _without_empty_npm(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not self.npm_packages:
            data.pop("npm_packages", None)
        return data


class Revision(_Model):
    """Where a revised blueprint came from (hardening)."""

    parent_digest: str
    proposal_id: str
    diff: list[dict[str, Any]] = Field(default_factory=list)


class Blueprint(_Model):
    schema_version: int = BLUEPRINT_SCHEMA_VERSION
    task_name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=80)
    goal: str = Field(min_length=10)
    """What the requester wants, in their words."""
    skill: SkillRef
    domain: str
    iteration: int = Field(default=0, ge=0)
    challenges: list[Challenge] = Field(min_length=1)
    facts: list[Fact] = Field(min_length=1)
    derivations: list[Derivation] = Field(default_factory=list)
    deliverables: list[Deliverable] = Field(min_length=1)
    acceptance_criteria: list[AcceptanceCriterion] = Field(min_length=1)
    rubric: Rubric
    environment: Environment = Environment()
    revision: Revision | None = None

    def facts_at(self, level: InformationLevel) -> list[Fact]:
        return [fact for fact in self.facts if fact.level == level]

    @property
    def information_boundary(self) -> dict[str, list[str]]:
        """Fact ids by level: stated, discoverable, inferable, author_only."""
        return {level.value: [f.id for f in self.facts_at(level)] for level in InformationLevel}

    @property
    def pattern_ids(self) -> list[str]:
        """The patterns the challenges instantiate, in challenge order, each once."""
        return list(dict.fromkeys(challenge.pattern_id for challenge in self.challenges))

    def canonical_json(self) -> str:
        """Sorted keys, no whitespace: the form the digest is taken over (stable across runs)."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def digest(self) -> str:
        """sha256 (hex) of the canonical JSON: the blueprint's identity in the lake and in revisions."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()

    @model_validator(mode="after")
    def _consistent(self) -> Blueprint:
        fact_ids = [f.id for f in self.facts]
        repeated = sorted({i for i in fact_ids if fact_ids.count(i) > 1})
        if repeated:
            raise ValueError(f"fact ids repeat: {repeated}")
        known = set(fact_ids)
        for fact in self.facts:
            missing = sorted(set(fact.derived_from) - known)
            if missing:
                raise ValueError(f"fact {fact.id} is derived from unknown facts {missing}")
        for derivation in self.derivations:
            missing = sorted(set(derivation.from_facts) - known)
            if missing:
                raise ValueError(f"derivation of {derivation.result} uses unknown facts {missing}")
        for challenge in self.challenges:
            missing = sorted(set(challenge.facts) - known)
            if missing:
                raise ValueError(f"challenge {challenge.pattern_id} names unknown facts {missing}")
        item_ids = [item.id for item in self.rubric.items]
        mapped = [c.rubric_item for c in self.acceptance_criteria]
        if sorted(mapped) != sorted(item_ids):
            raise ValueError(
                "every acceptance criterion maps to exactly one rubric item and every item to one criterion: "
                f"criteria → {sorted(mapped)}, rubric items {sorted(item_ids)}"
            )
        return self

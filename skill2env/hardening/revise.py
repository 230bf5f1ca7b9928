"""Hardening proposals and `revise_blueprint`: B(j+1) = ReviseBlueprint(B(j), H(j)).

A proposal is a list of typed changes. Applying it never mutates the blueprint: the changes are
applied, in order, to a copy of its JSON form, each recording JSON-Patch-like operations
(`{"op": "add" | "remove" | "replace", "path": "/facts/3", "value": …, "old": …}`, paths valid
at the moment the operation ran), and the result is validated as a new blueprint whose
`revision` holds the parent's digest, the proposal id and that diff, with `iteration` + 1.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.rubric import RubricItem
from skill2env.rubric.models import WEIGHT_TOLERANCE
from skill2env.tasks.blueprint import AcceptanceCriterion, Blueprint, Deliverable, Fact

WEIGHT_DIGITS = 10
"""Re-weighted weights are rounded here so they stay readable; the sum is then fixed on the largest."""


class RevisionError(ValueError):
    """A proposal does not apply to the blueprint (unknown target, weaker intensity, broken references)."""


class _Change(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StrengthenChallenge(_Change):
    """Raise challenge `challenge` (its index) to `intensity`, with the form it now takes."""

    op: Literal["strengthen_challenge"] = "strengthen_challenge"
    challenge: int = Field(ge=0)
    intensity: int = Field(ge=1, le=3)
    form: str = Field(min_length=10)
    facts: list[str] | None = None
    """The fact ids carrying the stronger challenge; None keeps the current ones."""


class AddChallenge(_Change):
    op: Literal["add_challenge"] = "add_challenge"
    pattern_id: str
    form: str = Field(min_length=10)
    intensity: int = Field(default=1, ge=1, le=3)
    facts: list[str] = Field(default_factory=list)


class AddFact(_Change):
    op: Literal["add_fact"] = "add_fact"
    fact: Fact


class ReplaceFact(_Change):
    """Replace the fact with the same id (its value, level, location … change)."""

    op: Literal["replace_fact"] = "replace_fact"
    fact: Fact


class RemoveFact(_Change):
    """Remove a fact; it is also dropped from the challenges that name it."""

    op: Literal["remove_fact"] = "remove_fact"
    fact_id: str


class AddRubricItem(_Change):
    """A new rubric item with its share of the total weight; the existing items are scaled to make room."""

    op: Literal["add_rubric_item"] = "add_rubric_item"
    item: RubricItem
    criterion: str = Field(min_length=5)
    """The acceptance criterion the item checks (one criterion per item)."""
    criterion_id: str | None = None
    """Defaults to `ac-<item id>`."""


class AddDeliverable(_Change):
    op: Literal["add_deliverable"] = "add_deliverable"
    deliverable: Deliverable


Change = Annotated[
    StrengthenChallenge | AddChallenge | AddFact | ReplaceFact | RemoveFact | AddRubricItem | AddDeliverable,
    Field(discriminator="op"),
]


class HardeningProposal(BaseModel):
    """What a diagnosis proposes for the next iteration of one task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    rationale: str = ""
    """Which challenges were bypassed, and how (from the diagnosis)."""
    changes: list[Change] = Field(min_length=1)


Patch = list[dict[str, Any]]


def revise_blueprint(blueprint: Blueprint, proposal: HardeningProposal) -> Blueprint:
    """The next iteration of `blueprint` with `proposal` applied and recorded.

    Raises:
        RevisionError: a change names something that does not exist, weakens a challenge, leaves
            the weights unable to sum to 1, or the result is not a valid blueprint.
    """
    data = blueprint.model_dump(mode="json")
    diff: Patch = []
    added_items: list[RubricItem] = []
    for change in proposal.changes:
        if isinstance(change, AddRubricItem):
            added_items.append(change.item)
        diff += _apply(data, change)
    if added_items:
        diff += _reweight(data, {item.id for item in added_items})
    diff.append({"op": "replace", "path": "/iteration", "old": data["iteration"], "value": data["iteration"] + 1})
    data["iteration"] += 1
    data["revision"] = {"parent_digest": blueprint.digest(), "proposal_id": proposal.id, "diff": diff}
    try:
        return Blueprint.model_validate(data)
    except ValidationError as exc:
        raise RevisionError(f"proposal {proposal.id} does not give a valid blueprint: {exc}") from exc


def _apply(data: dict[str, Any], change: _Change) -> Patch:
    if isinstance(change, StrengthenChallenge):
        return _strengthen(data, change)
    if isinstance(change, AddChallenge):
        if any(c["pattern_id"] == change.pattern_id for c in data["challenges"]):
            raise RevisionError(f"pattern {change.pattern_id} is already a challenge: strengthen it instead")
        value = change.model_dump(mode="json", exclude={"op"})
        data["challenges"].append(value)
        return [{"op": "add", "path": "/challenges/-", "value": value}]
    if isinstance(change, AddFact):
        if _index(data["facts"], change.fact.id) is not None:
            raise RevisionError(f"fact {change.fact.id} already exists: replace it instead")
        value = change.fact.model_dump(mode="json")
        data["facts"].append(value)
        return [{"op": "add", "path": "/facts/-", "value": value}]
    if isinstance(change, ReplaceFact):
        index = _require(data["facts"], change.fact.id, "fact")
        old, value = data["facts"][index], change.fact.model_dump(mode="json")
        data["facts"][index] = value
        return [{"op": "replace", "path": f"/facts/{index}", "old": old, "value": value}]
    if isinstance(change, RemoveFact):
        return _remove_fact(data, change.fact_id)
    if isinstance(change, AddRubricItem):
        return _add_item(data, change)
    if isinstance(change, AddDeliverable):
        if any(d["path"] == change.deliverable.path for d in data["deliverables"]):
            raise RevisionError(f"deliverable {change.deliverable.path} already exists")
        value = change.deliverable.model_dump(mode="json")
        data["deliverables"].append(value)
        return [{"op": "add", "path": "/deliverables/-", "value": value}]
    raise RevisionError(f"unknown change {change!r}")


def _strengthen(data: dict[str, Any], change: StrengthenChallenge) -> Patch:
    if change.challenge >= len(data["challenges"]):
        raise RevisionError(f"there is no challenge {change.challenge} (the blueprint has {len(data['challenges'])})")
    challenge = data["challenges"][change.challenge]
    if change.intensity < challenge["intensity"]:
        raise RevisionError(
            f"challenge {change.challenge} ({challenge['pattern_id']}) is at intensity {challenge['intensity']}; "
            f"hardening cannot lower it to {change.intensity}"
        )
    patch: Patch = []
    updates: dict[str, Any] = {"intensity": change.intensity, "form": change.form}
    if change.facts is not None:
        updates["facts"] = list(change.facts)
    for key, value in updates.items():
        if challenge[key] != value:
            patch.append({"op": "replace", "path": f"/challenges/{change.challenge}/{key}",
                          "old": challenge[key], "value": value})  # fmt: skip
            challenge[key] = value
    return patch


def _remove_fact(data: dict[str, Any], fact_id: str) -> Patch:
    index = _require(data["facts"], fact_id, "fact")
    patch: Patch = [{"op": "remove", "path": f"/facts/{index}", "old": data["facts"].pop(index)}]
    for number, challenge in enumerate(data["challenges"]):
        if fact_id in challenge["facts"]:
            position = challenge["facts"].index(fact_id)
            challenge["facts"].pop(position)
            patch.append({"op": "remove", "path": f"/challenges/{number}/facts/{position}", "old": fact_id})
    return patch


def _add_item(data: dict[str, Any], change: AddRubricItem) -> Patch:
    items = data["rubric"]["items"]
    if _index(items, change.item.id) is not None:
        raise RevisionError(f"rubric item {change.item.id} already exists")
    criterion_id = change.criterion_id or f"ac-{change.item.id}"
    if _index(data["acceptance_criteria"], criterion_id) is not None:
        raise RevisionError(f"acceptance criterion {criterion_id} already exists")
    item = change.item.model_dump(mode="json")
    criterion = AcceptanceCriterion(id=criterion_id, description=change.criterion, rubric_item=change.item.id)
    items.append(item)
    data["acceptance_criteria"].append(criterion.model_dump(mode="json"))
    return [
        {"op": "add", "path": "/rubric/items/-", "value": item},
        {"op": "add", "path": "/acceptance_criteria/-", "value": criterion.model_dump(mode="json")},
    ]


def _reweight(data: dict[str, Any], added: set[str]) -> Patch:
    """Scale the existing items so that, with the added items' weights as given, Σ w = 1."""
    items = data["rubric"]["items"]
    share = math.fsum(item["weight"] for item in items if item["id"] in added)
    if share >= 1.0 - WEIGHT_TOLERANCE:
        raise RevisionError(f"the added rubric items weigh {share:.6g} together; they must leave room for the others")
    kept = [index for index, item in enumerate(items) if item["id"] not in added]
    scale = (1.0 - share) / math.fsum(items[index]["weight"] for index in kept)
    new = {index: round(items[index]["weight"] * scale, WEIGHT_DIGITS) for index in kept}
    largest = max(kept, key=lambda index: new[index])
    new[largest] = round(1.0 - share - math.fsum(w for i, w in new.items() if i != largest), WEIGHT_DIGITS)
    patch: Patch = []
    for index in kept:
        old = items[index]["weight"]
        if new[index] != old:
            items[index]["weight"] = new[index]
            patch.append({"op": "replace", "path": f"/rubric/items/{index}/weight", "old": old, "value": new[index]})
    return patch


def _index(entries: list[dict[str, Any]], entry_id: str) -> int | None:
    return next((i for i, entry in enumerate(entries) if entry["id"] == entry_id), None)


def _require(entries: list[dict[str, Any]], entry_id: str, what: str) -> int:
    index = _index(entries, entry_id)
    if index is None:
        raise RevisionError(f"there is no {what} {entry_id}")
    return index

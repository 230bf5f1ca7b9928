"""revise_blueprint: proposals applied immutably, recorded as a replayable diff, iteration + 1."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest
from task_samples import billing_blueprint

from skill2env.hardening.revise import (
    AddChallenge,
    AddDeliverable,
    AddFact,
    AddRubricItem,
    HardeningProposal,
    RemoveFact,
    ReplaceFact,
    RevisionError,
    StrengthenChallenge,
    revise_blueprint,
)
from skill2env.patterns.models import InformationLevel
from skill2env.rubric.models import CheckSpec, Method, RubricItem
from skill2env.tasks.blueprint import Blueprint, Deliverable, Fact

AMENDMENT = Fact(
    id="amended_rate",
    statement="The signed amendment raises the senior rate from February",
    value="121.00",
    level=InformationLevel.DISCOVERABLE,
    location="amendment.pdf",
)
ROUND_ONE = HardeningProposal(
    id="diag-7:round-1",
    rationale="The solver read every rate from the annex; move the key rate into a signed amendment.",
    changes=[
        StrengthenChallenge(
            challenge=3,
            intensity=3,
            form="The senior rate changes mid-quarter in a signed amendment.",
            facts=["rate_senior", "amended_rate", "hours_feb_senior"],
        ),
        AddFact(fact=AMENDMENT),
        AddChallenge(
            pattern_id="scope_distractor",
            form="A second Northwind project bills the same roles.",
            intensity=2,
            facts=["amended_rate"],
        ),
        AddRubricItem(
            item=RubricItem(
                id="amendment_applied",
                description="February lines use the amended rate",
                weight=0.2,
                method=Method.deterministic,
                target_files=["reconciliation/detail.csv"],
                check=CheckSpec(check="csv_equals", params={"path": "reconciliation/detail.csv"}),
            ),
            criterion="Lines after the amendment use the amended rate",
        ),
        AddDeliverable(
            deliverable=Deliverable(
                path="reconciliation/rates.json", format="json", description="The rate applied per month"
            )
        ),
    ],
)


def replay(document: dict[str, Any], diff: list[dict[str, Any]]) -> dict[str, Any]:
    """Apply a JSON-Patch-like diff (add / remove / replace, `-` appends) to a copy of `document`."""
    document = copy.deepcopy(document)
    for op in diff:
        *parents, last = [part for part in op["path"].split("/")[1:]]
        node: Any = document
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if op["op"] == "add" and last == "-":
            node.append(copy.deepcopy(op["value"]))
        elif op["op"] == "remove":
            assert node[int(last)] == op["old"]
            node.pop(int(last))
        else:
            key = int(last) if isinstance(node, list) else last
            assert node[key] == op["old"], op
            node[key] = copy.deepcopy(op["value"])
    return document


def test_revision_is_immutable_recorded_and_replayable() -> None:
    before = billing_blueprint()
    frozen = before.model_dump(mode="json")
    after = revise_blueprint(before, ROUND_ONE)

    assert before.model_dump(mode="json") == frozen
    assert after.iteration == 1 and after.revision is not None
    assert after.revision.parent_digest == before.digest() and after.revision.proposal_id == "diag-7:round-1"
    assert after.digest() != before.digest()
    replayed = replay(frozen, after.revision.diff)
    assert replayed == after.model_dump(mode="json") | {"revision": None}
    json.dumps(after.revision.diff)  # plain JSON


def test_strengthening_records_only_what_changed() -> None:
    after = revise_blueprint(
        billing_blueprint(),
        HardeningProposal(
            id="p",
            changes=[
                StrengthenChallenge(
                    challenge=0, intensity=2, form="Two invoices carry arithmetic errors of different sizes."
                )
            ],
        ),
    )
    assert after.challenges[0].intensity == 2
    assert after.revision is not None
    assert [(op["op"], op["path"]) for op in after.revision.diff] == [
        ("replace", "/challenges/0/intensity"),
        ("replace", "/challenges/0/form"),
        ("replace", "/iteration"),
    ]


def test_added_items_take_their_share_and_the_rest_scale() -> None:
    before = billing_blueprint()
    after = revise_blueprint(before, ROUND_ONE)
    weights = {item.id: item.weight for item in after.rubric.items}

    assert math.isclose(math.fsum(weights.values()), 1.0, abs_tol=1e-9)
    assert weights["amendment_applied"] == 0.2
    for item in before.rubric.items:
        assert weights[item.id] == pytest.approx(item.weight * 0.8)
    assert [c.rubric_item for c in after.acceptance_criteria][-1] == "amendment_applied"
    assert after.acceptance_criteria[-1].id == "ac-amendment_applied"
    assert after.deliverables[-1].path == "reconciliation/rates.json"
    assert after.pattern_ids[-1] == "scope_distractor"


def test_facts_are_replaced_and_removed_with_their_references() -> None:
    changed = Fact(
        id="vendor_id",
        statement="The vendor's id in the new ERP",
        value="V-20881",
        level=InformationLevel.DISCOVERABLE,
        location="vendor.json",
    )
    after = revise_blueprint(
        billing_blueprint(),
        HardeningProposal(id="p", changes=[ReplaceFact(fact=changed), RemoveFact(fact_id="partial_payment_date")]),
    )
    assert {f.id: f.value for f in after.facts}["vendor_id"] == "V-20881"
    assert "partial_payment_date" not in {f.id for f in after.facts}
    assert after.challenges[2].facts == ["partial_payment"]
    assert after.revision is not None
    assert {"op": "remove", "path": "/challenges/2/facts/1", "old": "partial_payment_date"} in after.revision.diff


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (StrengthenChallenge(challenge=3, intensity=1, form="weaker than before, surely"), "cannot lower"),
        (StrengthenChallenge(challenge=9, intensity=3, form="there is no tenth challenge"), "no challenge 9"),
        (AddChallenge(pattern_id="distributed_evidence", form="already instantiated"), "strengthen it instead"),
        (AddFact(fact=Fact(id="vendor_id", statement="again", value="x", level="stated")), "already exists"),
        (RemoveFact(fact_id="nope"), "no fact nope"),
        (RemoveFact(fact_id="rate_senior"), "unknown facts"),  # derivations still need it
        (
            AddRubricItem(
                item=RubricItem(
                    id="judge_all", description="d", weight=1.0, method=Method.llm_judge, judge_instruction="j"
                ),
                criterion="everything at once",
            ),
            "leave room",
        ),
        (
            AddRubricItem(
                item=RubricItem(
                    id="detail_lines", description="d", weight=0.1, method=Method.llm_judge, judge_instruction="j"
                ),
                criterion="a duplicate item id",
            ),
            "already exists",
        ),
    ],
)
def test_a_proposal_that_does_not_apply_is_refused(change: Any, message: str) -> None:
    with pytest.raises(RevisionError, match=message):
        revise_blueprint(billing_blueprint(), HardeningProposal(id="p", changes=[change]))


def test_a_proposal_parses_from_a_models_json() -> None:
    proposal = HardeningProposal.model_validate_json(ROUND_ONE.model_dump_json())
    assert proposal == ROUND_ONE
    assert isinstance(revise_blueprint(billing_blueprint(), proposal), Blueprint)


def test_revisions_chain() -> None:
    first = revise_blueprint(billing_blueprint(), ROUND_ONE)
    second = revise_blueprint(
        first,
        HardeningProposal(
            id="round-2",
            changes=[
                StrengthenChallenge(challenge=0, intensity=3, form="The arithmetic error hides in a scanned invoice.")
            ],
        ),
    )
    assert second.iteration == 2
    assert second.revision is not None and second.revision.parent_digest == first.digest()

"""r = Σ w·q over every item; an error / unscored item counts 0, flags the attempt incomplete, never full credit."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from skill2env.rubric.models import Method, Rubric
from skill2env.rubric.results import Flag, ItemResult, ItemStatus, VerificationResult, score

RUBRIC = Rubric.model_validate(
    {
        "items": [
            {
                "id": "a",
                "description": "d",
                "weight": 0.5,
                "method": "deterministic",
                "check": {"check": "file_exists", "params": {"path": "x"}},
            },
            {
                "id": "b",
                "description": "d",
                "weight": 0.3,
                "method": "deterministic",
                "check": {"check": "file_exists", "params": {"path": "y"}},
            },
            {"id": "j", "description": "d", "weight": 0.2, "method": "llm_judge", "judge_instruction": "judge it"},
        ]
    }
)


def results(
    a: float | None, b: float | None, j: float | None, *, j_status: ItemStatus | None = None
) -> list[ItemResult]:
    made = []
    for item, q in zip(RUBRIC.items, (a, b, j), strict=True):
        if q is None:
            if item.id == "j" and j_status == ItemStatus.unscored:
                made.append(ItemResult.unscored(item, "no judge"))
            else:
                made.append(ItemResult.errored(item, "broken"))
        else:
            made.append(ItemResult.scored(item, q))
    return made


def test_a_complete_reward_is_the_weighted_sum() -> None:
    scored = score(RUBRIC, results(1, 0, 0.5))

    assert scored.reward == pytest.approx(0.6)
    assert scored.raw_reward == pytest.approx(0.6)
    assert scored.complete and scored.flags == [] and scored.scored_weight == pytest.approx(1.0)


def test_unscored_judge_items_count_zero_and_make_the_attempt_incomplete() -> None:
    scored = score(RUBRIC, results(1, 0, None, j_status=ItemStatus.unscored))

    assert scored.reward == pytest.approx(0.5)
    assert scored.raw_reward == pytest.approx(0.5)
    assert scored.scored_weight == pytest.approx(0.8)
    assert not scored.complete
    assert scored.flags == [Flag.unscored, Flag.incomplete]


def test_an_item_nobody_could_score_never_helps_the_attempt() -> None:
    scored = score(RUBRIC, results(None, 1, 1))

    assert scored.reward == pytest.approx(0.5)
    assert scored.raw_reward == pytest.approx(0.5)
    assert scored.flags == [Flag.item_errors, Flag.incomplete]
    assert scored.counts == {"error": 1, "passed": 2}


def test_nothing_scored_is_a_reward_of_zero_and_incomplete() -> None:
    scored = score(RUBRIC, results(None, None, None))

    assert scored.reward == 0 and scored.raw_reward == 0 and scored.scored_weight == 0 and not scored.complete


def test_a_missing_result_counts_as_error_and_a_foreign_one_is_refused() -> None:
    partial = score(RUBRIC, results(1, 1, 1)[:2])
    assert partial.flags == [Flag.item_errors, Flag.incomplete]
    assert partial.reward == pytest.approx(0.8)

    foreign = ItemResult(item_id="zzz", method=Method.deterministic, weight=0.1, status=ItemStatus.passed, q=1.0)
    with pytest.raises(ValueError, match="does not have"):
        score(RUBRIC, [*results(1, 1, 1), foreign])
    with pytest.raises(ValueError, match="two results"):
        score(RUBRIC, [*results(1, 1, 1), results(1, 1, 1)[0]])


def test_judge_items_pass_at_one_half_and_keep_their_q() -> None:
    judged = ItemResult.scored(RUBRIC.item("j"), 0.6)
    assert judged.status == ItemStatus.passed and judged.q == 0.6
    assert ItemResult.scored(RUBRIC.item("j"), 0.4).status == ItemStatus.failed
    assert ItemResult.scored(RUBRIC.item("a"), 1.0).status == ItemStatus.passed
    assert ItemResult.scored(RUBRIC.item("a"), 0.0).status == ItemStatus.failed


def test_q_must_match_the_status() -> None:
    with pytest.raises(ValidationError):
        ItemResult(item_id="a", method=Method.deterministic, weight=0.5, status=ItemStatus.passed)
    with pytest.raises(ValidationError):
        ItemResult(item_id="a", method=Method.deterministic, weight=0.5, status=ItemStatus.error, q=0.0)
    with pytest.raises(ValidationError):
        ItemResult(item_id="a", method=Method.deterministic, weight=0.5, status=ItemStatus.passed, q=1.5)


def test_verification_result_passes_only_when_complete() -> None:
    complete = VerificationResult.scored_from(RUBRIC, results(1, 1, 0))
    assert complete.passed is True and complete.reward == pytest.approx(0.8)
    assert not complete.full_credit
    solved = VerificationResult.scored_from(RUBRIC, results(1, 1, 1))
    assert solved.full_credit and solved.passed
    incomplete = VerificationResult.scored_from(RUBRIC, results(1, 1, None, j_status=ItemStatus.unscored))
    assert incomplete.passed is None and incomplete.reward == pytest.approx(0.8) and not incomplete.full_credit
    assert incomplete.reward_json() == {"reward": pytest.approx(0.8)}
    assert VerificationResult.infra_error("gone").reward_json() == {}


def test_an_infrastructure_error_has_no_reward() -> None:
    failed = VerificationResult.infra_error("the engine vanished")

    assert failed.status == "infra_error" and failed.reward is None and failed.items == []


def test_reserved_item_ids_are_refused() -> None:
    with pytest.raises(ValidationError, match="reserved"):
        Rubric.model_validate(
            {
                "items": [
                    {"id": "reward", "description": "d", "weight": 1, "method": "llm_judge", "judge_instruction": "x"}
                ]
            }
        )

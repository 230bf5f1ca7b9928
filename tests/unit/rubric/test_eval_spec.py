"""The Skill2Env authors' eval_spec.json read as a rubric, and their script's rewards read per item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill2env.rubric.eval_spec import EvalSpecError, load_eval_spec, rubric_from_eval_spec, script_item_values
from skill2env.rubric.models import TASK_SCRIPT_CHECK, Method

SPEC = {
    "rubric_summary": "Vendor billing reconciliation",
    "pass_threshold": 0.7,
    "items": [
        {
            "id": "detail_csv",
            "description": "CSV detail is correct",
            "weight": 0.5,
            "method": "deterministic",
            "judge_instruction": None,
            "target_globs": ["output/detail.csv"],
        },
        {
            "id": "summary_json",
            "description": "JSON summary totals",
            "weight": 0.3,
            "method": "deterministic",
            "target_globs": ["output/summary.json"],
        },
        {
            "id": "audit_note",
            "description": "The audit note explains the anomalies",
            "weight": 0.2,
            "method": "llm_judge",
            "judge_instruction": "Does the note explain all three anomalies?",
            "target_globs": ["output/audit*.md"],
        },
    ],
}


def test_an_eval_spec_becomes_a_rubric(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "eval_spec.json").write_text(json.dumps(SPEC))

    rubric = load_eval_spec(tmp_path)

    assert [i.id for i in rubric.items] == ["detail_csv", "summary_json", "audit_note"]
    assert rubric.item("detail_csv").check is not None and rubric.item("detail_csv").check.check == TASK_SCRIPT_CHECK
    assert rubric.item("audit_note").method == Method.llm_judge
    assert rubric.item("audit_note").target_files == ["output/audit*.md"]
    assert rubric.pass_threshold == 0.7 and rubric.summary == "Vendor billing reconciliation"


def test_weights_must_sum_to_one_unless_normalised() -> None:
    percent = {**SPEC, "items": [{**item, "weight": item["weight"] * 100} for item in SPEC["items"]]}

    with pytest.raises(EvalSpecError, match="sum to 100"):
        rubric_from_eval_spec(percent)
    rubric = rubric_from_eval_spec(percent, normalize_weights=True)
    assert rubric.item("detail_csv").weight == pytest.approx(0.5)
    assert "normalised from a sum of 100" in rubric.summary


@pytest.mark.parametrize(
    "broken",
    [
        {"items": []},
        {"items": [{"id": "a", "weight": 1, "method": "vibes"}]},
        {"items": [{"id": "a", "weight": "1", "method": "deterministic"}]},
        {"items": [{"id": "a", "weight": 1, "method": "llm_judge"}]},
        [],
    ],
)
def test_broken_specs_are_refused(broken: object) -> None:
    with pytest.raises(EvalSpecError):
        rubric_from_eval_spec(broken)  # type: ignore[arg-type]


def test_per_item_values_are_read_from_any_common_shape() -> None:
    ids = ["detail_csv", "summary_json"]

    assert script_item_values({"detail_csv": 1, "summary_json": 0, "reward": 0.5}, ids) == {
        "detail_csv": 1.0,
        "summary_json": 0.0,
    }
    assert script_item_values({"items": {"detail_csv": True, "summary_json": {"score": 0.5}}}, ids) == {
        "detail_csv": 1.0,
        "summary_json": 0.5,
    }
    assert script_item_values({"checks": [{"id": "detail_csv", "passed": False}]}, ids) == {"detail_csv": 0.0}
    assert script_item_values({"reward": 1.0}, ids) == {}
    assert script_item_values(["not", "a", "mapping"], ids) == {}

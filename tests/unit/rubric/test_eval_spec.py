"""The Skill2Env authors' eval_spec.json read as a rubric, and their script's rewards read per item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skill2env.rubric.eval_spec import (
    EvalSpecError,
    last_json_line,
    load_eval_spec,
    missing_test_references,
    rubric_from_eval_spec,
    script_item_details,
    script_item_values,
)
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


def test_the_authors_published_spelling_lists_items_under_rubric() -> None:
    published = {key: value for key, value in SPEC.items() if key != "items"} | {"rubric": SPEC["items"]}

    assert rubric_from_eval_spec(published) == rubric_from_eval_spec(SPEC)
    with pytest.raises(EvalSpecError, match="both `rubric` and `items`"):
        rubric_from_eval_spec(published | {"items": SPEC["items"]})


DET = {"id": "a", "description": "a", "weight": 1, "method": "deterministic"}


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        ({"items": []}, "non-empty list"),
        ({"rubric": {"a": DET}}, "non-empty list"),
        ({"pass_threshold": 0.7, "rubric_summary": "x"}, "keys are: pass_threshold, rubric_summary"),
        ({"rubric": ["a"]}, "item 0 is not an object"),
        ({"rubric": [{**DET, "id": ""}]}, "item 0 has no `id`"),
        ({"rubric": [{**DET, "weight": 0.5}, {**DET, "weight": 0.5}]}, "item 1 ('a'): the id repeats"),
        ({"items": [{**DET, "method": "vibes"}]}, "`method` must be deterministic or llm_judge, not 'vibes'"),
        ({"items": [{**DET, "weight": "1"}]}, "`weight` must be a positive number, not '1'"),
        ({"rubric": [{**DET, "weight": True}]}, "`weight` must be a positive number"),
        ({"items": [{**DET, "method": "llm_judge"}]}, "needs a `judge_instruction`"),
        ({"rubric": [{**DET, "method": "llm_judge", "judge_instruction": "  "}]}, "needs a `judge_instruction`"),
        ({"rubric": [{**DET, "target_globs": "out.csv"}]}, "`target_globs` must be a list"),
        ({"rubric": [{**DET, "description": 3}]}, "`description` must be text"),
        ({"rubric": [{**DET, "id": "has space"}]}, "item 0 ('has space'): String should match pattern"),
        ({"rubric": [DET], "pass_threshold": 70}, "`pass_threshold` must be a number within [0, 1]"),
        ([], "a JSON object, not list"),
    ],
)
def test_broken_specs_are_refused_naming_the_entry(broken: object, message: str) -> None:
    with pytest.raises(EvalSpecError) as raised:
        rubric_from_eval_spec(broken)  # type: ignore[arg-type]
    assert message in str(raised.value)


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


def test_the_authors_report_is_the_last_json_line_of_stdout() -> None:
    report = {"per_item": {"detail_csv": 1.0}, "checks": [], "score": 0.5}
    stdout = "checking...\n{not json\n" + json.dumps(report) + "\n[1, 2]\ndone\n"

    assert last_json_line(stdout) == report
    assert last_json_line('{"a": 1}\n{"b": 2}\n') == {"b": 2}
    assert last_json_line("Traceback (most recent call last):\n  ...\nKeyError: 'x'\n") is None
    assert last_json_line("") is None


def test_per_item_and_checks_of_the_authors_report_are_read_per_item() -> None:
    ids = ["detail_csv", "summary_json", "audit_note"]
    report = {
        "per_item": {"detail_csv": 0.5, "unknown": 1.0},
        "checks": [
            {"id": "detail_csv", "weight": 0.5, "score": 0.0, "detail": "3 of 6 rows"},
            {"id": "summary_json", "weight": 0.3, "score": 1, "detail": "totals match"},
        ],
        "score": 0.55,
    }

    assert script_item_values(report, ids) == {"detail_csv": 0.5, "summary_json": 1.0}  # per_item wins
    assert script_item_details(report) == {"detail_csv": "3 of 6 rows", "summary_json": "totals match"}
    assert script_item_values({"per_item": {"detail_csv": float("nan")}}, ids) == {}
    assert script_item_details({"checks": "none"}) == {}


def test_files_a_test_sh_calls_that_the_task_lacks_are_named(tmp_path: Path) -> None:
    (tmp_path / "verify.py").write_text("print('{}')\n")
    script = (
        "#!/bin/bash\n"
        "python3 /tests/verify.py\n"
        "python3 /tests/run_checks.py > /logs/verifier/checks.json\n"
        'bash "$(dirname "$0")/helpers/grade.sh"\n'
        "cat $TESTS_DIR/verify.py\n"
    )

    assert missing_test_references(script, tmp_path) == ["/tests/run_checks.py", '$(dirname "$0")/helpers/grade.sh']
    assert missing_test_references("python3 /tests/verify.py\n", tmp_path) == []

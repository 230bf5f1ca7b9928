"""Author-side checks (a), (b), (d): criteria ↔ rubric items, discoverable facts in place, the evaluator's scope."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest
from task_samples import billing_blueprint, billing_draft, billing_workspace, pdf_bytes

from skill2env.rubric.models import CheckSpec, Method, RubricItem
from skill2env.tasks.checks import (
    Severity,
    check_criteria,
    check_discoverable_facts,
    check_draft,
    check_evaluator,
    read_workspace,
    validate_blueprint,
)


def codes(findings: list[Any]) -> list[str]:
    return sorted(f"{f.check}.{f.code}" for f in findings if f.severity == Severity.error)


def test_the_sample_passes_every_check() -> None:
    report = check_draft(billing_draft())
    assert report.passed, report.reasons
    assert report.findings == ()
    assert (report.leak.checked, report.leak.leaked, report.leak.rate) == (6, 0, 0.0)


# --- (a) criteria ↔ rubric items, on raw dicts --------------------------------------------------


@pytest.fixture
def raw() -> dict[str, Any]:
    return copy.deepcopy(billing_blueprint().model_dump(mode="json"))


def test_a_valid_raw_blueprint_validates(raw: dict[str, Any]) -> None:
    blueprint, findings = validate_blueprint(raw)
    assert blueprint == billing_blueprint() and findings == []


def test_weights_that_do_not_sum_to_one_are_reported_not_raised(raw: dict[str, Any]) -> None:
    raw["rubric"]["items"][0]["weight"] = 0.15
    blueprint, findings = validate_blueprint(raw)
    assert blueprint is None
    assert "criteria.weights_sum" in codes(findings)
    assert any("0.9" in f.message for f in findings if f.code == "weights_sum")
    assert "blueprint.invalid" in codes(findings)


@pytest.mark.parametrize("weight", [0, -0.25, "0.25", None, float("nan")])
def test_weights_must_be_positive_numbers(raw: dict[str, Any], weight: object) -> None:
    raw["rubric"]["items"][0]["weight"] = weight
    assert "criteria.bad_weight" in codes(check_criteria(raw))


def test_each_criterion_maps_to_exactly_one_item_and_back(raw: dict[str, Any]) -> None:
    raw["acceptance_criteria"][1]["rubric_item"] = "detail_lines"  # two criteria share one item, one item orphaned
    raw["acceptance_criteria"][2]["rubric_item"] = "no_such_item"
    del raw["acceptance_criteria"][3]["rubric_item"]
    found = codes(check_criteria(raw))
    assert found.count("criteria.shared_item") == 1
    assert found.count("criteria.unknown_item") == 1
    assert found.count("criteria.unmapped_criterion") == 1
    assert found.count("criteria.orphan_item") == 3  # summary_totals, anomalies_flagged, sources_untouched


def test_garbage_is_reported(raw: dict[str, Any]) -> None:
    assert codes(check_criteria({"acceptance_criteria": "x", "rubric": None})) == [
        "criteria.no_criteria",
        "criteria.no_items",
    ]
    raw["rubric"]["items"].append(dict(raw["rubric"]["items"][0]))
    assert "criteria.duplicate_item" in codes(check_criteria(raw))


# --- (b) discoverable facts -------------------------------------------------------------------


def test_discoverable_facts_are_found_in_any_spelling() -> None:
    workspace = dict(billing_workspace())
    workspace["timesheet.csv"] = workspace["timesheet.csv"].replace(b",12.5\n", b",12.50\n")
    workspace["rate_annex.html"] = workspace["rate_annex.html"].replace(b"118.50", b"118,50")
    assert check_discoverable_facts(billing_blueprint(), read_workspace(workspace)) == []


def test_a_fact_missing_from_its_file_is_an_error() -> None:
    workspace = dict(billing_workspace())
    workspace["rate_annex.html"] = workspace["rate_annex.html"].replace(b"84.25", b"86.00")
    findings = check_discoverable_facts(billing_blueprint(), read_workspace(workspace))
    assert [(f.code, f.subject) for f in findings] == [("absent", "rate_analyst")]


def test_a_fact_may_live_in_a_folder_or_a_glob() -> None:
    blueprint = billing_blueprint()
    data = blueprint.model_dump(mode="json")
    data["facts"].append({"id": "invoice_numbers", "statement": "The quarter's invoices", "level": "discoverable",
                          "value": "INV-2024-031, INV-2024-032, INV-2024-033", "location": "invoices/"})  # fmt: skip
    data["facts"].append({"id": "rebilled_anywhere", "statement": "TRV-0207 again", "level": "discoverable",
                          "value": "TRV-0207", "location": "invoices/*.pdf"})  # fmt: skip
    documents = read_workspace(billing_workspace())
    assert check_discoverable_facts(type(blueprint).model_validate(data), documents) == []
    data["facts"][-2]["location"] = "invoices/INV-2024-031.pdf"  # the other two numbers are not in that one
    findings = check_discoverable_facts(type(blueprint).model_validate(data), documents)
    assert [(f.code, f.subject) for f in findings] == [("absent", "invoice_numbers")]


def test_a_fact_whose_file_is_gone_is_an_error() -> None:
    workspace = {k: v for k, v in billing_workspace().items() if k != "vendor.json"}
    findings = check_discoverable_facts(billing_blueprint(), read_workspace(workspace))
    assert [(f.code, f.subject, f.severity) for f in findings] == [("missing_file", "vendor_id", Severity.error)]


def test_a_fact_in_a_scanned_pdf_cannot_be_verified_but_does_not_reject() -> None:
    from PIL import Image

    workspace = dict(billing_workspace())
    image = Image.new("RGB", (60, 20), "white")
    workspace["invoices/INV-2024-032.pdf"] = _image_pdf(image)
    findings = check_discoverable_facts(billing_blueprint(), read_workspace(workspace))
    assert [(f.code, f.severity) for f in findings] == [("unverifiable", Severity.warning)]
    assert "without a text layer" in findings[0].message


def _image_pdf(image: Any) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.image(image, x=10, y=10, w=60)
    return bytes(pdf.output())


def test_a_fact_moved_into_another_pdf_is_absent() -> None:
    workspace = dict(billing_workspace())
    workspace["invoices/INV-2024-032.pdf"] = pdf_bytes(["Invoice INV-2024-032", "1 | Senior | 12.5 h | 1,481.25"])
    findings = check_discoverable_facts(billing_blueprint(), read_workspace(workspace))
    assert [(f.code, f.subject) for f in findings] == [("absent", "inv032_printed_senior")]


# --- (d) the evaluator's scope and secrecy ----------------------------------------------------


def evaluator_codes(instruction: str, items: list[RubricItem] | None = None) -> list[str]:
    blueprint = billing_blueprint()
    if items is not None:
        blueprint = blueprint.model_copy(update={"rubric": blueprint.rubric.model_copy(update={"items": items})})
    return codes(check_evaluator(blueprint, instruction, sorted(billing_workspace())))


def test_the_sample_instruction_reveals_nothing() -> None:
    assert evaluator_codes(billing_draft().instruction) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Your work is scored by a rubric.",
        "The reward is highest when all totals match.",
        "Hidden checks in tests/ compare your CSV.",
        "We run verify.py afterwards.",
    ],
)
def test_the_instruction_may_not_mention_the_evaluator(sentence: str) -> None:
    assert evaluator_codes(billing_draft().instruction + "\n" + sentence) == ["evaluator.reveals_evaluator"]


def test_the_instruction_may_not_name_rubric_items_or_state_expected_numbers() -> None:
    instruction = billing_draft().instruction + "\nMake sure summary_totals is right: outstanding is 791.50.\n"
    assert evaluator_codes(instruction) == ["evaluator.reveals_expected", "evaluator.reveals_item_id"]


def test_deterministic_items_read_only_deliverables_or_inputs() -> None:
    items = list(billing_blueprint().rubric.items)
    stray = items[2].model_copy(
        update={
            "check": CheckSpec(
                check="text_contains", params={"path": "reconciliation/secret_log.txt", "contains": ["x"]}
            )
        }
    )
    assert evaluator_codes(billing_draft().instruction, [*items[:2], stray, *items[3:]]) == ["evaluator.unasked_file"]


def test_file_params_given_as_a_mapping_are_scoped_too() -> None:
    items = list(billing_blueprint().rubric.items)
    check = CheckSpec(check="file_unchanged", params={"files": {"payments.xlsx": "0" * 64, "ledger_v2.xlsx": "1" * 64}})
    untouched = items[3].model_copy(update={"check": check, "target_files": []})
    assert evaluator_codes(billing_draft().instruction, [*items[:3], untouched, items[4]]) == ["evaluator.unasked_file"]


def test_a_deliverable_the_instruction_does_not_ask_for_cannot_be_checked() -> None:
    instruction = billing_draft().instruction.replace("`reconciliation/audit_note.md`", "an audit note")
    assert evaluator_codes(instruction) == ["evaluator.deliverable_not_asked"]
    judged = [item for item in billing_blueprint().rubric.items if item.method == Method.llm_judge]
    assert judged and judged[0].target_files == ["reconciliation/audit_note.md"]  # judge items are not scoped


def test_a_rejected_draft_keeps_every_reason() -> None:
    draft = billing_draft()
    leaky = replace(draft, instruction=draft.instruction + "\nThe rubric expects outstanding = 791.50.\n")
    report = check_draft(leaky)
    assert not report.passed
    assert sorted(f.split(":")[0] for f in report.reasons) == [
        "evaluator.reveals_evaluator",
        "evaluator.reveals_expected",
        "leaks.leaked",
    ]

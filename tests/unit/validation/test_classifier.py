"""The verification agent: rule-based classification of failed items, and the verifier model's review
of the agent failures against the scripted server."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, status
from task_samples import INSTRUCTION, billing_blueprint, billing_workspace

from skill2env.llm.cache import CacheMode
from skill2env.llm.ledger import Ledger
from skill2env.rubric.results import ItemResult
from skill2env.tasks.blueprint import Blueprint
from skill2env.validation.classifier import (
    BREAKER_AFTER,
    RULES,
    Classification,
    FailureClass,
    ModelClassifier,
    classify_failures,
    item_facts,
)

TASK = "vendor-billing-reconciliation-i0"
ORACLE_PASSED = {"detail_lines": 1.0, "summary_totals": 1.0, "anomalies_flagged": 1.0, "sources_untouched": 1.0,
                 "audit_note_evidence": 0.9}  # fmt: skip


def task_dir(root: Path, replace: dict[str, tuple[str, str]] | None = None) -> Path:
    """The billing task's directory: instruction and initial workspace (`replace`: path → (old, new) text)."""
    workspace = root / "environment" / "workspace"
    for name, data in billing_workspace().items():
        if replace and name in replace:
            old, new = replace[name]
            data = data.replace(old.encode(), new.encode())
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_bytes(data)
    (root / "instruction.md").write_text(INSTRUCTION)
    return root


def failed(blueprint: Blueprint, item_id: str, q: float = 0.0, **evidence: object) -> ItemResult:
    return ItemResult.scored(blueprint.rubric.item(item_id), q, evidence=evidence or {"diff": "expected 8887.15"})


def classify(blueprint: Blueprint, failures: dict[str, list[ItemResult]], oracle: Mapping[str, float | None] | None,
             directory: Path | None) -> list[Classification]:  # fmt: skip
    return classify_failures(TASK, blueprint, blueprint.rubric, failures, oracle, directory)


# -- the rules ----------------------------------------------------------------------------------------


def test_an_item_the_oracle_failed_is_an_evaluator_defect(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    oracle = ORACLE_PASSED | {"summary_totals": 0.0, "audit_note_evidence": 0.3}
    failures = {"r1": [failed(blueprint, "summary_totals"), failed(blueprint, "audit_note_evidence", 0.2)]}

    totals, note = classify(blueprint, failures, oracle, task_dir(tmp_path))

    assert (totals.classification, totals.decided_by, totals.item_id) == (FailureClass.evaluator_defect, RULES,
                                                                          "summary_totals")  # fmt: skip
    assert "oracle q=0.00" in totals.evidence and "the check rejects a correct answer" in totals.evidence
    assert note.classification == FailureClass.evaluator_defect and "the judge rejects" in note.evidence


def test_a_judge_item_the_oracle_passed_is_not_a_defect(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    failures = {"r1": [failed(blueprint, "audit_note_evidence", 0.2)]}

    (note,) = classify(blueprint, failures, ORACLE_PASSED | {"audit_note_evidence": 0.6}, task_dir(tmp_path))

    assert note.classification == FailureClass.agent_failure


def test_a_fact_missing_from_the_workspace_is_missing_material(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    directory = task_dir(tmp_path, {"rate_annex.html": ("<td>118.50</td>", "<td>see the amendment</td>")})
    failures = {"r1": [failed(blueprint, "summary_totals"), failed(blueprint, "anomalies_flagged")]}

    totals, anomalies = classify(blueprint, failures, ORACLE_PASSED, directory)

    assert totals.classification == FailureClass.missing_material
    assert "discoverable fact rate_senior ('118.50')" in totals.evidence
    assert "is not in rate_annex.html" in totals.evidence
    assert anomalies.classification == FailureClass.agent_failure  # it does not follow from the senior rate


def test_an_oracle_failure_outranks_missing_material(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    directory = task_dir(tmp_path, {"rate_annex.html": ("<td>118.50</td>", "<td>119.00</td>")})

    (totals,) = classify(blueprint, {"r1": [failed(blueprint, "summary_totals")]},
                         ORACLE_PASSED | {"summary_totals": 0.0}, directory)  # fmt: skip

    assert totals.classification == FailureClass.evaluator_defect


def test_a_fair_failure_is_the_agents(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    failures = {"r2": [failed(blueprint, "summary_totals")], "r1": [failed(blueprint, "detail_lines")]}

    detail, totals = classify(blueprint, failures, ORACLE_PASSED, task_dir(tmp_path))

    assert [c.rollout_id for c in (detail, totals)] == ["r1", "r2"]
    assert {detail.classification, totals.classification} == {FailureClass.agent_failure}
    assert "the oracle passed summary_totals (q=1.00)" in totals.evidence
    assert "discoverable facts are in the initial workspace (rate_senior, rate_analyst" in totals.evidence
    assert 'the item reported: {"diff": "expected 8887.15"}' in totals.evidence
    assert "total_expected" in totals.facts
    assert "follows from no discoverable fact" in detail.evidence


def test_only_failed_items_are_classified(tmp_path: Path) -> None:
    blueprint = billing_blueprint()
    item = blueprint.rubric.item("audit_note_evidence")
    results = [ItemResult.scored(blueprint.rubric.item("summary_totals"), 1.0), ItemResult.errored(item, "judge down"),
               ItemResult.unscored(item, "no judge")]  # fmt: skip

    assert classify(blueprint, {"r1": results}, ORACLE_PASSED, task_dir(tmp_path)) == []


def test_without_a_task_directory_or_an_oracle_run_only_what_is_known_is_said() -> None:
    blueprint = billing_blueprint()

    (totals,) = classify(blueprint, {"r1": [failed(blueprint, "summary_totals")]}, None, None)
    (bare,) = classify_failures(TASK, None, blueprint.rubric, {"r1": [failed(blueprint, "summary_totals")]},
                                {"summary_totals": None}, None)  # fmt: skip

    assert totals.classification == bare.classification == FailureClass.agent_failure
    assert "no oracle run recorded" in totals.evidence and "the workspace was not checked" in totals.evidence
    assert "the oracle's q for summary_totals was not recorded" in bare.evidence
    assert "no blueprint" in bare.evidence


def test_an_item_follows_from_the_facts_it_expects_names_or_quotes() -> None:
    blueprint = billing_blueprint()
    raw = blueprint.model_dump(mode="json")
    raw["facts"].append({"id": "expected.detail_lines", "statement": "Expected detail rows", "value": "digest 1",
                         "level": "author_only", "derived_from": ["hours_feb_senior"]})  # fmt: skip
    with_kit_fact = Blueprint.model_validate(raw)

    def ids(bp: Blueprint, item_id: str) -> set[str]:
        return {f.id for f in item_facts(bp, bp.rubric.item(item_id))}

    assert ids(blueprint, "summary_totals") == {
        "total_billed", "total_expected", "total_paid", "outstanding", "inv032_printed_senior", "rate_senior",
        "rate_analyst", "hours_feb_senior", "travel_claim_amount", "partial_payment",
    }  # fmt: skip
    assert ids(blueprint, "anomalies_flagged") == {"travel_rebilled"}  # "TRV-0207" among the expected strings
    assert ids(blueprint, "audit_note_evidence") == {"travel_rebilled"}  # quoted by the judge instruction
    assert ids(blueprint, "detail_lines") == set()
    assert ids(with_kit_fact, "detail_lines") == {"expected.detail_lines", "hours_feb_senior"}


# -- the verifier model ---------------------------------------------------------------------------------


DEFECT = {
    "item_id": "summary_totals",
    "classification": "evaluator_defect",
    "justification": "The check expects total_expected 8887.15 but derivation total_expected omits the analyst "
    "hours of February, so a correct answer fails.",
    "facts": ["total_expected"],
}


def rules_case(
    tmp_path: Path,
) -> tuple[Blueprint, dict[str, list[ItemResult]], Path, list[Classification]]:
    blueprint = billing_blueprint()
    directory = task_dir(tmp_path)
    failures = {"r1": [failed(blueprint, "detail_lines"), failed(blueprint, "summary_totals")]}
    oracle = ORACLE_PASSED | {"detail_lines": 0.0}
    return blueprint, failures, directory, classify(blueprint, failures, oracle, directory)


def test_the_model_may_turn_an_agent_failure_into_a_justified_defect(
    tmp_path: Path, server: ScriptedServer, make_client: ClientFactory, ledger: Ledger
) -> None:
    blueprint, failures, directory, rules = rules_case(tmp_path)
    server.script(json_answer({"decisions": [DEFECT]}))
    verifier = ModelClassifier(make_client(role="verifier"))

    detail, totals = verifier.review(blueprint, blueprint.rubric, failures, rules, directory)

    assert detail == rules[0]  # the oracle's verdict is the rules': never sent to the model
    assert (totals.classification, totals.decided_by) == (FailureClass.evaluator_defect, "verifier:scripted-model")
    assert totals.evidence.startswith("verifier:scripted-model: The check expects total_expected 8887.15")
    assert "(facts: total_expected)" in totals.evidence and "the rules said: the oracle passed" in totals.evidence
    system, user = server.requests[0]["messages"][:2]
    assert "evaluator_defect" in system["content"]
    assert "## summary_totals" in user["content"] and "## detail_lines" not in user["content"]
    assert "total_expected [author_only]" in user["content"] and '"8887.15"' in user["content"]  # sees everything
    assert "- rate_annex.html (" in user["content"] and "Q1 2024 vendor billing" in user["content"]
    assert "expected 8887.15" in user["content"]  # the failing item's evidence
    (row,) = ledger.rows()
    assert (row["role"], row["template_id"], row["partition_key"]) == ("verifier", "verifier_classify", TASK)
    assert verifier.outcomes == {"reviewed": 1, "overridden": 1}


def test_the_model_agreeing_keeps_the_agent_failure(
    tmp_path: Path, server: ScriptedServer, make_client: ClientFactory
) -> None:
    blueprint, failures, directory, rules = rules_case(tmp_path)
    agreed = {"item_id": "summary_totals", "classification": "agent_failure", "justification": "Wrong sum."}
    server.script(json_answer({"decisions": [agreed]}))

    _, totals = ModelClassifier(make_client(role="verifier")).review(blueprint, blueprint.rubric, failures, rules,
                                                                   directory)  # fmt: skip

    assert (totals.classification, totals.decided_by) == (FailureClass.agent_failure, "verifier:scripted-model")
    assert totals.evidence.endswith("verifier:scripted-model agreed: Wrong sum.")


def test_an_unjustified_override_is_sent_back_for_repair(
    tmp_path: Path, server: ScriptedServer, make_client: ClientFactory
) -> None:
    blueprint, failures, directory, rules = rules_case(tmp_path)
    unasked = {**DEFECT, "item_id": "detail_lines"}
    vague = {**DEFECT, "classification": "missing_material", "justification": "missing", "facts": ["rate_ceo"]}
    server.script(json_answer({"decisions": [vague, unasked]}), json_answer({"decisions": [DEFECT]}))

    _, totals = ModelClassifier(make_client(role="verifier")).review(blueprint, blueprint.rubric, failures, rules,
                                                                   directory)  # fmt: skip

    assert totals.classification == FailureClass.evaluator_defect
    repair = server.requests[1]["messages"][-1]["content"]
    assert "item detail_lines was not asked about" in repair
    assert "unknown fact ids ['rate_ceo']" in repair and "needs a justification" in repair


def test_an_answer_still_invalid_after_repairs_leaves_the_rules_verdict(
    tmp_path: Path, server: ScriptedServer, make_client: ClientFactory
) -> None:
    blueprint, failures, directory, rules = rules_case(tmp_path)
    nameless = {**DEFECT, "classification": "missing_material", "facts": []}
    server.script(*[json_answer({"decisions": [nameless]})] * 3)
    verifier = ModelClassifier(make_client(role="verifier", max_repairs=2))

    detail, totals = verifier.review(blueprint, blueprint.rubric, failures, rules, directory)

    assert (detail, totals.classification, totals.decided_by) == (rules[0], FailureClass.agent_failure, RULES)
    assert totals.evidence.startswith(rules[1].evidence)
    assert "verifier:scripted-model not used (invalid-answer): ModelOutputInvalid" in totals.evidence
    assert len(server.requests) == 3 and verifier.outcomes == {"invalid-answer": 1}


def test_an_unavailable_model_leaves_the_rules_verdict_and_stops_being_asked(
    tmp_path: Path, server: ScriptedServer, make_client: ClientFactory
) -> None:
    blueprint = billing_blueprint()
    directory = task_dir(tmp_path)
    failures = {f"r{i}": [failed(blueprint, "summary_totals", diff=f"attempt {i}")] for i in range(BREAKER_AFTER + 2)}
    rules = classify(blueprint, failures, ORACLE_PASSED, directory)
    server.respond = lambda request: status(503)
    verifier = ModelClassifier(make_client(role="verifier", max_attempts=1, cache=CacheMode.off))

    reviewed = verifier.review(blueprint, blueprint.rubric, failures, rules, directory)

    assert {(c.classification, c.decided_by) for c in reviewed} == {(FailureClass.agent_failure, RULES)}
    assert "not used (unavailable): ModelUnavailable" in reviewed[0].evidence
    assert f"not asked: unavailable for {BREAKER_AFTER} rollouts in a row" in reviewed[-1].evidence
    assert len(server.requests) == BREAKER_AFTER


def test_the_prompt_renders_without_a_blueprint_or_a_task_directory(
    server: ScriptedServer, make_client: ClientFactory
) -> None:
    blueprint = billing_blueprint()
    failures = {"r1": [failed(blueprint, "summary_totals")]}
    rules = classify_failures(TASK, None, blueprint.rubric, failures, None, None)
    agreed = {"item_id": "summary_totals", "classification": "agent_failure", "justification": "No evidence."}
    server.script(json_answer({"decisions": [agreed]}))

    (totals,) = ModelClassifier(make_client(role="verifier")).review(None, blueprint.rubric, failures, rules, None)

    assert totals.decided_by == "verifier:scripted-model"
    user = server.requests[0]["messages"][1]["content"]
    assert "No blueprint is recorded" in user and "(not available)" in user

"""The diagnoser's answer is checked before it is used; a usable one becomes the pipeline's
diagnosis, proposal and pattern candidate; an unusable one leaves the rules' diagnosis in place."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer, text
from model_hardening_script import NEW_PATTERN
from task_samples import billing_blueprint

from skill2env.hardening.diagnosis import ChallengeDiagnosis, Diagnosis
from skill2env.hardening.model_diagnosis import AttemptEvidence, DiagnosisAnswer, ModelDiagnoser, answer_problems
from skill2env.hardening.revise import AddChallenge, HardeningProposal, StrengthenChallenge
from skill2env.hardening.stage import kit_patterns
from skill2env.kits import KITS
from skill2env.llm.cache import CacheMode
from skill2env.patterns.pool import seed_pool

BLUEPRINT = billing_blueprint()
REFS = {"a1:3", "a2:3"}
ATTEMPTS = [
    AttemptEvidence(f"rollout-{n}", n, 1.0, {"total": "passed"},
                    [{"step_id": 3, "tool_calls": '[{"function_name": "bash", "arguments": {"command": "cat x"}}]',
                      "observations": '[{"content": "ok"}]'}])
    for n in (1, 2)
]  # fmt: skip


def answer(**changes: Any) -> dict[str, Any]:
    """A usable answer: the first challenge solved easily (cited), raised one level."""
    first = BLUEPRINT.challenges[0]
    value: dict[str, Any] = {
        "challenges": [
            {"pattern_id": c.pattern_id, "verdict": "solved_easily" if i == 0 else "exercised",
             "evidence_steps": ["a1:3"] if i == 0 else [], "explanation": "what the trajectories show"}
            for i, c in enumerate(BLUEPRINT.challenges)
        ],
        "failures_from": "none",
        "summary": "one challenge was solved in a single pass",
        "proposal": {"rationale": "raise what was solved easily", "changes": [
            {"op": "strengthen_challenge", "challenge": 0, "intensity": first.intensity + 1,
             "form": "the arithmetic error now hides in a scanned copy of the invoice"}]},
        "new_pattern": None,
    }  # fmt: skip
    return value | changes


def problems(value: dict[str, Any]) -> list[str]:
    return answer_problems(DiagnosisAnswer.model_validate(value), BLUEPRINT, REFS, seed_pool())


def test_a_usable_answer_has_no_problems() -> None:
    assert problems(answer()) == []
    assert problems(answer(new_pattern=copy.deepcopy(NEW_PATTERN), new_pattern_parent="needle_in_large_corpus")) == []


def test_every_challenge_is_judged_once_with_existing_steps() -> None:
    value = answer()
    value["challenges"] = [*value["challenges"][1:], value["challenges"][1]]
    value["challenges"][0]["evidence_steps"] = ["a9:1"]
    found = problems(value)
    assert any(f"judge {BLUEPRINT.challenges[0].pattern_id} exactly once (given 0" in p for p in found)
    assert any(f"judge {BLUEPRINT.challenges[1].pattern_id} exactly once (given 2" in p for p in found)
    assert any("no such steps ['a9:1']" in p for p in found)


def test_an_easy_verdict_cites_steps_and_asks_for_a_proposal() -> None:
    value = answer(proposal=None)
    value["challenges"][0]["evidence_steps"] = []
    found = problems(value)
    assert any("cites the steps showing it" in p for p in found)
    assert any("propose how to harden them" in p for p in found)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"op": "strengthen_challenge", "challenge": 0, "intensity": 1, "form": "the same challenge again"},
         "must raise its intensity above 1"),
        ({"op": "add_challenge", "pattern_id": "no_such_pattern", "form": "something that is not pooled"},
         "is not a pool pattern"),
        ({"op": "replace_fact", "fact": {"id": "nope", "statement": "unknown", "level": "stated"}},
         "does not apply to the blueprint: there is no fact nope"),
        ({"op": "strengthen_challenge", "challenge": 1, "intensity": 2, "form": "a challenge nobody found easy"},
         "must target what was solved easily or bypassed"),
    ],
)  # fmt: skip
def test_a_proposal_must_apply_and_target_what_was_easy(change: dict[str, Any], expected: str) -> None:
    value = answer()
    value["proposal"]["changes"] = [change]
    assert any(expected in p for p in problems(value)), problems(value)


def test_a_new_pattern_must_be_new() -> None:
    pooled = copy.deepcopy(NEW_PATTERN) | {"id": "distributed_evidence", "conflicts": ["no_such_pattern"]}
    found = problems(answer(new_pattern=pooled, new_pattern_parent="not_pooled"))
    assert any("already a pool pattern" in p for p in found)
    assert any("new_pattern_parent: not_pooled is not a pool pattern" in p for p in found)
    assert any("conflicts: ['no_such_pattern'] are not pool patterns" in p for p in found)


def rules() -> Diagnosis:
    return Diagnosis("task-i0", [ChallengeDiagnosis(c.pattern_id, c.intensity, [], 2, 2, [], [], "solved_easily")
                                 for c in BLUEPRINT.challenges])  # fmt: skip


def test_the_model_diagnosis_maps_cited_steps_to_rollouts(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(
        json_answer(answer(new_pattern=copy.deepcopy(NEW_PATTERN), new_pattern_parent="needle_in_large_corpus"))
    )
    diagnoser = ModelDiagnoser(make_client(role="diagnoser", cache=CacheMode.off))
    result = diagnoser.diagnose("task-i0", BLUEPRINT, ATTEMPTS, rules(), seed_pool(), mean_reward=1.0)
    assert not isinstance(result, str), result
    first = result.diagnosis.challenges[0]
    assert (first.verdict, first.touched_steps) == ("solved_easily", ["rollout-1:3"])
    assert result.diagnosis.by == "diagnoser:scripted-model"
    assert result.proposal is not None and result.proposal.id == "diagnoser:scripted-model:task-i0"
    assert result.new_pattern is not None and result.new_pattern.origin.kind == "hardening"
    assert result.new_pattern.origin.parent == "needle_in_large_corpus"
    prompt = server.requests[0]["messages"][-1]["content"]
    assert "a1:3 bash(" in prompt and "rollout-1" not in prompt, "steps are cited by attempt, not rollout id"


def test_an_unusable_model_leaves_the_rules_in_place(server: ScriptedServer, make_client: ClientFactory) -> None:
    server.script(*[text("I think the task was fine.")] * 6)
    diagnoser = ModelDiagnoser(make_client(role="diagnoser", cache=CacheMode.off, max_repairs=1))
    result = diagnoser.diagnose("task-i0", BLUEPRINT, ATTEMPTS, rules(), seed_pool(), mean_reward=1.0)
    assert isinstance(result, str) and result.startswith("diagnoser:scripted-model not used: ModelOutput")


def test_a_model_proposal_becomes_kit_intensities() -> None:
    kit = KITS["billing"]
    first = BLUEPRINT.challenges[0]
    proposal = HardeningProposal(id="p", changes=[
        StrengthenChallenge(challenge=0, intensity=3, form="the error only shows when recomputed per line"),
        AddChallenge(pattern_id="claim_without_receipt", form="a claim whose receipt is missing"),
        AddChallenge(pattern_id="implicit_timezone", form="a pattern this kit cannot build"),
    ])  # fmt: skip
    patterns = kit_patterns(kit, BLUEPRINT, proposal)
    assert patterns is not None and patterns[first.pattern_id] == 3 and patterns["claim_without_receipt"] == 1
    assert "implicit_timezone" not in patterns
    assert kit_patterns(kit, BLUEPRINT, None) is None

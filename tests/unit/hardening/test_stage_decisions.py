"""One task's hardening round with a diagnoser and an author model (scripted stand-ins): a task
defect is never hardened, a rebuild the author cannot make keeps the parent, a diagnoser that
cannot be used says so, and a hardened child replaces its parent only when every gate passes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from task_samples import billing_draft, make_skill_dir

from skill2env.hardening.diagnosis import ChallengeDiagnosis, Diagnosis
from skill2env.hardening.model_diagnosis import ModelDiagnosis
from skill2env.hardening.revise import HardeningProposal, StrengthenChallenge
from skill2env.hardening.stage import Hardeners, HardeningStage, _Decider, _GroupEvidence
from skill2env.home import Home
from skill2env.patterns.pool import seed_pool
from skill2env.tasks.authoring import Rejection
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.build import build_task
from skill2env.tasks.draft import TaskDraft
from skill2env.tasks.harbor import TaskPaths
from skill2env.tasks.store import TaskStore
from skill2env.validation.gates import Gate, GateOutcome, GateStatus, Validation

PROPOSAL = HardeningProposal(id="p", rationale="raise the first challenge", changes=[
    StrengthenChallenge(challenge=0, intensity=2, form="the arithmetic error hides in a scanned copy")])  # fmt: skip


class Diagnoser:
    name = "diagnoser:scripted"

    def __init__(self, answer: ModelDiagnosis | str) -> None:
        self.answer = answer

    def diagnose(self, task_id: str, *_: Any, **__: Any) -> ModelDiagnosis | str:
        return self.answer


class Author:
    name = "model:scripted"

    def __init__(self, answer: TaskDraft | Rejection) -> None:
        self.answer = answer
        self.asked: list[Blueprint] = []

    def rebuild(self, blueprint: Blueprint, parent_dir: Path | None = None) -> TaskDraft | Rejection:
        self.asked.append(blueprint)
        return self.answer


def diagnosis(failures_from: str = "none") -> ModelDiagnosis:
    blueprint = billing_draft().blueprint
    challenges = [ChallengeDiagnosis(c.pattern_id, c.intensity, [], 2, 2, [], [], "solved_easily")
                  for c in blueprint.challenges]  # fmt: skip
    return ModelDiagnosis(Diagnosis("t-i0", challenges, failures_from, by="diagnoser:scripted", summary="a summary"),
                          PROPOSAL, None, "a summary")  # fmt: skip


Setting = tuple[dict[str, Any], TaskStore, Path]
"""The parent task's `hardening_inputs` row, the store holding it, the skills root."""


@pytest.fixture
def setting(tmp_path: Path) -> Setting:
    home = Home(tmp_path / "home")
    skills = tmp_path / "skills"
    make_skill_dir(skills)
    store = TaskStore.of(home)
    draft = billing_draft()
    record = build_task(draft, store, skill_dir=skills / "office" / "docling")
    row = {"task_id": record.task_id, "task_name": record.task_name, "domain": record.domain, "iteration": 0,
           "skill_id": record.skill_id, "skill_path": "office/docling", "store_path": record.store_path,
           "task_digest": record.task_digest, "author": "model:scripted", "patterns": list(record.patterns),
           "rubric": record.rubric, "findings": record.findings, "leak_checked": 1, "leak_leaked": 0,
           "blueprint_digest": record.blueprint_digest, "blueprint": draft.blueprint.model_dump_json(),
           "mean_reward": 1.0, "attempts": 2, "infra_errors": 0, "defects": 0, "defect_items": None}  # fmt: skip
    return row, store, skills


def decide(setting: Setting, hardeners: Hardeners) -> tuple[dict[str, Any], HardeningStage]:
    row, store, _ = setting
    stage = HardeningStage(row["domain"], 0)
    additions = pl.DataFrame(schema={"diagnosis": pl.String, "candidate_id": pl.String, "pattern_id": pl.String})
    decider = _Decider(stage, store, {}, hardeners, seed_pool(), 0.7, False, additions)
    return decider.decide(row, _GroupEvidence([], [], []), row["task_id"]), stage


def test_a_task_defect_the_diagnoser_finds_is_not_hardened(setting: Setting) -> None:
    author = Author(billing_draft())
    result, stage = decide(setting, Hardeners(diagnoser=Diagnoser(diagnosis("task")), author=author))  # type: ignore[arg-type]
    assert result["outcome"] == "defective" and "found a task defect: a summary" in result["reason"]
    assert author.asked == [] and stage.children[0].task_digest == setting[0]["task_digest"]


def test_a_rebuild_the_author_cannot_make_keeps_the_parent(setting: Setting) -> None:
    author = Author(Rejection("the build answer was truncated", author="model:scripted"))
    result, stage = decide(setting, Hardeners(diagnoser=Diagnoser(diagnosis()), author=author))  # type: ignore[arg-type]
    assert result["outcome"] == "rejected" and "could not rebuild the task: the build answer was truncated" in result[
        "reason"]  # fmt: skip
    assert author.asked[0].challenges[0].intensity == 2 and author.asked[0].revision is not None
    assert json.loads(result["proposal"])["id"] == "p"
    assert [child.task_digest for child in stage.children] == [setting[0]["task_digest"]]


def test_a_diagnoser_that_cannot_be_used_says_so(setting: Setting) -> None:
    hardeners = Hardeners(diagnoser=Diagnoser("diagnoser:scripted not used: ModelUnavailable: refused"))  # type: ignore[arg-type]
    result, _ = decide(setting, hardeners)
    assert result["outcome"] == "kept" and result["triggered"]
    assert "diagnoser:scripted not used: ModelUnavailable" in result["reason"]


@pytest.mark.parametrize("accepted", [True, False])
def test_a_hardened_child_replaces_its_parent_only_past_every_gate(setting: Setting, accepted: bool) -> None:
    parent = billing_draft()
    child = TaskDraft(blueprint=parent.blueprint.model_copy(update={"iteration": 1}), instruction=parent.instruction,
                      workspace=parent.workspace, solve_sh=parent.solve_sh, verifier_files=parent.verifier_files,
                      author="model:scripted")  # fmt: skip
    status = GateStatus.passed if accepted else GateStatus.failed
    gates = lambda record, blueprint: Validation(record.task_id, (GateOutcome(Gate.oracle, status, "oracle evidence"),))  # noqa: E731
    shutil.rmtree(setting[2])  # the child carries its parent's stored copy of the skill, not the skills root's
    result, stage = decide(setting, Hardeners(diagnoser=Diagnoser(diagnosis()), author=Author(child), gates=gates))  # type: ignore[arg-type]
    assert json.loads(result["child_gates"])["accepted"] is accepted
    if accepted:
        assert result["outcome"] == "hardened" and stage.children[0].iteration == 1 and len(stage.blueprints) == 1
        store = setting[1]
        child_skill = TaskPaths(store.resolve(stage.children[0].store_path or "")).skill_dir
        parent_skill = TaskPaths(store.resolve(setting[0]["store_path"])).skill_dir
        assert sorted(p.relative_to(child_skill) for p in child_skill.rglob("*")) == sorted(
            p.relative_to(parent_skill) for p in parent_skill.rglob("*")
        ) and any(child_skill.iterdir())
    else:
        assert result["outcome"] == "rejected" and "oracle: oracle evidence" in result["reason"]
        assert stage.children[0].task_digest == setting[0]["task_digest"] and not stage.blueprints


def _group(setting: Setting, calls: list[list[str]], reward: float) -> tuple[dict[str, Any], _GroupEvidence]:
    """The parent's row at mean reward `reward`, and attempts that made these tool calls (one list each)."""
    row = setting[0] | {"mean_reward": reward, "attempts": len(calls)}
    rewards = [{"rollout_id": f"r{n}", "attempt": n, "reward": reward} for n in range(len(calls))]
    steps = [{"rollout_id": f"r{n}", "step_id": 3, "observations": "[]",
              "tool_calls": json.dumps([{"tool_call_id": "c", "function_name": f, "arguments": {}} for f in names])}
             for n, names in enumerate(calls)]  # fmt: skip
    return row, _GroupEvidence([], rewards, steps)


@pytest.mark.parametrize(
    ("calls", "triggered"),
    [([["finish"], ["list_dir", "finish"]], False), ([["list_dir"], ["write_file", "finish"]], True)],
)
def test_the_adaptive_trigger_does_not_count_empty_rollouts(
    setting: Setting, calls: list[list[str]], triggered: bool
) -> None:
    row, evidence = _group(setting, calls, 0.0)
    _, store, _ = setting
    stage = HardeningStage(row["domain"], 0)
    additions = pl.DataFrame(schema={"diagnosis": pl.String, "candidate_id": pl.String, "pattern_id": pl.String})
    # An adaptive trigger of 0 (every task of the domain scored 0), inclusive: 0 is "at or above" it.
    decider = _Decider(stage, store, {}, Hardeners(), seed_pool(), 0.0, True, additions)
    result = decider.decide(row, evidence, row["task_id"])
    assert result["triggered"] is triggered and result["outcome"] == "kept"
    if not triggered:
        assert "empty rollout" in result["reason"] and stage.children[0].task_digest == row["task_digest"]
    else:
        assert "no diagnoser model configured" in result["reason"]

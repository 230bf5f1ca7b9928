"""Verifying rollouts of the sales-summary fixture in real sandboxes: oracle, partial and nop land where
they should, fresh and in-place verification agree, Harbor's own test.sh gives the same reward file,
a judge completes the reward, and the authors' task-script mode scores a task of their shape."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, SandboxFactory, fixture_task
from rubric_helpers import rubric_task, task_rubric

from skill2env.agent.scripted import NopPolicy, OraclePolicy, PartialPolicy, ScriptedPolicy
from skill2env.rubric.bundle import write_bundle
from skill2env.rubric.eval_spec import rubric_from_eval_spec
from skill2env.rubric.evaluate import verify_in_sandbox, verify_rollout
from skill2env.rubric.judge import FunctionJudge, JudgeRequest, JudgeVerdict
from skill2env.rubric.results import Flag, ItemStatus
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.harbor import TEST_SH

pytestmark = pytest.mark.integration

TASK = rubric_task()
RUBRIC = task_rubric(TASK)
LIMITS = SandboxLimits.for_task(TASK)
DETERMINISTIC = [item.id for item in RUBRIC.items if item.method == "deterministic"]

EXPECTED = {
    # policy: (raw reward = Σ w·q over the deterministic items, the items that pass)
    "oracle": (0.8, set(DETERMINISTIC)),
    "partial": (0.4, {"revenue_table", "sources_untouched"}),
    "nop": (0.1, {"sources_untouched"}),
}
POLICIES: dict[str, ScriptedPolicy] = {"oracle": OraclePolicy(), "partial": PartialPolicy(0.5), "nop": NopPolicy()}


@pytest.mark.parametrize("policy", ["oracle", "partial", "nop"])
def test_policies_score_as_designed_in_a_fresh_sandbox(new_sandbox: SandboxFactory, policy: str) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    POLICIES[policy].act(agent, TASK)

    result = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS))

    raw, passing = EXPECTED[policy]
    assert result.status == "scored", result.error
    assert result.isolation == "fresh"
    assert result.raw_reward == pytest.approx(raw)
    assert result.reward == pytest.approx(raw)  # the unscored judge item counts 0
    assert result.scored_weight == pytest.approx(0.8) and not result.complete and not result.full_credit
    assert result.flags == [Flag.unscored, Flag.incomplete] and result.passed is None
    assert {r.item_id for r in result.items if r.status == ItemStatus.passed} == passing
    assert result.item("report_quality").status == ItemStatus.unscored
    failing = [r for r in result.items if r.status == ItemStatus.failed]
    assert all(r.evidence.get("summary") for r in failing)


def test_in_place_and_fresh_verification_agree(new_sandbox: SandboxFactory) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    PartialPolicy(0.5).act(agent, TASK)

    in_place = verify_in_sandbox(agent, TASK, RUBRIC)
    fresh = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS))

    assert in_place.isolation == "in_place" and fresh.isolation == "fresh"
    assert [(r.item_id, r.status, r.q) for r in in_place.items] == [(r.item_id, r.status, r.q) for r in fresh.items]
    assert json.loads(agent.read_file("/logs/verifier/reward.json")) == in_place.reward_json()


@pytest.mark.parametrize("writer", ["bundle", "harbor_writer"])
def test_harbors_own_test_sh_writes_the_same_reward_file(
    new_sandbox: SandboxFactory, tmp_path: Path, writer: str
) -> None:
    task_copy = tmp_path / TASK.name
    shutil.copytree(TASK.root, task_copy)
    write_bundle(task_copy / "tests", RUBRIC)
    if writer == "harbor_writer":  # the task writer's own test.sh runs the same verifier
        (task_copy / "tests" / "test.sh").write_text(TEST_SH)
    task = TaskDir(task_copy)
    agent = new_sandbox(LIMITS)
    agent.start(task)
    OraclePolicy().act(agent, task)

    agent.copy_in(task.tests_dir, "/tests")
    run = agent.exec(["bash", "/tests/test.sh"], user="root", timeout=120)
    harbor = json.loads(agent.read_file("/logs/verifier/reward.json"))

    assert run.ok, run.stderr
    assert harbor == {"reward": pytest.approx(0.8)}  # reward only: the unscored judge item counts 0
    details = json.loads(agent.read_file("/logs/verifier/results.json"))
    assert details["complete"] is False and details["full_credit"] is False
    assert {e["id"]: e["scored_by"] for e in details["items"]} == {
        **{item: "verifier" for item in DETERMINISTIC},
        "report_quality": None,
    }
    assert verify_in_sandbox(agent, task, RUBRIC).reward == pytest.approx(harbor["reward"])


def test_a_judge_completes_the_reward(new_sandbox: SandboxFactory) -> None:
    asked: list[JudgeRequest] = []

    def judge(request: JudgeRequest, seed: int) -> JudgeVerdict:
        asked.append(request)
        return JudgeVerdict(score=1.0, quotes=[{"path": "output/report.md", "quote": "The top region is south"}])

    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    OraclePolicy().act(agent, TASK)

    result = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS), judge=FunctionJudge(judge))

    assert result.complete and result.flags == [] and result.reward == pytest.approx(1.0) and result.passed
    assert [f.path for f in asked[0].files] == ["output/report.md"]
    assert "Total revenue: 81.00" in asked[0].files[0].text
    assert result.item("report_quality").evidence["quotes"][0]["found"] is True


def test_a_check_kept_past_the_verifiers_time_fails_its_items_within_the_timeout(new_sandbox: SandboxFactory) -> None:
    slow = RUBRIC.model_copy(
        update={
            "items": [
                RUBRIC.items[0].model_copy(
                    update={
                        "check": RUBRIC.items[0].check.model_copy(  # type: ignore[union-attr]
                            update={
                                "check": "python",
                                "timeout_s": 30,
                                "params": {"source": "import time\ndef check(ws, args):\n    time.sleep(20)\n"},
                            }
                        )
                    }
                ),
                *RUBRIC.items[1:],
            ]
        }
    )
    agent = new_sandbox(LIMITS)
    agent.start(TASK)

    result = verify_in_sandbox(agent, TASK, slow, timeout_s=12)

    assert result.status == "scored" and result.reward == 0.0
    slowest = result.items[0]
    assert slowest.status == ItemStatus.failed and "time budget ran out" in (slowest.error or "")
    assert result.duration_s is not None and result.duration_s < 12


def test_the_authors_task_script_mode(new_sandbox: SandboxFactory) -> None:
    task = fixture_task(CSV_AGGREGATION)  # tests/test.sh writes {"revenue_by_region": s, "reward": s}
    rubric = rubric_from_eval_spec(
        {
            "pass_threshold": 0.7,
            "items": [
                {
                    "id": "revenue_by_region",
                    "description": "revenue table",
                    "weight": 0.8,
                    "method": "deterministic",
                    "target_globs": ["output/revenue_by_region.csv"],
                },
                {
                    "id": "clarity",
                    "description": "clear output",
                    "weight": 0.2,
                    "method": "llm_judge",
                    "judge_instruction": "Is the table tidy?",
                    "target_globs": ["output/*.csv"],
                },
            ],
        }
    )
    limits = SandboxLimits.for_task(task)
    judge = FunctionJudge(lambda request, seed: JudgeVerdict(score=0.5 if request.files else 0.0))

    oracle = new_sandbox(limits)
    oracle.start(task)
    OraclePolicy().act(oracle, task)
    solved = verify_in_sandbox(oracle, task, rubric, judge=judge)

    nop = new_sandbox(limits)
    nop.start(task)
    unsolved = verify_in_sandbox(nop, task, rubric, judge=judge)

    assert solved.mode == "task_script" and solved.status == "scored", solved.error
    assert solved.item("revenue_by_region").q == 1.0 and solved.item("clarity").q == 0.5
    assert solved.reward == pytest.approx(0.9) and solved.complete and solved.passed
    assert unsolved.item("revenue_by_region").q == 0.0 and unsolved.reward == pytest.approx(0.0)


def test_a_program_that_hangs_the_tasks_own_script_is_scored_zero_not_excused(
    new_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    # A task whose own tests run the agent's program: a program that never ends must not turn the
    # attempt into an unscored infra_error (which would let it escape its 0).
    task_copy = tmp_path / "runs-the-agents-program"
    shutil.copytree(fixture_task(CSV_AGGREGATION).root, task_copy)
    (task_copy / "tests" / "test.sh").write_text(
        "#!/usr/bin/env bash\n"
        "mkdir -p /logs/verifier\n"
        'if [ "$(bash /workspace/output/make_table.sh)" = "east,11.00" ]; then s=1; else s=0; fi\n'
        'printf \'{"revenue_by_region": %s, "reward": %s}\\n\' "$s" "$s" > /logs/verifier/reward.json\n'
    )
    task = TaskDir(task_copy)
    rubric = rubric_from_eval_spec(
        {"items": [{"id": "revenue_by_region", "description": "the table", "weight": 1.0, "method": "deterministic"}]}
    )
    agent = new_sandbox(SandboxLimits.for_task(task))
    agent.start(task)
    agent.exec("mkdir -p output && printf 'while :; do :; done\\n' > output/make_table.sh", timeout=30)

    result = verify_rollout(agent, task, rubric, new_sandbox(SandboxLimits.for_task(task)), timeout_s=6)

    assert result.status == "scored" and result.mode == "task_script", result.error
    assert result.reward == 0.0 and not result.passed
    assert "ran past the verifier's 6 s limit" in (result.item("revenue_by_region").error or "")

"""An agent cannot forge its reward: whatever it does before verification — writing reward files,
editing or planting tests, planting a fake test.sh, touching what checks read outside its workspace,
shadowing the verifier's modules — the reward is the one its work earns, in place and fresh."""

from __future__ import annotations

import pytest
from harbor_tasks import SandboxFactory
from rubric_helpers import rubric_task, task_rubric

from skill2env.agent.scripted import OraclePolicy
from skill2env.rubric.evaluate import verify_in_sandbox, verify_rollout
from skill2env.rubric.judge import FunctionJudge, JudgeRequest, JudgeVerdict
from skill2env.rubric.results import ItemStatus, VerificationResult
from skill2env.sandbox.base import SandboxLimits

pytestmark = pytest.mark.integration

TASK = rubric_task()
RUBRIC = task_rubric(TASK)
LIMITS = SandboxLimits.for_task(TASK)
FORGED = (
    '{"reward": 1.0, "revenue_table": 1.0, "summary_values": 1.0, "deliverables_agree": 1.0, "database_total": 1.0}'
)

ATTACKS = {
    "writes_reward_files": f"""
        mkdir -p /logs/verifier
        echo '{FORGED}' > /logs/verifier/reward.json
        echo 1 > /logs/verifier/reward.txt
        echo '{{"status": "scored", "items": []}}' > /logs/verifier/results.json
        ln -s /workspace/forged.json /logs/verifier/verification.json
        echo '{FORGED}' > /workspace/forged.json
    """,
    "edits_tests": """
        echo '{"items": []}' > /tests/rubric.json
        mkdir -p /tests/rubric_checks && echo 'raise SystemExit(0)' > /tests/rubric_checks/__init__.py
        echo 'print(1)' > /tests/verify.py
        mkdir -p /workspace/tests && echo '{"items": []}' > /workspace/tests/rubric.json
        chmod -R a+w /tests
    """,
    "plants_a_fake_test_sh": f"""
        printf '#!/bin/bash\\necho %q > /logs/verifier/reward.json\\n' '{FORGED}' > /tests/test.sh
        mkdir -p /workspace/tests
        printf '#!/bin/bash\\necho %q > /logs/verifier/reward.json\\n' '{FORGED}' > /workspace/tests/test.sh
        cp /workspace/tests/test.sh /workspace/test.sh; cp /workspace/tests/test.sh /tmp/test.sh
        chmod +x /workspace/test.sh /workspace/tests/test.sh /tmp/test.sh
    """,
    "touches_inputs_outside_the_workspace": f"""
        echo '{FORGED}' > /tmp/reward.json
        echo 'region,revenue' > /tmp/expected.csv
        echo hacked > /solution/solve.sh
        echo 'import sys; sys.exit(0)' > /usr/lib/python3/dist-packages/sitecustomize.py
        echo 'raise SystemExit(0)' > /workspace/sitecustomize.py
        for m in json csv re pathlib sqlite3; do echo 'raise SystemExit(0)' > /workspace/$m.py; done
        mkdir -p /workspace/rubric_checks && echo 'raise SystemExit(0)' > /workspace/rubric_checks/__init__.py
        mkdir -p /workspace/output && ln -sf /tests/rubric.json /workspace/output/summary.json
        ln -sf ../../logs/verifier/reward.json /workspace/output/revenue_by_region.csv
        (sleep 30; echo '{FORGED}' > /logs/verifier/reward.json) >/dev/null 2>&1 &
    """,
}
NOP_RAW, NOP_PASSING = 0.1, {"sources_untouched"}
"""What doing nothing earns: the read-only sources are still unchanged."""


def assert_honest(result: VerificationResult, raw: float, passing: set[str]) -> None:
    assert result.status == "scored", result.error
    assert result.raw_reward == pytest.approx(raw)
    assert result.reward == pytest.approx(raw) and not result.full_credit
    assert {r.item_id for r in result.items if r.status == ItemStatus.passed} == passing
    assert result.item("report_quality").status == ItemStatus.unscored


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_the_reward_is_what_the_work_earns(new_sandbox: SandboxFactory, attack: str) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    agent.exec(["bash", "-c", ATTACKS[attack]], timeout=60)  # as the agent; what fails, fails

    fresh = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS))
    in_place = verify_in_sandbox(agent, TASK, RUBRIC)

    assert_honest(fresh, NOP_RAW, NOP_PASSING)
    assert fresh.isolation == "fresh"
    assert_honest(in_place, NOP_RAW, NOP_PASSING)
    assert agent.read_file("/logs/verifier/reward.json") != FORGED.encode()


def test_a_solved_task_keeps_its_reward_whatever_else_the_agent_plants(new_sandbox: SandboxFactory) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    OraclePolicy().act(agent, TASK)
    shadowing = "\n".join(
        line for line in ATTACKS["touches_inputs_outside_the_workspace"].splitlines() if "/workspace/output" not in line
    )
    agent.exec(["bash", "-c", ATTACKS["writes_reward_files"] + shadowing], timeout=60)

    for result in (verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS)), verify_in_sandbox(agent, TASK, RUBRIC)):
        assert result.status == "scored", result.error
        assert result.reward == pytest.approx(0.8) and result.raw_reward == pytest.approx(0.8)  # the judge item: 0


def test_a_link_out_of_the_workspace_is_refused_not_followed(new_sandbox: SandboxFactory) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    OraclePolicy().act(agent, TASK)
    # the real deliverable replaced by a link to a file outside the workspace with the same content
    agent.exec("cp output/summary.json /tmp/summary.json && ln -sf /tmp/summary.json output/summary.json")

    in_place = verify_in_sandbox(agent, TASK, RUBRIC)
    fresh = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS))

    summary = in_place.item("summary_values")
    assert summary.status == ItemStatus.failed
    assert summary.evidence["summary"] == "output/summary.json is a link leading outside the workspace"
    # a fresh verification never even copies a link in: the deliverable is missing there
    assert fresh.item("summary_values").status == ItemStatus.failed
    assert fresh.item("summary_values").evidence["summary"] == "output/summary.json does not exist"
    assert "not copied in" in fresh.verifier_log and "output/summary.json" in fresh.verifier_log


def test_odd_files_the_agent_leaves_do_not_turn_verification_into_an_infra_error(new_sandbox: SandboxFactory) -> None:
    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    OraclePolicy().act(agent, TASK)
    agent.exec(
        "mkfifo output/pipe && ln -s ../../etc/passwd output/up && ln -s /etc/hostname output/abs "
        "&& ln -s missing output/dangling && mkdir -p .venv/bin && ln -s /usr/bin/python3 .venv/bin/python"
    )

    result = verify_rollout(agent, TASK, RUBRIC, new_sandbox(LIMITS))

    assert result.status == "scored", result.error
    assert result.raw_reward == pytest.approx(0.8) and result.reward == pytest.approx(0.8)


def test_an_unreadable_deliverable_fails_its_items_and_is_shown_to_the_judge_as_such(
    new_sandbox: SandboxFactory,
) -> None:
    seen: list[JudgeRequest] = []

    def judge(request: JudgeRequest, seed: int) -> JudgeVerdict:
        seen.append(request)
        return JudgeVerdict(score=0.0 if not request.files or not request.files[0].text else 1.0)

    agent = new_sandbox(LIMITS)
    agent.start(TASK)
    OraclePolicy().act(agent, TASK)
    agent.exec("chmod 000 output/report.md")

    result = verify_in_sandbox(agent, TASK, RUBRIC, judge=FunctionJudge(judge))

    assert result.status == "scored", result.error
    assert result.item("deliverables_agree").status == ItemStatus.failed
    assert result.item("report_quality").status == ItemStatus.failed
    assert seen[0].files[0].unreadable

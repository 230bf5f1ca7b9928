"""Scripted policies on the fixture tasks: the oracle produces the expected workspace, nop leaves it
unchanged, partial stops half-way — and the task's own verifier agrees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harbor_tasks import CSV_AGGREGATION, HARBOR_FIXTURES, LOG_TRIAGE, SandboxFactory, fixture_task, tree

from skill2env.agent.scripted import (
    NopPolicy,
    OraclePolicy,
    PartialPolicy,
    ScriptedPolicy,
    run_scripted_rollout,
)
from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.task import TaskDir

pytestmark = pytest.mark.integration

EXPECTED_OUTPUTS = {
    CSV_AGGREGATION: {"output/revenue_by_region.csv": b"region,revenue\neast,11.00\nnorth,27.50\nsouth,42.50\n"},
    LOG_TRIAGE: {
        "report/errors.log": (
            b"2025-01-01T10:00:01 ERROR db: connection refused\n"
            b"2025-01-01T10:00:03 ERROR api: upstream timeout\n"
            b"2025-01-01T10:00:04 ERROR db: connection refused\n"
        ),
        "report/counts.txt": b"api 1\ndb 2\n",
    },
}


def _run(policy: ScriptedPolicy, name: str, sandbox: Sandbox, out: Path) -> dict[str, bytes]:
    rollout = run_scripted_rollout(policy, fixture_task(name), sandbox, workspace_out=out)
    assert rollout.status == "completed", rollout.error
    assert all(step.ok for step in rollout.steps), [step.stderr for step in rollout.steps]
    assert rollout.policy == policy.name and rollout.backend == sandbox.backend
    return tree(out)


@pytest.mark.parametrize("name", [CSV_AGGREGATION, LOG_TRIAGE])
def test_the_oracle_produces_the_expected_workspace(new_sandbox: SandboxFactory, tmp_path: Path, name: str) -> None:
    task = fixture_task(name)
    workspace = _run(OraclePolicy(), name, new_sandbox(SandboxLimits.for_task(task)), tmp_path / "out")

    assert workspace == {**tree(task.workspace_dir), **EXPECTED_OUTPUTS[name]}


@pytest.mark.parametrize("name", [CSV_AGGREGATION, LOG_TRIAGE])
def test_nop_leaves_the_workspace_unchanged(new_sandbox: SandboxFactory, tmp_path: Path, name: str) -> None:
    task = fixture_task(name)
    workspace = _run(NopPolicy(), name, new_sandbox(SandboxLimits.for_task(task)), tmp_path / "out")

    assert workspace == tree(task.workspace_dir)


def test_partial_runs_only_the_first_part_of_the_oracle(new_sandbox: SandboxFactory, tmp_path: Path) -> None:
    task = fixture_task(LOG_TRIAGE)
    workspace = _run(PartialPolicy(0.75), LOG_TRIAGE, new_sandbox(SandboxLimits.for_task(task)), tmp_path / "out")

    assert workspace["report/errors.log"] == EXPECTED_OUTPUTS[LOG_TRIAGE]["report/errors.log"]
    assert "report/counts.txt" not in workspace


@pytest.mark.parametrize(("policy", "reward"), [(OraclePolicy(), 1.0), (PartialPolicy(0.75), 0.5), (NopPolicy(), 0.0)])
def test_the_tasks_verifier_scores_each_policy(
    new_sandbox: SandboxFactory, policy: ScriptedPolicy, reward: float
) -> None:
    task = fixture_task(LOG_TRIAGE)
    sandbox = new_sandbox(SandboxLimits.for_task(task))
    sandbox.start(task)
    policy.act(sandbox, task)

    scored = _verify(sandbox, task)

    assert scored["reward"] == reward


def _verify(sandbox: Sandbox, task: TaskDir) -> dict[str, float]:
    sandbox.copy_in(task.tests_dir, "/tests")
    result = sandbox.exec(["bash", "/tests/test.sh"], user="root", timeout=task.verifier_timeout_sec)
    assert result.ok, result.stderr
    return json.loads(sandbox.read_file("/logs/verifier/reward.json"))


def test_the_fixture_tasks_are_valid_harbor_directories() -> None:
    names = sorted(p.name for p in HARBOR_FIXTURES.iterdir())
    assert names == [CSV_AGGREGATION, LOG_TRIAGE]
    assert all(fixture_task(name).is_valid() for name in names)

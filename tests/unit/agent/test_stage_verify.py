"""What the rollout stage verifies: an attempt whose own commands broke its sandbox is the agent's
failure (scored 0 with the cause), an infrastructure failure is unscored."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill2env.agent.stage import _verify
from skill2env.agent.trajectory import Trajectory
from skill2env.home import Home
from skill2env.rubric.models import Rubric

RUBRIC = Rubric.model_validate(
    {
        "items": [
            {"id": "a", "description": "d", "weight": 0.6, "method": "deterministic",
             "check": {"check": "file_exists", "params": {"path": "x"}}},
            {"id": "j", "description": "d", "weight": 0.4, "method": "llm_judge", "judge_instruction": "judge it"},
        ]
    }
)  # fmt: skip


def attempt(status: str, error: str) -> Trajectory:
    return Trajectory(rollout_id="r1", group_id="g", run_id="run", task_id="t-i0", task_name="t", domain="d",
                      iteration=0, policy="solver", model="m", attempt=1, backend="docker", status=status,
                      error=error)  # fmt: skip


@pytest.mark.parametrize("status", ["sandbox_broken", "agent_timeout"])
def test_an_attempt_that_lost_its_workspace_by_its_own_doing_is_scored_zero(tmp_path: Path, status: str) -> None:
    scored = _verify(attempt(status, "the command server was OOM-killed"), {"rubric": RUBRIC.model_dump_json()},
                     Home(tmp_path), "bwrap", None)  # fmt: skip

    result = scored.result
    assert result.status == "scored" and result.reward == 0.0 and result.complete and not result.full_credit
    assert all(item.status == "failed" and "OOM-killed" in (item.error or "") for item in result.items)


def test_an_infrastructure_failure_stays_unscored(tmp_path: Path) -> None:
    scored = _verify(attempt("infra_error", "the engine stopped answering"), {"rubric": RUBRIC.model_dump_json()},
                     Home(tmp_path), "bwrap", None)  # fmt: skip

    assert scored.result.status == "infra_error" and scored.result.reward is None

"""The red-team probe on real sandboxes: the solver model (the scripted server) is told to get the
reward without doing the task; its attempt is recorded and verified like a rollout, and a task it
beats is rejected by the hack-probe gate, naming `red_team_model`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_fixtures import ClientFactory
from llm_server import Scripted, ScriptedServer, tool_calls
from task_samples import billing_draft, make_skill_dir

from skill2env.agent.actors import policy_from_name
from skill2env.home import Home
from skill2env.llm.cache import CacheMode
from skill2env.rubric.models import Rubric
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation.gates import Gate, GateStatus, validate_task
from skill2env.validation.red_team import RED_TEAM_PROMPT, STRATEGY, RedTeam

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]
SHORTCUT = (
    "mkdir -p /logs/verifier reconciliation 2>/dev/null; echo '{\"reward\": 1.0}' > /logs/verifier/reward.json; "
    "printf 'invoice,line\\nINV-0001,1\\n' > reconciliation/detail.csv; "
    'echo \'{"total_billed": 1000.0, "flags": ["INV-0001"]}\' > reconciliation/summary.json'
)
"""Invented from the instruction's deliverable names alone: no reconciliation was done."""


def red_teamer(request: dict[str, Any]) -> Scripted:
    """The solver under the red-team prompt: plant a reward file, write plausible deliverables, finish."""
    messages = request["messages"]
    assert messages[0]["role"] == "system" and messages[0]["content"] == RED_TEAM_PROMPT
    if not any(m["role"] == "assistant" for m in messages):
        return tool_calls(("bash", {"command": SHORTCUT, "timeout": 60}))
    return tool_calls(("finish", {"message": "planted a reward file and invented deliverables"}))


def validate(tmp_path: Path, rubric: Rubric, red_team: RedTeam) -> Any:
    draft = billing_draft()
    task_dir = tmp_path / "task"
    write_task_dir(draft, task_dir, skill_dir=make_skill_dir(tmp_path / "skills"))
    return validate_task("billing", task_dir, rubric, backend="bwrap", blueprint=draft.blueprint, red_team=red_team)


@pytest.fixture
def red_team(server: ScriptedServer, make_client: ClientFactory, tmp_path: Path) -> RedTeam:
    server.respond = red_teamer
    client = make_client(role="solver", cache=CacheMode.off)
    return RedTeam(policy_from_name("solver", client=client), Home(tmp_path / "home"), "bwrap", max_turns=4)


def test_a_sound_task_resists_the_red_team_and_its_attempt_is_recorded(red_team: RedTeam, tmp_path: Path) -> None:
    validation = validate(tmp_path, billing_draft().blueprint.rubric, red_team)

    probe = next(p for p in validation.probes if p.strategy == STRATEGY)
    assert probe.status == "passed" and probe.reward is not None and probe.reward <= 0.1, probe.evidence
    assert "reward_file" in probe.evidence and "verifier_path" in probe.evidence, "its trajectory was flagged"
    trajectory = probe.evidence.rsplit("trajectory: ", 1)[1]
    atif = json.loads((red_team.home.root / trajectory).read_text())
    assert any("reward.json" in json.dumps(step) for step in atif["steps"]), "the attempt's steps are recorded"
    assert validation.accepted, [(o.gate.value, o.evidence) for o in validation.outcomes]


def test_a_task_the_red_team_beats_is_rejected_naming_it(red_team: RedTeam, tmp_path: Path) -> None:
    # A rubric that only asks for a deliverable to exist: anyone can write it without the work.
    lenient = Rubric.model_validate({"items": [{
        "id": "summary_written", "description": "summary.json is written", "weight": 1.0, "method": "deterministic",
        "check": {"check": "file_exists", "params": {"path": "reconciliation/summary.json"}},
    }]})  # fmt: skip

    validation = validate(tmp_path, lenient, red_team)

    gate = next(o for o in validation.outcomes if o.gate == Gate.hack_probe)
    assert not validation.accepted and gate.status == GateStatus.failed
    assert STRATEGY in gate.evidence


def test_a_red_team_that_just_does_the_work_is_recorded_not_a_rejection(
    server: ScriptedServer, make_client: ClientFactory, tmp_path: Path
) -> None:
    draft = billing_draft()

    def solver_ignoring_the_brief(request: dict[str, Any]) -> Scripted:
        if not any(m["role"] == "assistant" for m in request["messages"]):
            return tool_calls(("bash", {"command": draft.solve_sh, "timeout": 120}))
        return tool_calls(("finish", {"message": "done"}))

    server.respond = solver_ignoring_the_brief
    client = make_client(role="solver", cache=CacheMode.off)
    team = RedTeam(policy_from_name("solver", client=client), Home(tmp_path / "home"), "bwrap", max_turns=4)

    validation = validate(tmp_path, draft.blueprint.rubric, team)

    probe = next(p for p in validation.probes if p.strategy == STRATEGY)
    assert probe.status == "passed" and probe.reward is not None and probe.reward > 0.1
    assert "may have done the work" in probe.evidence
    assert validation.accepted, [(o.gate.value, o.evidence) for o in validation.outcomes]

"""Judge items that nobody scored never help an attempt, end to end through the main job.

The model-authored checkout-incident task has one judge item (the note names the culprit deploy).
Two runs of the pipeline (`run_pipeline`, what `skill2env run` calls) with the scripted server:

* the judge works while the gates run, then fails on the solver's notes (it answers garbage), so
  every rollout has an `error` judge item: incomplete, never full credit, never in the SFT set;
* no judge is configured at all: the task is `accepted_without_judge`, never plainly accepted, and
  its rollouts have an `unscored` judge item: incomplete, reward over the whole weight, no SFT.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_server import Scripted, text, tool_calls
from model_author_script import SOLVE_SH, make_log_skill
from model_hardening_script import respond
from model_roles import scripted_roles

from skill2env.definitions import PipelineOptions, run_pipeline
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.lake.sqlfiles import load_sql

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
OPTIONS = PipelineOptions(iterations=0, author="model", backend="bwrap",
                          attempts=2)  # fmt: skip
SOLVER_MARK = "Reviewed by the solver."
SOLVER_SH = f"{SOLVE_SH}\necho '{SOLVER_MARK}' >> report/incident.md\n"


def judge_breaks_on_the_solvers_notes(request: dict[str, Any]) -> Scripted:
    """As `respond`, but the solver marks its note, and the judge answers garbage to a marked note."""
    messages = request["messages"]
    if request.get("tools") and not any(m["role"] == "assistant" for m in messages):
        return tool_calls(("bash", {"command": SOLVER_SH, "timeout": 120}))
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    if system.startswith("You are the judge") and SOLVER_MARK in json.dumps(messages):
        return text("I would rather not say.")
    return respond(request)


def run(tmp_path: Path, responder: Callable[[dict[str, Any]], Scripted], roles: tuple[str, ...]) -> tuple[Home, Lake]:
    root, home = tmp_path / "skills", Home(tmp_path / "home")
    make_log_skill(root)
    with scripted_roles(responder, home, roles):
        run_pipeline(home, root, OPTIONS, workers=1)
    return home, Lake(home.lake_path)


def exported_rollouts(home: Home) -> set[str]:
    path = home.root / "exports" / "sft" / "sft.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return {json.loads(line)["metadata"]["rollout_id"] for line in lines if line.strip()}


def test_a_judge_that_fails_on_the_rollouts_makes_them_incomplete_and_keeps_them_out_of_sft(tmp_path: Path) -> None:
    home, lake = run(tmp_path, judge_breaks_on_the_solvers_notes, ("AUTHOR", "SOLVER", "JUDGE"))

    acceptance = lake.query("SELECT DISTINCT acceptance FROM accepted_tasks").to_series().to_list()
    assert acceptance == ["accepted"], "the judge worked during the gates"
    rollouts = lake.query("SELECT * FROM rollout_rewards WHERE policy = 'solver' ORDER BY attempt").to_dicts()
    assert len(rollouts) == 2
    for rollout in rollouts:
        assert rollout["verification"] == "scored" and rollout["incomplete"], rollout
        assert not rollout["full_credit"] and "item_errors" in rollout["flags"], rollout
        assert rollout["reward"] < 1.0, "the failed judge item counts 0 over the whole weight"
    judged = lake.query("SELECT status, q, error FROM rubric_scores WHERE method = 'llm_judge'").rows()
    assert judged and all(status == "error" and q is None and error for status, q, error in judged), judged
    deterministic = lake.query("SELECT bool_and(status = 'passed') FROM rubric_scores "
                               "WHERE method = 'deterministic'").item()  # fmt: skip
    assert deterministic, "everything else was solved: only the judge item keeps the attempt from full credit"
    assert lake.query(load_sql("queries/sft_candidates"), {"min_reward": 0.0}).height == 0
    assert not exported_rollouts(home) & {r["rollout_id"] for r in rollouts}


def test_without_a_judge_the_task_is_accepted_without_judge_and_its_rollouts_are_incomplete(tmp_path: Path) -> None:
    home, lake = run(tmp_path, respond, ("AUTHOR", "SOLVER"))

    gate = lake.query("SELECT status, evidence, acceptance FROM validations WHERE gate = 'judge'").to_dicts()
    assert len(gate) == 1 and gate[0]["status"] == "unjudged", gate
    assert gate[0]["acceptance"] == "accepted_without_judge"
    assert lake.query("SELECT acceptance FROM accepted_tasks").to_series().to_list() == ["accepted_without_judge"]
    funnel = lake.query("SELECT accepted, accepted_without_judge FROM validation_funnel WHERE domain = '*'").rows()
    assert funnel == [(1, 1)]
    rollouts = lake.query("SELECT * FROM rollout_rewards WHERE policy = 'solver'").to_dicts()
    assert len(rollouts) == 2
    weights = dict(lake.query("SELECT method, sum(weight) FROM rubric_scores WHERE rollout_id = $r GROUP BY 1",
                              {"r": rollouts[0]["rollout_id"]}).rows())  # fmt: skip
    for rollout in rollouts:
        assert rollout["incomplete"] and not rollout["full_credit"] and "unscored" in rollout["flags"], rollout
        assert rollout["reward"] == pytest.approx(weights["deterministic"] / sum(weights.values()))
    assert lake.query(load_sql("queries/sft_candidates"), {"min_reward": 0.0}).height == 0
    assert not exported_rollouts(home)

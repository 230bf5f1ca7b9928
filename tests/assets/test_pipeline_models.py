"""`skill2env run --iterations 2` with the scripted server playing author, solver, diagnoser and
judge: the model-authored task is diagnosed, revised, rebuilt by the author model and passes every
gate again; the diagnosis grows the pool; the hardening curve spans all iterations; an SFT row
traces back to its skill; a re-run with unchanged inputs spends no tokens and adds no rows."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest
from llm_server import Scripted
from model_author_script import make_log_skill
from model_hardening_script import respond, respond_with_careless_rebuild
from model_roles import scripted_roles

from skill2env.definitions import PipelineOptions, run_pipeline
from skill2env.home import Home
from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
ROLES = ("AUTHOR", "SOLVER", "DIAGNOSER", "JUDGE")
OPTIONS = PipelineOptions(iterations=2, author="model", backend="bwrap",
                          attempts=2)  # fmt: skip
COUNTED = ("tasks", "validations", "rollouts", "rubric_scores", "hardening_rounds", "sft_examples",
           "pattern_additions", "blueprints")  # fmt: skip


def _models(respond: Callable[[dict[str, Any]], Scripted], home: Home) -> AbstractContextManager[None]:
    """The scripted server as every role of ROLES, for runs in `home`."""
    return scripted_roles(respond, home, ROLES)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Home, Lake, Path, dict[str, int]]:
    root = tmp_path_factory.mktemp("skills")
    make_log_skill(root)
    home = Home(tmp_path_factory.mktemp("home"))
    with _models(respond, home):
        run_pipeline(home, root, OPTIONS, workers=1)
        lake = Lake(home.lake_path)
        first = _counts(lake)
        run_pipeline(home, root, OPTIONS, workers=1)
    return home, lake, root, first


def _counts(lake: Lake) -> dict[str, int]:
    return {table: int(lake.query(f"SELECT count(*) FROM {table}").item()) for table in COUNTED}


def test_the_solved_task_is_diagnosed_by_the_model_and_hardened(ran: tuple[Home, Lake, Path, dict[str, int]]) -> None:
    _, lake, _, _ = ran
    rounds = lake.query("SELECT * FROM hardening_rounds ORDER BY iteration").to_dicts()
    assert [r["iteration"] for r in rounds] == [0, 1]
    first, second = rounds
    assert first["outcome"] == "hardened" and first["triggered"], first["reason"]
    diagnosis = json.loads(first["diagnosis"])
    assert diagnosis["by"] == "diagnoser:scripted-model"
    verdicts = {c["pattern_id"]: c for c in diagnosis["challenges"]}
    assert verdicts["implicit_timezone"]["verdict"] == "solved_easily"
    assert verdicts["implicit_timezone"]["touched_steps"], "the verdict cites the solver's steps"
    rollouts = set(lake.query("SELECT rollout_id FROM rollouts WHERE iteration = 0").to_series().to_list())
    assert {step.split(":")[0] for step in verdicts["implicit_timezone"]["touched_steps"]} <= rollouts
    diff = json.loads(first["revision_diff"])
    assert {"op": "replace", "path": "/challenges/0/intensity", "old": 1, "value": 2} in diff
    gates = json.loads(first["child_gates"])
    assert gates["accepted"] and not gates["failing"], gates
    assert second["outcome"] == "kept" and second["trigger_reward"] < 0.7, second


def test_the_hardened_version_passes_every_gate_and_is_harder(ran: tuple[Home, Lake, Path, dict[str, int]]) -> None:
    home, lake, _, _ = ran
    funnel = lake.query("SELECT iteration, validated, accepted FROM validation_funnel WHERE domain = '*' "
                        "ORDER BY iteration").rows()  # fmt: skip
    assert funnel == [(0, 1, 1), (1, 1, 1), (2, 1, 1)]
    evidence = dict(lake.query("SELECT iteration, list(evidence) FROM validations GROUP BY 1").rows())
    reused = "run by the hardening stage after iteration 0"
    assert all(reused in text for text in evidence[1]), "the gates hardening ran are not run twice"
    assert not any(reused in text for text in evidence[2]), "a carried task is validated again"
    tasks = lake.query("SELECT iteration, task_digest, store_path FROM tasks ORDER BY iteration").rows()
    assert tasks[0][1] != tasks[1][1] and tasks[1][1] == tasks[2][1], "hardened at 1, carried to 2"
    config = home.root / tasks[1][2] / "environment" / "workspace" / "config" / "logging.ini"
    assert config.read_text().endswith("zone_offset = +02:00\n")
    curve = lake.query("SELECT iteration, tasks, full_credit_rate, mean_reward FROM hardening_curve "
                       "WHERE domain = '*' ORDER BY iteration").rows()  # fmt: skip
    assert [(k, n, rate) for k, n, rate, _ in curve] == [(0, 1, 1.0), (1, 1, 0.0), (2, 1, 0.0)]


def test_the_diagnosis_grows_the_pattern_pool_once(ran: tuple[Home, Lake, Path, dict[str, int]]) -> None:
    _, lake, _, first = ran
    additions = lake.query("SELECT candidate_id, action, parent, pattern_id FROM pattern_additions").to_dicts()
    assert first["pattern_additions"] == len(additions) == 1
    assert additions[0]["candidate_id"] == "multiline_log_records" and additions[0]["action"] in ("added", "merged")
    grown = lake.query("SELECT grown_patterns FROM hardening_rounds WHERE iteration = 0").item()
    assert list(grown) == [additions[0]["pattern_id"]]
    library = lake.query("SELECT id FROM pattern_library").to_series().to_list()
    assert additions[0]["pattern_id"] in library


def test_an_sft_row_traces_back_to_its_skill(ran: tuple[Home, Lake, Path, dict[str, int]]) -> None:
    _, lake, _, _ = ran
    example = lake.query("SELECT rollout_id, task_id FROM sft_examples WHERE reward > 0.9 LIMIT 1").to_dicts()[0]
    chain = lake.query("SELECT * FROM lineage WHERE rollout_id = $r", {"r": example["rollout_id"]}).to_dicts()
    assert chain and chain[0]["skill_path"] == "ops/log-analysis"


def test_a_rerun_spends_no_tokens_and_adds_no_rows(ran: tuple[Home, Lake, Path, dict[str, int]]) -> None:
    _, lake, _, first = ran
    assert _counts(lake) == first
    calls = lake.query("SELECT role, run_id, called_at, input_tokens + output_tokens AS spent, cache_hit "
                       "FROM llm_calls ORDER BY called_at").to_dicts()  # fmt: skip
    assert {"author", "solver", "diagnoser", "judge"} <= {c["role"] for c in calls}
    runs = list(dict.fromkeys(c["run_id"] for c in calls))
    first_runs = {c["run_id"] for c in calls if not c["cache_hit"]}
    later = [c for c in calls if c["run_id"] not in first_runs]
    assert later and len(runs) > len(first_runs), "the re-run asked the models again"
    assert all(c["cache_hit"] and c["spent"] == 0 for c in later), [c for c in later if not c["cache_hit"]]


def test_a_hardened_version_that_fails_a_gate_is_rejected_and_its_parent_stays(tmp_path: Path) -> None:
    root, home = tmp_path / "skills", Home(tmp_path / "home")
    make_log_skill(root)
    with _models(respond_with_careless_rebuild, home):
        run_pipeline(home, root, PipelineOptions(iterations=1, author=OPTIONS.author, backend="bwrap", attempts=1),
                     workers=1)  # fmt: skip
    lake = Lake(home.lake_path)
    rounds = lake.query("SELECT outcome, reason, child_gates, revision_diff FROM hardening_rounds").to_dicts()
    assert len(rounds) == 1 and rounds[0]["outcome"] == "rejected", rounds
    assert "failed the gates" in rounds[0]["reason"] and "oracle" in rounds[0]["reason"]
    assert "oracle" in json.loads(rounds[0]["child_gates"])["failing"]
    assert rounds[0]["revision_diff"], "the rejected revision is kept for the record"
    digests = lake.query("SELECT iteration, task_digest FROM tasks ORDER BY iteration").rows()
    assert [k for k, _ in digests] == [0, 1] and digests[0][1] == digests[1][1], "the parent is carried"
    accepted = lake.query("SELECT iteration FROM accepted_tasks ORDER BY iteration").to_series().to_list()
    assert accepted == [0, 1]

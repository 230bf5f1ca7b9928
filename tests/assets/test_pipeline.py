"""The whole pipeline through Dagster on two example skills: tasks, gates, rollouts, scores,
a hardening round, the SFT export, and lineage from an SFT row back to its skill. The scripted
server is the judge (it scores 1 with a verbatim quote from a non-empty note, else 0): a judge item
nobody scored would make every attempt incomplete and keep it out of the SFT set."""

from __future__ import annotations

import json
import re
import shutil
import tomllib
from typing import Any

import polars as pl
import pytest
from llm_server import Scripted, ScriptedServer, json_answer

from skill2env.definitions import PipelineOptions, run_pipeline
from skill2env.home import EXAMPLE_SKILLS, Home
from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
SKILLS = ("csv-cleaning", "log-analysis")


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> tuple[Home, Lake]:
    root = tmp_path_factory.mktemp("skills")
    for name in SKILLS:
        shutil.copytree(EXAMPLE_SKILLS / name, root / name)
    home = Home(tmp_path_factory.mktemp("home"))
    options = PipelineOptions(iterations=1, author="task_samples:SampleAuthor", backend="bwrap", policy="oracle",
                              attempts=2)  # fmt: skip
    with ScriptedServer(quoting_judge) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("SKILL2ENV_LLM_JUDGE_BASE_URL", server.base_url)
        patch.setenv("SKILL2ENV_LLM_JUDGE_MODEL", "scripted-judge")
        run_pipeline(home, root, options, workers=1)
    return home, Lake(home.lake_path)


def quoting_judge(request: dict[str, Any]) -> Scripted:
    """1 with the first line of the first file shown as its verbatim quote; 0 when no file has text."""
    user = "\n".join(str(m.get("content") or "") for m in request["messages"] if m["role"] == "user")
    shown = re.search(r"^=== file (\S+) \(\d+ bytes[^)]*\) \[\w+\] ===\n(.+)$", user, flags=re.MULTILINE)
    if shown is None or not shown.group(2).strip():
        return json_answer({"score": 0.0, "evidence": [], "reasoning": "No note to judge."})
    quote = {"path": shown.group(1), "quote": shown.group(2).strip()[:60]}
    return json_answer({"score": 1.0, "evidence": [quote], "reasoning": "The note gives its evidence."})


def test_every_task_is_validated_and_the_sound_ones_accepted(ran: tuple[Home, Lake]) -> None:
    _, lake = ran
    funnel = lake.query("SELECT * FROM validation_funnel WHERE domain = '*' ORDER BY iteration").to_dicts()
    assert [row["iteration"] for row in funnel] == [0, 1]
    assert all(row["accepted"] == row["validated"] == len(SKILLS) for row in funnel), funnel


def test_rollouts_are_scored_and_the_oracle_earns_full_credit(ran: tuple[Home, Lake]) -> None:
    _, lake = ran
    rewards = lake.query("SELECT iteration, reward, full_credit FROM rollout_rewards ORDER BY iteration")
    assert rewards.height == 2 * len(SKILLS) * 2  # two iterations, two attempts per task
    assert rewards.get_column("full_credit").all()
    rates = lake.query("SELECT DISTINCT pass_rate FROM item_pass_rates").to_series().to_list()
    assert rates == [1.0]


def test_hardening_considers_every_solved_task_and_carries_it(ran: tuple[Home, Lake]) -> None:
    _, lake = ran
    rounds = lake.query("SELECT * FROM hardening_rounds").to_dicts()
    assert len(rounds) == len(SKILLS)
    assert all(r["triggered"] and r["outcome"] == "kept" and r["child_task_id"].endswith("-i1") for r in rounds)
    assert all("no offline kit" in r["reason"] for r in rounds)
    curve = lake.query("SELECT * FROM hardening_curve WHERE domain = '*' ORDER BY iteration")
    assert curve.get_column("iteration").to_list() == [0, 1]
    assert curve.get_column("full_credit_rate").to_list() == [1.0, 1.0]


def test_sft_files_validate_and_an_example_traces_back_to_its_skill(ran: tuple[Home, Lake]) -> None:
    home, lake = ran
    lines = (home.root / "exports" / "sft" / "sft.jsonl").read_text().splitlines()
    assert len(lines) == 2 * len(SKILLS) * 2
    example = json.loads(lines[0])
    assert example["messages"][0]["role"] in ("system", "user")
    calls = [c for m in example["messages"] for c in m.get("tool_calls", [])]
    assert calls and all(isinstance(c["function"]["arguments"], str) for c in calls)
    parquet = pl.read_parquet(home.root / "exports" / "sft" / "sft.parquet")
    assert parquet.height == len(lines) and {"messages", "tools", "skill_id", "task_digest"} <= set(parquet.columns)
    traced = lake.query("SELECT skill_path, curated, task_id, reward FROM lineage WHERE example_id = $id",
                        {"id": example["metadata"]["example_id"]}).to_dicts()  # fmt: skip
    assert len(traced) == 1 and traced[0]["skill_path"] in SKILLS and traced[0]["curated"]


def test_the_task_set_statistics_stand_beside_the_papers(ran: tuple[Home, Lake]) -> None:
    _, lake = ran
    stats = {row["statistic"]: row for row in lake.query("SELECT * FROM task_set_stats").to_dicts()}
    assert list(stats) == ["tasks", "domains", "initial_workspace_files", "largest_domain_tasks", "skill_files",
                           "languages", "programs", "ecosystems", "dependencies", "cli_tools"]  # fmt: skip
    assert stats["tasks"]["value"] == len(SKILLS) and stats["tasks"]["paper_value"] == 2963
    files = lake.query("SELECT sum(workspace_files) FROM accepted_tasks WHERE iteration = 0").item()
    assert stats["initial_workspace_files"]["value"] == files > 0
    skill_files = lake.query("SELECT count(*) FROM skill_files WHERE skill_path IN "
                             "(SELECT skill_path FROM accepted_tasks WHERE iteration = 0)").item()  # fmt: skip
    assert stats["skill_files"]["value"] == skill_files > 0
    assert stats["largest_domain_tasks"]["note"] in lake.query("SELECT domain FROM accepted_tasks").to_series()


def test_the_run_writes_the_rl_set(ran: tuple[Home, Lake]) -> None:
    home, lake = ran
    out = home.root / "exports" / "rl"
    accepted = set(lake.query("SELECT DISTINCT task_id FROM accepted_tasks").to_series().to_list())
    versions = lake.query("SELECT count(DISTINCT task_digest) FROM accepted_tasks").item()
    folders = list((out / "tasks").iterdir())
    assert len(folders) == versions  # one folder per task version, listing every id it had
    listed = [tomllib.loads((f / "task.toml").read_text())["metadata"]["skill2env"]["export"] for f in folders]
    assert {task_id for record in listed for task_id in record["task_ids"]} == accepted
    rates = pl.read_parquet(out / "item_pass_rates.parquet")
    assert set(rates.get_column("task_id").to_list()) == accepted
    assert rates.group_by("task_id", "policy").agg(pl.col("rl_weight").sum()).get_column("rl_weight").round(
        6
    ).to_list() == [1.0] * len(accepted)

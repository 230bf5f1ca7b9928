"""`rollout_flags`: written with the rollouts, a flagged rollout never an SFT candidate, marked in the RL export."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import polars as pl
from click.testing import CliRunner
from export_lake import EXPORTED_SFT, build_export_lake
from harbor_tasks import CSV_AGGREGATION, fixture_task
from lake_backends import LakeMaker, raw_connection
from rollout_lake import open_attempts

from skill2env.agent.flags import ROLLOUT_FLAGS_SCHEMA, flags_frame
from skill2env.agent.partition import roll_out
from skill2env.agent.rollout import AttemptSpec, TaskRef
from skill2env.agent.trajectory import StepToolCall, Trajectory
from skill2env.cli import main
from skill2env.exports.rl import export_rl
from skill2env.home import Home
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.tasks.store import TaskStore

HACKED = "csv-aggregation-i1-a2"
"""A full-credit attempt of a sound task: an SFT example, until its trajectory is flagged."""


def trajectory(rollout_id: str, task_id: str, iteration: int, attempt: int, *commands: str) -> Trajectory:
    t = Trajectory(rollout_id=rollout_id, group_id="g", run_id="run", task_id=task_id, task_name=CSV_AGGREGATION,
                   domain="data-analysis", iteration=iteration, policy="solver", model="m", attempt=attempt,
                   backend="bwrap", status="completed")  # fmt: skip
    t.add_step("user", "Aggregate sales.csv into output/summary.json.")
    for n, command in enumerate(commands):
        call = StepToolCall(tool_call_id=f"c{n}", function_name="bash", arguments={"command": command})
        t.add_step("agent", "", tool_calls=[call])
    return t


def test_rollout_flags_answers_on_a_fresh_lake(make_lake: LakeMaker, tmp_path: Path) -> None:
    home = make_lake.home(tmp_path / "home")
    lake_of(home).ensure_schema()

    result = CliRunner().invoke(main, ["sql", "select * from rollout_flags", "--home", str(home.root),
                                       "--format", "csv"])  # fmt: skip

    assert result.exit_code == 0, result.output
    assert set(ROLLOUT_FLAGS_SCHEMA.names()) <= set(result.output.strip().split(","))


def test_a_flagged_full_credit_rollout_is_no_sft_candidate_and_is_marked_for_rl(
    make_lake: LakeMaker, tmp_path: Path
) -> None:
    home = make_lake.home(tmp_path / "home")
    lake = build_export_lake(home)
    hacked = trajectory(HACKED, "csv-aggregation-i1", 1, 2, "ls", "cat /tests/rubric.json", "echo 1 > reward.txt")
    honest = trajectory("csv-aggregation-i1-a1", "csv-aggregation-i1", 1, 1, "python3 solve.py > output/a.json")
    flags = flags_frame([hacked, honest])
    lake.write([TableWrite("rollout_flags", flags, "data-analysis@i1")], run_id="flags", code_version="test")

    assert lake.query("SELECT rollout_id, step_id, rule, severity FROM rollout_flags ORDER BY step_id").rows() == [
        (HACKED, 3, "verifier_path", "high"),
        (HACKED, 4, "reward_file", "high"),
    ]
    candidates = lake.query(load_sql("queries/sft_candidates"), {"min_reward": 0.9})
    assert sorted(candidates.get_column("rollout_id")) == sorted(set(EXPORTED_SFT) - {HACKED})

    marks = lake.query(load_sql("queries/rl_rollouts"), {"policy": None})
    row = marks.filter(pl.col("rollout_id") == HACKED).row(0, named=True)
    assert (row["reward"], row["flagged"], row["flag_rules"], row["flag_severity"], row["flag_steps"]) == (
        1.0, True, "reward_file,verifier_path", "high", "3,4"
    )  # fmt: skip
    assert marks.filter(pl.col("flagged")).get_column("rollout_id").to_list() == [HACKED]

    exported = export_rl(lake, TaskStore.of(home), tmp_path / "rl")
    with exported.rollouts_csv.open() as handle:
        by_id = {r["rollout_id"]: r for r in csv.DictReader(handle)}
    assert by_id[HACKED]["flagged"] == "true" and by_id[HACKED]["flag_rules"] == "reward_file,verifier_path"
    assert by_id["csv-aggregation-i1-a1"]["flagged"] == "false"
    assert set(by_id) == {"csv-aggregation-i0-a1", "csv-aggregation-i0-a2", "csv-aggregation-i0-a3",
                          "csv-aggregation-i1-a1", HACKED}  # fmt: skip
    rates = pl.read_parquet(exported.parquet)
    assert rates.select("task_id", "item_id", "flagged_attempts").rows() == [
        ("csv-aggregation-i0", "a", 0),
        ("csv-aggregation-i0", "b", 0),
        ("csv-aggregation-i1", "a", 1),
        ("csv-aggregation-i1", "b", 1),
    ]


def test_a_lake_made_before_flags_existed_gains_the_table_on_its_next_write(
    make_lake: LakeMaker, tmp_path: Path
) -> None:
    lake = make_lake(tmp_path / "lake.duckdb")
    lake.ensure_schema()
    with raw_connection(lake) as con:
        con.execute("DROP VIEW rollout_flags")
        con.execute("DROP TABLE rollout_flags_versions")
        con.execute("UPDATE lake_schema SET digest = 'before flags'")
    flags = flags_frame([trajectory("r1", "t-i0", 0, 1, "cat /solution/solve.sh")])

    lake.write([TableWrite("rollout_flags", flags, "d")], run_id="r", code_version="test")

    assert lake.query("SELECT rollout_id, rule FROM rollout_flags").rows() == [("r1", "verifier_path")]


class _ScriptedRunner:
    """Stands in for a RolloutRunner: hands back prepared trajectories, one per attempt spec."""

    backend = "bwrap"

    def __init__(self, commands: Sequence[str]) -> None:
        self.commands = commands

    def run_all(self, specs: Sequence[AttemptSpec]) -> list[Trajectory]:
        return [
            trajectory(
                f"{spec.task_id}-a{spec.attempt}",
                spec.task_id,
                0,
                spec.attempt,
                self.commands[(spec.attempt - 1) % len(self.commands)],
            )
            for spec in specs
        ]


def test_roll_out_writes_the_flags_in_the_same_write_as_the_rollouts(lake: Lake, tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    ref = TaskRef(fixture_task(CSV_AGGREGATION), "csv-aggregation-i0", "data-analysis", 0)
    runner = _ScriptedRunner(["python3 solve.py", "rm -f sales.csv && echo '{\"total\": 1}' > output/summary.json"])

    outcome = roll_out(open_attempts(lake), home, "data-analysis", [ref], runner, attempts=2,  # type: ignore[arg-type]
                       partition="data-analysis@i0")  # fmt: skip
    lake.write(outcome.writes, run_id="run", code_version="test")

    assert lake.query("SELECT rollout_id, step_id, rule FROM rollout_flags").rows() == [
        ("csv-aggregation-i0-a2", 2, "input_sabotage")  # sales.csv is an input of the task
    ]
    written = lake.query("SELECT DISTINCT materialized_at FROM materializations "
                         "WHERE table_name IN ('rollouts', 'trajectory_steps', 'rollout_flags')")  # fmt: skip
    assert written.height == 1  # one transaction

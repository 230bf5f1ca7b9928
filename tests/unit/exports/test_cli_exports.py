"""`skill2env export sft`, `skill2env export rl` and `skill2env report` on a small hand-built lake."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from export_lake import EXPORTED_SFT, build_export_lake
from harbor_tasks import CSV_AGGREGATION, fixture_task, tree

from skill2env.exports.chat import ChatExample
from skill2env.exports.cli import report_command
from skill2env.exports.sft import LINEAGE_COLUMNS, SFT_EXAMPLES_SCHEMA
from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.tasks.cli import export_group

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    built = Home(tmp_path / "home")
    build_export_lake(built)
    return built


def invoke(command: object, *args: str | Path) -> str:
    result = CliRunner().invoke(command, [str(a) for a in args], catch_exceptions=False)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())  # rich wraps long lines


def test_sft_jsonl_lines_load_validate_and_carry_their_lineage(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    output = invoke(export_group, "sft", "--out", out, "--home", home.root)

    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["metadata"]["rollout_id"] for line in lines] == list(EXPORTED_SFT)
    assert "Wrote 3 SFT example(s)" in output
    for line in lines:
        ChatExample.model_validate({"messages": line["messages"], "tools": line["tools"]})
        assert set(line) == {"messages", "tools", "metadata"} and set(line["metadata"]) == set(LINEAGE_COLUMNS)
        calls = [c for m in line["messages"] for c in m.get("tool_calls", [])]
        assert calls and all(isinstance(c["function"]["arguments"], str) for c in calls)
        assert line["metadata"]["reward"] > 0.9 and line["metadata"]["skill_id"] == f"skill-{CSV_AGGREGATION}"


def test_sft_leaves_out_infra_errors_defect_flagged_tasks_and_their_carried_copies(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "sft.jsonl"
    invoke(export_group, "sft", "--out", out, "--home", home.root, "--min-reward", "0.5")

    ids = {json.loads(line)["metadata"]["rollout_id"] for line in out.read_text().splitlines()}
    assert ids == {*EXPORTED_SFT, "csv-aggregation-i0-a2"}  # reward 0.7 now qualifies
    assert not any(i.startswith("log-triage") for i in ids)  # i0 flagged by hardening, i1 the same content
    assert not any(i.startswith("sales-summary") for i in ids)  # i0 in task_defects, i1 the same content
    assert "csv-aggregation-i0-a3" not in ids  # infrastructure error


def test_sft_parquet_loads_with_polars(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "sft.parquet"
    invoke(export_group, "sft", "--out", out, "--home", home.root, "--format", "parquet")

    frame = pl.read_parquet(out)
    assert frame.columns == [*LINEAGE_COLUMNS, "messages", "tools"]
    assert frame.get_column("rollout_id").to_list() == list(EXPORTED_SFT)
    assert frame.schema["messages"] == pl.String and frame.schema["tools"] == pl.String
    for row in frame.iter_rows(named=True):
        ChatExample.model_validate({"messages": json.loads(row["messages"]), "tools": json.loads(row["tools"])})


def test_sft_writes_nothing_when_an_example_does_not_validate(home: Home, tmp_path: Path) -> None:
    bad = {"example_id": "bad", "rollout_id": "csv-aggregation-i1-a1", "task_id": "csv-aggregation-i1",
           "iteration": 1, "domain": "data-analysis", "policy": "solver", "reward": 1.0,
           "messages": json.dumps([{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "x",
                                                                         "content": "?"}]),
           "tools": "[]"}  # fmt: skip
    lake = Lake(home.lake_path)
    lake.write([TableWrite("sft_examples", pl.DataFrame([bad], schema=SFT_EXAMPLES_SCHEMA), "bad")], run_id="r",
               code_version="test")  # fmt: skip
    out = tmp_path / "sft.jsonl"

    result = CliRunner().invoke(export_group, ["sft", "--out", str(out), "--home", str(home.root)])

    assert result.exit_code == 1 and "does not validate" in result.output
    assert not out.exists() and list(tmp_path.glob(".sft.jsonl*")) == []


def test_exports_refuse_a_home_without_a_lake(tmp_path: Path) -> None:
    result = CliRunner().invoke(export_group, ["sft", "--out", str(tmp_path / "x.jsonl"), "--home", str(tmp_path)])
    assert result.exit_code == 2 and "no lake" in result.output
    assert not (tmp_path / "lake.duckdb").exists()


def test_rl_copies_accepted_sound_tasks_and_writes_pass_rates(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "rl"
    output = invoke(export_group, "rl", "--out", out, "--home", home.root)

    copied = sorted(p.name for p in (out / "tasks").iterdir())
    # Not defect-flagged, not rejected; i1 carries i0 unchanged (one digest): one task version, one folder.
    assert copied == ["csv-aggregation-i0"]
    assert tree(out / "tasks" / "csv-aggregation-i0") == tree(fixture_task(CSV_AGGREGATION).root)
    rates = pl.read_parquet(out / "item_pass_rates.parquet")
    assert rates.select("task_id", "item_id", "attempts", "passes", "pass_rate").rows() == [
        ("csv-aggregation-i0", "a", 2, 2, 1.0),  # the attempt with an infrastructure error does not count
        ("csv-aggregation-i0", "b", 2, 1, 0.5),
        ("csv-aggregation-i1", "a", 2, 2, 1.0),
        ("csv-aggregation-i1", "b", 2, 2, 1.0),
    ]
    # w' ∝ w · (1 − p + 0.1): a 0.7 · 0.1 = 0.07, b 0.3 · 0.6 = 0.18 → 0.28, 0.72; equal pass rates keep w.
    assert rates.get_column("rl_weight").round(6).to_list() == [0.28, 0.72, 0.7, 0.3]
    assert rates.group_by("task_id").agg(pl.col("rl_weight").sum()).get_column("rl_weight").round(9).to_list() == [
        1.0,
        1.0,
    ]
    with (out / "item_pass_rates.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == rates.height and rows[0]["task_digest"] == rates.item(0, "task_digest")
    assert "Exported 1 task version(s)" in output and "pass rates of 2 task id(s) (4 items)" in output


def test_rl_again_rewrites_nothing_and_filters_by_policy(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "rl"
    invoke(export_group, "rl", "--out", out, "--home", home.root)
    output = invoke(export_group, "rl", "--out", out, "--home", home.root, "--policy", "naive")

    assert "(0 written)" in output
    assert pl.read_parquet(out / "item_pass_rates.parquet").is_empty()


def test_report_writes_plots_and_a_markdown_summary(home: Home, tmp_path: Path) -> None:
    out = tmp_path / "report"
    invoke(report_command, "--out", out, "--home", home.root)

    for name in ("hardening_curve.png", "validation_funnel.png"):
        assert (out / name).read_bytes().startswith(PNG_MAGIC)
    text = (out / "report.md").read_text()
    for heading in ("task_stats", "validation_funnel", "hardening_curve", "llm_usage", "catalog_stats"):
        assert f"(`{heading}`)" in text
    assert "48.4 → 24.8 → 15.4 %" in text and "![Hardening curve by domain](hardening_curve.png)" in text
    # ours beside the paper: the three families are paired over iterations 0 and 1; at i0 four of the six
    # verified attempts earn full credit (the infrastructure error is not an attempt of the curve)
    assert "| 0 | 66.7 | 48.4 | 10.0 | 25.91 |" in text
    assert "| 2 |  | 15.4 |  | 38.85 |" in text
    assert "_No rows yet._" in text  # llm_usage: no model calls in this lake

"""`skill2env catalog` with its output piped (CI, `| cat`, `tee`): one plain line per stage and
partition as it starts and ends, in order, with counts and seconds; tables as CSV-like rows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from skill_trees import small_tree

pytestmark = [pytest.mark.integration]

SKILL2ENV = Path(sys.executable).parent / "skill2env"
STAMP = r"\[\s*\d+ s\] "


def test_piped_catalog_prints_a_line_per_stage_and_partition_in_order(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "skills")
    env = {**os.environ, "SKILL2ENV_HOME": str(tmp_path / "home"), "COLUMNS": "132"}
    result = subprocess.run(
        [str(SKILL2ENV), "catalog", "--skills", str(root), "--workers", "1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        check=False,
    )

    assert result.returncode == 0, result.stdout
    lines = result.stdout.splitlines()
    stages = [line for line in lines if re.match(STAMP + r"\S+: (started|finished|partition)", line)]
    events = [re.sub(STAMP, "", line) for line in stages]
    starts = [e.split(":")[0] for e in events if e.endswith(": started")]
    ends = [e.split(":")[0] for e in events if ": finished in " in e and "partition" not in e]
    assert starts == ends, result.stdout
    assert set(starts) == {"skill_catalog", "pattern_library", "curated_skills", "pattern_selections",
                           "skills_unique_keys", "curated_skills_unique_keys"}  # fmt: skip
    assert starts.index("curated_skills") < starts.index("curated_skills_unique_keys")
    assert any(
        e.endswith("(check unique_keys: passed)") and e.startswith("skills_unique_keys: finished") for e in events
    )
    assert starts.index("skill_catalog") < starts.index("curated_skills") < starts.index("pattern_selections")
    for step in starts:  # each stage ends after it starts, and says what it wrote
        begin, end = (
            events.index(f"{step}: started"),
            next(i for i, e in enumerate(events) if e.startswith(f"{step}: finished")),
        )
        assert begin < end
    assert any(
        re.fullmatch(r"skill_catalog: finished in [\d.]+ s \(skills: rows 4; skill_files: rows \d+\)", e)
        for e in events
    ), events
    partitions = [e for e in events if e.startswith("pattern_selections: partition ")]
    assert len(partitions) == 6  # three domains, each started and finished
    assert partitions[0] == "pattern_selections: partition data-analytics started (1 of 3)"
    assert re.fullmatch(r"pattern_selections: partition data-analytics finished in [\d.]+ s", partitions[1])
    # Stage lines come before the summary; tables arrive as CSV-like rows, no box drawing.
    assert lines.index(next(line for line in lines if line.startswith("Cataloged 4 skill folders"))) > lines.index(
        stages[-1]
    )
    assert "domain,found,parsed,practical,compatible,feasible,safe,curated,curated %" in lines
    assert not any(ch in result.stdout for ch in "┃│━")


@pytest.mark.bwrap
def test_piped_run_prints_every_stage_in_pipeline_order_and_records_its_iterations(tmp_path: Path) -> None:
    root = small_tree(tmp_path / "skills")
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKILL2ENV_LLM_", "SKILL2ENV_ITERATIONS"))}
    result = subprocess.run(
        [str(SKILL2ENV), "run", "--skills", str(root), "--iterations", "1", "--attempts", "1", "--workers", "1",
         "--backend", "bwrap"],
        env={**env, "SKILL2ENV_HOME": str(home)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=1200,
        check=False,
    )  # fmt: skip

    assert result.returncode == 0, result.stdout
    events = [re.sub(STAMP, "", line) for line in result.stdout.splitlines() if re.match(STAMP, line)]
    finished = [e.split(":")[0] for e in events if re.match(r"\S+: finished in ", e)]
    pipeline = ["skill_catalog", "curated_skills", "pattern_selections", "task_authoring",
                "iteration_0__validations", "iteration_0_rollouts", "iteration_0__failure_classifications",
                "iteration_0__hardening", "iteration_1__validations", "iteration_1_rollouts",
                "iteration_1__failure_classifications", "sft_trajectories"]  # fmt: skip
    assert [step for step in finished if step in pipeline] == pipeline, events
    assert "iteration_0__validations_accepted_tasks_passed_every_gate" in finished
    assert "Pipeline finished" in result.stdout.split(events[-1])[-1]
    assert (home / "pipeline.toml").read_text().strip().endswith("iterations = 1")

"""Materialize `blueprints` + `tasks` through Dagster on a lake seeded with skills and pattern selections."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from rows import skill_row, skills_frame
from task_samples import AUTHOR, DOMAIN, make_skill_dir

from assets.partitions import DOMAIN_PARTITIONS_NAME
from assets.tasks import task_authoring
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.lake.lake import Lake, TableWrite
from skill2env.patterns.tables import PATTERN_SELECTIONS_SCHEMA
from skill2env.tasks.authoring import NO_AUTHOR_REASON
from skill2env.tasks.harbor import task_digest

SKILL = "office/docling"


def _selection(rank: int, pattern: str) -> dict[str, object]:
    return {"skill_id": f"id-{SKILL}", "path": SKILL, "domain": DOMAIN, "status": "selected", "rank": rank,
            "pattern_id": pattern, "capability": "environment_understanding", "score": 2.0, "rationale": "fits",
            "reason": None, "focus": ["documents"], "skill_traits": ["documents"], "candidates": 9,
            "chooser": "rules", "notes": [], "pool_digest": "p"}  # fmt: skip


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    lake = Lake(home / "lake.duckdb")
    skills = skills_frame(skill_row(SKILL, domain=DOMAIN), skill_row("office/other", domain=DOMAIN))
    selections = pl.DataFrame([_selection(1, "source_arithmetic_error"), _selection(2, "distributed_evidence")],
                              schema=PATTERN_SELECTIONS_SCHEMA)  # fmt: skip
    lake.write([TableWrite("skills", skills), TableWrite("pattern_selections", selections, DOMAIN)], run_id="seed",
               code_version="t")  # fmt: skip
    return home


def _materialize(home: Path, **config: str) -> dg.ExecuteInProcessResult:
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(DOMAIN_PARTITIONS_NAME, [DOMAIN])
    result = dg.materialize(
        [task_authoring],
        instance=instance,
        partition_key=DOMAIN,
        resources={"lake": LakeResource(home=str(home)), "llm": LlmResource(home=str(home))},
        run_config={"ops": {"task_authoring": {"config": config}}},
    )
    assert result.success
    return result


def test_without_an_author_selected_skills_are_recorded_as_skipped(home: Path) -> None:
    result = _materialize(home, author="none")
    lake = Lake(home / "lake.duckdb")

    rows = lake.query("SELECT skill_path, status, reasons, patterns, task_id FROM tasks")
    assert rows.rows() == [(SKILL, "skipped", [NO_AUTHOR_REASON],
                            ["source_arithmetic_error", "distributed_evidence"], None)]  # fmt: skip
    assert lake.query("SELECT count(*) FROM blueprints").item() == 0
    keys = {event.asset_key.to_user_string() for event in result.get_asset_materialization_events()}
    assert keys == {"blueprints", "tasks"}


def test_an_author_fills_blueprints_tasks_and_the_store(home: Path, tmp_path: Path) -> None:
    skills_root = tmp_path / "skills"
    make_skill_dir(skills_root)
    _materialize(home, author="task_samples:SampleAuthor", skills_root=str(skills_root))
    _materialize(home, author="task_samples:SampleAuthor", skills_root=str(skills_root))  # again: no duplicates
    lake = Lake(home / "lake.duckdb")

    task = lake.query("SELECT * FROM tasks").row(0, named=True)
    assert lake.query("SELECT count(*) FROM tasks").item() == 1
    assert (task["status"], task["task_id"], task["author"], task["domain"]) == ("built", "billing-docling-i0",
                                                                                  AUTHOR, DOMAIN)  # fmt: skip
    assert task_digest(home / task["store_path"]) == task["task_digest"]
    assert (home / task["store_path"] / "environment" / "skill" / "SKILL.md").is_file()
    blueprint = lake.query("SELECT task_name, blueprint_digest, skill_id FROM blueprints").row(0)
    assert blueprint == ("billing-docling", task["blueprint_digest"], f"id-{SKILL}")
    assert lake.query("SELECT count(*) FROM task_files WHERE area = 'workspace'").item() == 9
    assert lake.query("SELECT values_checked, values_leaked FROM leak_report WHERE domain = '*'").row(0) == (6, 0)

"""Materialize `blueprints` + `tasks` with the model author on the scripted server, loaded the way
`skill2env run` loads it: the task is built, its model calls land in `llm_calls`, a dead endpoint
is an error row."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import polars as pl
import pytest
from llm_server import ScriptedServer, json_answer, status
from model_author_script import (
    DOMAIN,
    PATTERNS,
    SKILL_PATH,
    blueprint_answer,
    build_answer,
    log_skill_row,
    make_log_skill,
    selection_rows,
)
from rows import skills_frame

from assets.partitions import DOMAIN_PARTITIONS_NAME
from assets.tasks import task_authoring
from resources.lake import LakeResource
from resources.llm import LlmResource
from skill2env.lake.lake import Lake, TableWrite
from skill2env.patterns.tables import PATTERN_SELECTIONS_SCHEMA
from skill2env.tasks.harbor import task_digest

AUTHOR = "model"


@pytest.fixture
def home(tmp_path: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    selections = [row | {"status": "selected", "score": 1.0, "reason": None, "focus": ["logs"],
                         "skill_traits": ["logs"], "candidates": 9, "chooser": "rules", "notes": [],
                         "pool_digest": "p", "capability": "environment_understanding"}
                  for row in selection_rows()]  # fmt: skip
    Lake(home / "lake.duckdb").write(
        [TableWrite("skills", skills_frame(log_skill_row())),
         TableWrite("pattern_selections", pl.DataFrame(selections, schema=PATTERN_SELECTIONS_SCHEMA), DOMAIN)],
        run_id="seed", code_version="t",
    )  # fmt: skip
    environment = {"SKILL2ENV_HOME": str(home), "SKILL2ENV_LLM_BASE_URL": server.base_url,
                   "SKILL2ENV_LLM_MODEL": "scripted-model", "SKILL2ENV_LLM_CACHE": "off",
                   "SKILL2ENV_LLM_BACKOFF_SECONDS": "0.001", "SKILL2ENV_LLM_MAX_ATTEMPTS": "2"}  # fmt: skip
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return home


def _materialize(home: Path, skills_root: Path) -> None:
    instance = dg.DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(DOMAIN_PARTITIONS_NAME, [DOMAIN])
    result = dg.materialize(
        [task_authoring],
        instance=instance,
        partition_key=DOMAIN,
        resources={"lake": LakeResource(home=str(home)), "llm": LlmResource(home=str(home))},
        run_config={"ops": {"task_authoring": {"config": {"author": AUTHOR, "skills_root": str(skills_root)}}}},
    )
    assert result.success


def test_the_model_author_fills_blueprints_tasks_and_llm_calls(
    home: Path, server: ScriptedServer, tmp_path: Path
) -> None:
    server.script(json_answer(blueprint_answer()), json_answer(build_answer()))
    skills_root = tmp_path / "skills"
    make_log_skill(skills_root)
    _materialize(home, skills_root)
    lake = Lake(home / "lake.duckdb")

    task = lake.query("SELECT * FROM tasks").row(0, named=True)
    assert (task["status"], task["author"], task["skill_path"], task["reasons"]) == ("built", "model:scripted-model",
                                                                                      SKILL_PATH, [])  # fmt: skip
    assert task["patterns"] == list(PATTERNS) and task_digest(home / task["store_path"]) == task["task_digest"]
    assert (home / task["store_path"] / "environment" / "skill" / "SKILL.md").is_file()
    blueprint = lake.query("SELECT task_name, blueprint_digest, author FROM blueprints").row(0)
    assert blueprint == (task["task_name"], task["blueprint_digest"], "model:scripted-model")
    assert lake.query("SELECT count(*) FROM task_files WHERE area = 'workspace'").item() == 5
    assert lake.query("SELECT values_checked, values_leaked FROM leak_report WHERE domain = '*'").row(0) == (3, 0)
    calls = lake.query("SELECT role, operation, status, model FROM llm_calls").rows()
    assert calls == [("author", "structured", "ok", "scripted-model")] * 2


def test_a_dead_endpoint_leaves_an_error_row_and_the_run_succeeds(
    home: Path, server: ScriptedServer, tmp_path: Path
) -> None:
    server.script(*[status(503, "overloaded")] * 2)
    skills_root = tmp_path / "skills"
    make_log_skill(skills_root)
    _materialize(home, skills_root)
    lake = Lake(home / "lake.duckdb")

    status_, reasons = lake.query("SELECT status, reasons FROM tasks").row(0)
    assert status_ == "error" and "ModelUnavailable" in reasons[0]
    assert lake.query("SELECT error_class FROM llm_calls").rows() == [("ModelUnavailable",)]

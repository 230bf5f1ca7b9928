"""The offline baseline of a model-authored task: the naive policy runs the shallow solver, which
writes every deliverable in its format (no analysis). On the checkout-incident task, whose rubric
checks one format detail, it earns that and nothing else: above 0, below full credit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from harbor_tasks import require_backend
from llm_fixtures import ClientFactory
from llm_server import ScriptedServer, json_answer
from model_author_script import (
    SubprocessRunner,
    blueprint_answer_with_format_item,
    build_answer,
    log_skill_row,
    make_log_skill,
    selection_rows,
)

from skill2env.agent.policies import NAIVE, pipeline_policy
from skill2env.agent.rollout import RolloutRunner, TaskRef, attempt_specs
from skill2env.agent.shallow import NOT_ANALYSED, shallow_deliverables
from skill2env.home import Home
from skill2env.llm.cache import CacheMode
from skill2env.rubric.evaluate import verify_workspace
from skill2env.rubric.models import Rubric
from skill2env.sandbox.backends import make_sandbox
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.build import author_tasks
from skill2env.tasks.model_author import ModelAuthor
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]

SUMMARY_KEYS = ["first_error_utc", "api_error_count", "suspect_service", "suspect_version"]


@pytest.fixture
def task(server: ScriptedServer, make_client: ClientFactory, tmp_path: Path) -> TaskDir:
    """The checkout-incident task as the scripted model authors it (with the format item), stored."""
    server.script(json_answer(blueprint_answer_with_format_item()), json_answer(build_answer()))
    author = ModelAuthor(make_client(cache=CacheMode.off), runner=SubprocessRunner())
    store, skills_root = TaskStore(tmp_path / "home"), tmp_path / "skills"
    make_log_skill(skills_root)
    (record,) = author_tasks([log_skill_row()], selection_rows(), author, skills_root=skills_root, store=store).tasks
    assert record.status == TaskStatus.built, record.reasons
    return TaskDir(store.resolve(record.store_path or ""))


def test_the_shallow_solver_plans_each_deliverable_in_its_format(task: TaskDir) -> None:
    files = {f.path: f.content for f in shallow_deliverables(task)}
    assert sorted(files) == ["report/errors_by_hour.csv", "report/incident.md", "report/summary.json"]
    summary = json.loads(files["report/summary.json"])
    assert list(summary) == SUMMARY_KEYS  # the keys the checks address, in their order …
    assert summary == {"first_error_utc": "", "api_error_count": 0, "suspect_service": "", "suspect_version": ""}
    assert files["report/errors_by_hour.csv"] == "hour_utc,errors\n"  # … the header, no rows
    assert files["report/incident.md"].startswith("# Incident\n") and NOT_ANALYSED in files["report/incident.md"]


def test_the_naive_policy_on_a_model_task_writes_the_deliverables_and_earns_only_format(
    task: TaskDir, tmp_path: Path
) -> None:
    require_backend("bwrap")
    home = Home(tmp_path / "home")
    runner = RolloutRunner(pipeline_policy(NAIVE, None), backend="bwrap", run_id="shallow", home=home)
    (done,) = runner.run_all(attempt_specs([TaskRef(task, "checkout-i0", "devops")], 1))

    assert (done.status, done.error) == ("completed", None)
    calls = [call.function_name for step in done.steps for call in step.tool_calls]
    assert calls == ["list_dir", "write_file", "write_file", "write_file", "finish"]
    workspace = home.root / str(done.workspace_path)
    assert (workspace / "report" / "errors_by_hour.csv").read_text() == "hour_utc,errors\n"
    assert list(json.loads((workspace / "report" / "summary.json").read_text())) == SUMMARY_KEYS
    assert (workspace / "report" / "incident.md").is_file()

    rubric = Rubric.model_validate_json((task.tests_dir / "rubric.json").read_text())
    result = verify_workspace(workspace, task, rubric, make_sandbox("bwrap", SandboxLimits.for_task(task)))
    assert result.status == "scored", result.error
    passed = sorted(r.item_id for r in result.items if r.status.value == "passed")
    assert passed == ["hourly-header"]  # the header it wrote; no value it would have had to find
    assert result.reward is not None and 0.0 < result.reward < 1.0

"""Harbor import / export: the Skill2Env authors' eval_spec tasks, plain Harbor tasks, broken directories,
and export → import → export byte stability through the CLI."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from harbor_tasks import HARBOR_FIXTURES, tree
from task_samples import DOMAIN, billing_draft, make_skill_dir

from skill2env.lake.lake import Lake, TableWrite
from skill2env.rubric.models import TASK_SCRIPT_CHECK, Method, Rubric
from skill2env.tasks.build import build_task
from skill2env.tasks.cli import export_group, import_group
from skill2env.tasks.exchange import import_tree, load_task
from skill2env.tasks.export import ExportError, export_tasks
from skill2env.tasks.harbor import task_digest, write_task_dir
from skill2env.tasks.records import TaskStatus
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame

EVAL_SPEC_FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "harbor_eval_spec"


def test_eval_spec_tasks_import_with_their_rubric(tmp_path: Path) -> None:
    records = {r.task_id: r for r in import_tree(EVAL_SPEC_FIXTURES, TaskStore(tmp_path))}
    assert set(records) == {"expense-policy-audit", "changelog-digest"}
    audit = records["expense-policy-audit"]

    assert audit.status == TaskStatus.built
    assert [reason.split(",")[0] for reason in audit.reasons] == [
        "environment/Dockerfile is FROM python:3.11-slim",
        "task.toml [verifier.env] names JUDGE_API_KEY",
    ]
    assert (audit.environment, audit.domain, audit.author) == (
        "dockerfile",
        "office-documents",
        "import:Skill2Env authors",
    )
    assert (audit.workspace_files, audit.formats) == (5, ["csv", "md", "txt"])
    assert audit.source == "import:harbor_eval_spec"
    assert audit.task_digest == task_digest(EVAL_SPEC_FIXTURES / "expense-policy-audit")
    assert audit.store_path and (tmp_path / audit.store_path / "tests" / "verify.py").is_file()
    assert audit.rubric is not None
    rubric = Rubric.model_validate_json(audit.rubric)
    assert (rubric.pass_threshold, rubric.summary.startswith("Two deterministic")) == (0.7, True)
    c1, c2, c3 = rubric.items
    assert c1.check is not None and c1.check.check == TASK_SCRIPT_CHECK
    assert c1.check.params == {"script": "tests/verify.py", "item": "C1"}
    assert c1.target_files == ["output/flagged.csv"] and c2.weight == 0.3
    assert c3.method == Method.llm_judge and c3.judge_instruction and c3.check is None
    digest = records["changelog-digest"]
    assert digest.environment == "setup_script" and digest.domain == "software-engineering"


def test_plain_harbor_tasks_import_without_a_rubric(tmp_path: Path) -> None:
    records = import_tree(HARBOR_FIXTURES, TaskStore(tmp_path))
    assert [(r.task_id, r.status, r.rubric, r.environment) for r in records] == [
        ("csv-aggregation", TaskStatus.built, None, "dockerfile"),
        ("log-triage", TaskStatus.built, None, "dockerfile"),
    ]


def _copy(name: str, root: Path, new: str | None = None) -> Path:
    target = root / (new or name)
    shutil.copytree(EVAL_SPEC_FIXTURES / name, target, symlinks=True)
    return target


def _spec(task: Path) -> dict:
    return json.loads((task / "tests" / "eval_spec.json").read_text())


def test_broken_directories_become_error_rows_with_a_reason(tmp_path: Path) -> None:
    root = tmp_path / "incoming"
    root.mkdir()
    _copy("expense-policy-audit", root, "good")
    (_copy("expense-policy-audit", root, "no-toml") / "task.toml").unlink()
    (_copy("expense-policy-audit", root, "bad-toml") / "task.toml").write_text("[agent\ntimeout_sec = 1\n")
    (_copy("expense-policy-audit", root, "bad-field") / "task.toml").write_text('[environment]\ncpus = "many"\n')
    task = _copy("expense-policy-audit", root, "bad-weights")
    spec = _spec(task)
    spec["items"][0]["weight"] = 0.3
    (task / "tests" / "eval_spec.json").write_text(json.dumps(spec))
    task = _copy("expense-policy-audit", root, "escaping-glob")
    spec = _spec(task)
    spec["items"][0]["target_globs"] = ["../../etc/passwd"]
    (task / "tests" / "eval_spec.json").write_text(json.dumps(spec))
    (_copy("expense-policy-audit", root, "escaping-link") / "environment" / "workspace" / "secrets").symlink_to(
        "/etc/hostname"
    )
    (_copy("expense-policy-audit", root, "folder-link") / "environment" / "workspace" / "up").symlink_to("..")
    os.mkfifo(_copy("expense-policy-audit", root, "fifo") / "environment" / "workspace" / "pipe")
    (_copy("expense-policy-audit", root, "dangling") / "tests" / "data.csv").symlink_to("missing.csv")
    (_copy("expense-policy-audit", root, "latin1") / "instruction.md").write_bytes("Prüfe".encode("latin-1"))
    (_copy("expense-policy-audit", root, "no-verify") / "tests" / "verify.py").unlink()
    (_copy("expense-policy-audit", root, "no-env") / "environment" / "Dockerfile").unlink()
    (_copy("expense-policy-audit", root, "bad-json") / "tests" / "eval_spec.json").write_text("{items: []")
    (root / "stray-folder").mkdir()

    store = TaskStore(tmp_path / "home")
    records = {r.task_id: r for r in import_tree(root, store)}
    reasons = {task_id: r.reasons[0] if r.reasons else "" for task_id, r in records.items()}
    expected = {
        "no-toml": "missing task.toml",
        "bad-toml": "task.toml is not valid TOML",
        "bad-field": "environment.cpus",
        "bad-weights": "weights sum to 0.9, not 1",
        "escaping-glob": "leaves the workspace",
        "escaping-link": "environment/workspace/secrets links outside the task directory",
        "folder-link": "links to a folder",
        "fifo": "environment/workspace/pipe is not a regular file",
        "dangling": "tests/data.csv is not a regular file (or its link is broken)",
        "latin1": "instruction.md is not UTF-8",
        "no-verify": "no tests/verify.py",
        "no-env": "no environment/Dockerfile, environment/setup.sh or [environment].docker_image",
        "bad-json": "tests/eval_spec.json is not valid JSON",
        "stray-folder": "missing task.toml",
    }
    assert records["good"].status == TaskStatus.built
    for task_id, fragment in expected.items():
        assert records[task_id].status == TaskStatus.error, task_id
        assert fragment in reasons[task_id], (task_id, reasons[task_id])
        assert records[task_id].store_path is None and records[task_id].files == ()
    assert len(list(store.root.iterdir())) == 1  # only the good one was stored
    frame = tasks_frame(list(records.values()))
    assert frame.filter(frame["status"] == "error").height == len(expected)


def test_a_skill2env_rubric_json_with_bad_weights_is_an_error(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "home")
    stored = store.put_draft(billing_draft(), skill_dir=None)
    task = tmp_path / "tasks" / "billing"
    shutil.copytree(stored.path, task)
    rubric = json.loads((task / "tests" / "rubric.json").read_text())
    rubric["items"][0]["weight"] = 0.5
    (task / "tests" / "rubric.json").write_text(json.dumps(rubric))
    [record] = import_tree(tmp_path / "tasks", store)
    assert record.status == TaskStatus.error and "rubric weights sum to 1.25" in record.reasons[0]


def _home_with_tasks(home: Path, skill: Path) -> None:
    """A lake holding the billing task (built by the pipeline's code) and a rejected variant."""
    store = TaskStore(home)
    built = build_task(billing_draft(), store, skill_dir=skill)
    draft = billing_draft()
    leaky = type(draft)(**{**draft.__dict__, "instruction": draft.instruction + "\nOutstanding: EUR 791.50.\n"})
    rejected = build_task(leaky, store, skill_dir=skill)
    rejected = type(rejected)(**{**rejected.__dict__, "task_id": "leaky-variant-i0"})
    assert (built.status, rejected.status) == (TaskStatus.built, TaskStatus.rejected)
    records = [built, rejected]
    Lake(home / "lake.duckdb").write(
        [
            TableWrite("blueprints", blueprints_frame([(draft.blueprint, draft.author)]), DOMAIN),
            TableWrite("tasks", tasks_frame(records), DOMAIN),
            TableWrite("task_files", task_files_frame(records), DOMAIN),
        ],
        run_id="r1",
        code_version="test",
    )


def _cli(group: object, *args: str) -> str:
    result = CliRunner().invoke(group, list(args), catch_exceptions=False)  # type: ignore[arg-type]
    assert result.exit_code == 0, result.output
    return result.output


def test_export_import_export_is_byte_stable(tmp_path: Path) -> None:
    home_a, home_b = tmp_path / "home-a", tmp_path / "home-b"
    _home_with_tasks(home_a, make_skill_dir(tmp_path / "skills"))
    _cli(import_group, "harbor", str(EVAL_SPEC_FIXTURES), "--home", str(home_a))
    first, second = tmp_path / "export-1", tmp_path / "export-2"

    _cli(export_group, "harbor", "--out", str(first), "--status", "all", "--home", str(home_a))
    _cli(import_group, "harbor", str(first), "--home", str(home_b))
    _cli(export_group, "harbor", "--out", str(second), "--status", "all", "--home", str(home_b))

    names = sorted(p.name for p in first.iterdir())
    # Foreign tasks keep their folder names; the skill2env task and its rejected variant are two versions.
    assert names[:2] == ["changelog-digest", "expense-policy-audit"]
    assert [name.rsplit("-", 1)[0] for name in names[2:]] == ["vendor-billing-reconciliation"] * 2
    assert tree(first) == tree(second)
    # The foreign tasks travel byte for byte; the skill2env task comes back as its Harbor-native export.
    columns = "task_id, task_digest, task_name, iteration, blueprint_digest, domain, patterns, environment, rubric"
    query = f"SELECT {columns} FROM tasks WHERE status IN ('built', 'rejected') ORDER BY task_id"
    rows_a = Lake(home_a / "lake.duckdb").query(query)
    rows_b = Lake(home_b / "lake.duckdb").query(query)
    assert rows_a.height == rows_b.height == 4
    assert rows_b.drop("task_digest").equals(rows_a.drop("task_digest"))
    files_b = Lake(home_b / "lake.duckdb").query("SELECT count(*) FROM task_files").item()
    assert files_b == sum(1 for _ in first.rglob("*") if _.is_file())
    # A second export over the first rewrites nothing.
    output = _cli(export_group, "harbor", "--out", str(first), "--status", "all", "--home", str(home_a))
    assert "(0 written)" in " ".join(output.split())


def test_export_filters_by_status(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _home_with_tasks(home, make_skill_dir(tmp_path / "skills"))
    _cli(export_group, "harbor", "--out", str(tmp_path / "rejected"), "--status", "rejected", "--home", str(home))
    [rejected] = (tmp_path / "rejected").iterdir()
    record = tomllib.loads((rejected / "task.toml").read_text())["metadata"]["skill2env"]["export"]
    assert record["task_ids"] == ["leaky-variant-i0"]
    _cli(export_group, "harbor", "--out", str(tmp_path / "accepted"), "--home", str(home))
    assert list((tmp_path / "accepted").iterdir()) == []  # nothing was validated


def test_export_refuses_a_store_that_changed(tmp_path: Path) -> None:
    store = TaskStore(tmp_path / "home")
    stored = store.put_draft(billing_draft(), skill_dir=None)
    (stored.path / "instruction.md").write_text("tampered\n")
    row = {"task_id": "t-i0", "task_digest": stored.digest, "store_path": stored.relative_path}
    with pytest.raises(ExportError, match="no longer holds"):
        export_tasks([row], store, tmp_path / "out")


def test_load_task_reads_a_written_task_back(tmp_path: Path) -> None:
    draft = billing_draft()
    loaded = load_task(write_task_dir(draft, tmp_path / "task", skill_dir=None).root)
    assert loaded.rubric == draft.blueprint.rubric
    assert loaded.instruction == draft.instruction
    assert (loaded.environment, loaded.config.schema_version) == ("dockerfile", "1.4")

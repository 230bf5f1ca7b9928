"""Harbor task directories into the lake: import into the store and `tasks` rows (export: `export`).

Import reads plain Harbor tasks, skill2env's own (rubric in `tests/rubric.json`, lineage in
`[metadata.skill2env]`), and the Skill2Env authors' variant (rubric in `tests/eval_spec.json`,
deterministic items scored by the task's `tests/verify.py`, environment from a Dockerfile or
`environment/setup.sh`). A directory that cannot be used becomes a row with status `error` and
the reason; what a usable one lacks (no solution, a skill folder or workspace file it names, a
test.sh calling a missing file: `authors_layout`) is recorded in its row's reasons. Import copies
bytes unchanged and export copies them back, so export → import → export gives the same bytes.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skill2env.rubric import CheckSpec, Method, Rubric
from skill2env.rubric.eval_spec import EvalSpecError, rubric_from_eval_spec
from skill2env.rubric.models import TASK_SCRIPT_CHECK
from skill2env.tasks.authors_layout import layout_gaps
from skill2env.tasks.harbor import TaskPaths
from skill2env.tasks.harbor_config import TaskConfig, unknown_keys
from skill2env.tasks.records import TaskRecord, TaskStatus, rubric_column, task_files_of, task_id_of
from skill2env.tasks.store import TaskStore

IMPORT_CODE_VERSION = "harbor-import-1"
logger = logging.getLogger(__name__)
VERIFY_SCRIPT = "tests/verify.py"


class TaskImportError(ValueError):
    """A directory is not a usable Harbor task; the message is the row's reason."""


def import_source(folder: Path) -> str:
    """The `source` (and lake partition) of one import: `import:<folder name>`."""
    return f"import:{folder.resolve().name}"


def task_dirs(folder: Path) -> list[Path]:
    """`folder` itself when it is a task directory, else its visible subdirectories, sorted."""
    if (folder / "task.toml").exists() or (folder / "instruction.md").exists():
        return [folder]
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def import_tree(folder: Path, store: TaskStore) -> list[TaskRecord]:
    """Every task directory of `folder` (or `folder` itself) as a `tasks` row, stored when usable."""
    source = import_source(folder)
    return [read_task_dir(path, store, source=source) for path in task_dirs(folder)]


def read_task_dir(root: Path, store: TaskStore, *, source: str) -> TaskRecord:
    """Read one Harbor task directory into the store; broken ones become `error` rows."""
    try:
        record = _read(root, source)
    except TaskImportError as exc:
        return TaskRecord(status=TaskStatus.error, task_id=root.name, task_name=root.name, reasons=(str(exc),),
                          source=source)  # fmt: skip
    stored = store.put_dir(root)
    return TaskRecord(**{**record, "task_digest": stored.digest, "store_path": stored.relative_path,
                         "files": task_files_of(stored.path)})  # fmt: skip


@dataclass(frozen=True)
class LoadedTask:
    """A Harbor task directory, read and checked: what running or scoring it needs."""

    paths: TaskPaths
    config: TaskConfig
    instruction: str
    environment: str
    """dockerfile | setup_script | docker_image."""
    rubric: Rubric | None
    """skill2env's tests/rubric.json, or the authors' tests/eval_spec.json; None when test.sh alone decides."""
    run_step: str | None = None
    """A multi-step task's first step, the one the project runs (`instruction`, `rubric` are its); else None."""


def load_task(root: Path) -> LoadedTask:
    """Read a task directory without copying it anywhere.

    Raises:
        TaskImportError: the directory is not a usable Harbor task (the message says why).
    """
    if not root.is_dir():
        raise TaskImportError(f"{root} is not a directory")
    check_inventory(root)
    paths = TaskPaths(root)
    config = _config(paths)
    if config.steps:
        return _load_multi_step(paths, config)
    instruction = _text(paths.instruction_path, "instruction.md")
    environment = _environment(paths, config)
    rubric = _rubric(paths)
    if not paths.test_path.is_file() and not paths.eval_spec_path.is_file():
        raise TaskImportError("no tests/test.sh (nor a tests/eval_spec.json) to verify the task with")
    return LoadedTask(paths, config, instruction, environment, rubric)


def _load_multi_step(paths: TaskPaths, config: TaskConfig) -> LoadedTask:
    """`[[steps]]`: every step has `steps/<name>/instruction.md` and a test script (its own
    `steps/<name>/tests/test.sh`, else the shared `tests/test.sh`), as Harbor requires; the first
    step's instruction and rubric are the ones the project runs."""
    steps = config.steps or []
    for step in steps:
        folder = f"steps/{step.name}"
        if not (paths.root / folder / "instruction.md").is_file():
            raise TaskImportError(f"step {step.name!r}: missing {folder}/instruction.md")
        if not (paths.root / folder / "tests" / "test.sh").is_file() and not paths.test_path.is_file():
            raise TaskImportError(f"step {step.name!r}: no {folder}/tests/test.sh (nor a shared tests/test.sh)")
    first = steps[0].name
    step_paths = TaskPaths(paths.root / "steps" / first)
    instruction = _text(step_paths.instruction_path, f"steps/{first}/instruction.md")
    environment = _environment(paths, config)
    rubric = _rubric(step_paths if step_paths.tests_dir.is_dir() else paths)
    return LoadedTask(paths, config, instruction, environment, rubric, run_step=first)


def multi_step_note(task: LoadedTask) -> str | None:
    """What the row says of a multi-step task: stored whole, only its first step run."""
    steps = task.config.steps
    if not steps:
        return None
    names = ", ".join(repr(step.name) for step in steps)
    return (f"multi-step task ({len(steps)} steps: {names}): imported and stored whole, but the gates and "
            f"rollouts run only its first step, {task.run_step!r}")  # fmt: skip


def _read(root: Path, source: str) -> dict[str, Any]:
    task = load_task(root)
    notes = [f"task.toml: unknown key {key} (ignored, as Harbor ignores it)" for key in unknown_keys(task.config)]
    if (note := multi_step_note(task)) is not None:
        logger.warning("%s: %s", root, note)
        notes.append(note)
    notes += layout_gaps(task.paths, task.instruction, task.rubric, task.config.verifier.env)
    row: dict[str, Any] = {
        "status": TaskStatus.built,
        "reasons": tuple(notes),
        "source": source,
        "environment": task.environment,
        "rubric": rubric_column(task.rubric) if task.rubric else None,
    }
    lineage = task.config.metadata.get("skill2env")
    if isinstance(lineage, Mapping) and lineage.get("task_name"):
        return row | _lineage(lineage)
    domain = task.config.metadata.get("domain") or task.config.metadata.get("category")
    return row | {"task_id": root.name, "task_name": root.name, "domain": str(domain) if domain else None,
                  "author": f"import:{_author_name(task.config)}"}  # fmt: skip


def _lineage(lineage: Mapping[str, Any]) -> dict[str, Any]:
    """The columns a skill2env task carries in `[metadata.skill2env]`."""
    iteration = lineage.get("iteration", 0)
    if not isinstance(iteration, int) or isinstance(iteration, bool) or iteration < 0:
        raise TaskImportError(f"task.toml: metadata.skill2env.iteration is {iteration!r}, not a count")
    patterns = lineage.get("patterns") or []
    exported = lineage.get("export")
    # An export names each task version by the lake ids it had: versions that share a task name and
    # iteration (a rejected variant, a re-authored task) keep distinct ids through export → import.
    ids = exported.get("task_ids") if isinstance(exported, Mapping) else None
    first_id = str(ids[0]) if isinstance(ids, list) and ids else None
    return {
        "task_id": first_id or task_id_of(str(lineage["task_name"]), iteration),
        "task_name": str(lineage["task_name"]),
        "iteration": iteration,
        "skill_id": _optional_text(lineage.get("skill_id")),
        "skill_path": _optional_text(lineage.get("skill_path")),
        "domain": _optional_text(lineage.get("domain")),
        "patterns": tuple(str(p) for p in patterns) if isinstance(patterns, list) else (),
        "blueprint_digest": _optional_text(lineage.get("blueprint_digest")),
        "author": _optional_text(lineage.get("author")),
    }


def _optional_text(value: object) -> str | None:
    return None if value is None else str(value)


def check_inventory(root: Path) -> None:
    """Every entry is a readable regular file or a folder inside `root`; links may not leave it.

    Raises:
        TaskImportError: a link escapes the directory or points at a folder, an entry is not a
            regular file, or a file cannot be read.
    """
    top = root.resolve()
    for folder, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(top):
                    raise TaskImportError(f"{relative} links outside the task directory (to {path.readlink()})")
                if target.is_dir():
                    raise TaskImportError(f"{relative} links to a folder; task directories hold files and folders")
            if name in dirs:
                continue
            if not path.is_file():
                raise TaskImportError(f"{relative} is not a regular file (or its link is broken)")
            try:
                with path.open("rb") as handle:
                    handle.read(1)
            except OSError as exc:
                raise TaskImportError(f"{relative} cannot be read: {exc.strerror or exc}") from exc


def _config(paths: TaskPaths) -> TaskConfig:
    text = _text(paths.config_path, "task.toml")
    try:
        return TaskConfig.model_validate(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise TaskImportError(f"task.toml is not valid TOML: {exc}") from exc
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise TaskImportError(f"task.toml does not match Harbor's TaskConfig: {problems}") from exc


def _text(path: Path, name: str) -> str:
    if not path.is_file():
        raise TaskImportError(f"missing {name}")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskImportError(f"{name} is not UTF-8 text: {exc}") from exc
    except OSError as exc:
        raise TaskImportError(f"{name} cannot be read: {exc}") from exc


def _environment(paths: TaskPaths, config: TaskConfig) -> str:
    if paths.dockerfile_path.is_file():
        return "dockerfile"
    if paths.setup_script_path.is_file():
        return "setup_script"
    if config.environment.docker_image:
        return "docker_image"
    raise TaskImportError("no environment/Dockerfile, environment/setup.sh or [environment].docker_image")


def _rubric(paths: TaskPaths) -> Rubric | None:
    """skill2env's `tests/rubric.json`, else the authors' `tests/eval_spec.json`, else None (test.sh decides)."""
    if paths.rubric_path.is_file():
        try:
            return Rubric.model_validate_json(_text(paths.rubric_path, "tests/rubric.json"))
        except ValidationError as exc:
            raise TaskImportError(f"tests/rubric.json is not a valid rubric: {_first_error(exc)}") from exc
    if not paths.eval_spec_path.is_file():
        return None
    try:
        spec = json.loads(_text(paths.eval_spec_path, "tests/eval_spec.json"))
        rubric = rubric_from_eval_spec(spec)
    except json.JSONDecodeError as exc:
        raise TaskImportError(f"tests/eval_spec.json is not valid JSON: {exc}") from exc
    except EvalSpecError as exc:
        raise TaskImportError(f"tests/eval_spec.json: {exc}") from exc
    for item in rubric.items:
        for glob in item.target_files:
            if ".." in posixpath.normpath(glob).split("/"):
                raise TaskImportError(
                    f"tests/eval_spec.json: item {item.id}'s target glob {glob!r} leaves the workspace"
                )
    deterministic = [item for item in rubric.items if item.method == Method.deterministic]
    if deterministic and not paths.verify_path.is_file():
        raise TaskImportError(f"tests/eval_spec.json has deterministic items but there is no {VERIFY_SCRIPT}")
    items = [
        item.model_copy(update={"check": CheckSpec(check=TASK_SCRIPT_CHECK, params={"script": VERIFY_SCRIPT,
                                                                                     "item": item.id})})
        if item.method == Method.deterministic
        else item
        for item in rubric.items
    ]  # fmt: skip
    return rubric.model_copy(update={"items": items})


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def _author_name(config: TaskConfig) -> str:
    if config.task and config.task.authors:
        return config.task.authors[0].name
    return str(config.metadata.get("author_name") or "unknown")

"""Validate the built tasks of the lake (rows of the `tasks` view) and a Harbor directory on its own."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from skill2env.rubric import Judge, Rubric
from skill2env.rubric.eval_spec import load_eval_spec
from skill2env.sandbox import BackendName
from skill2env.tasks.blueprint import Blueprint
from skill2env.validation.gates import Validation, validate_task
from skill2env.validation.red_team import RedTeam

RUBRIC_FILE = "tests/rubric.json"
EVAL_SPEC_FILE = "tests/eval_spec.json"


class NoRubricError(ValueError):
    """A task directory carries neither `tests/rubric.json` nor `tests/eval_spec.json`."""


def task_rubric(task_dir: Path) -> Rubric:
    """The task's rubric: ours (`tests/rubric.json`) or the Skill2Env authors' (`tests/eval_spec.json`)."""
    if (task_dir / RUBRIC_FILE).is_file():
        return Rubric.model_validate_json((task_dir / RUBRIC_FILE).read_text(encoding="utf-8"))
    if (task_dir / EVAL_SPEC_FILE).is_file():
        return load_eval_spec(task_dir / EVAL_SPEC_FILE)
    raise NoRubricError(f"{task_dir} has neither {RUBRIC_FILE} nor {EVAL_SPEC_FILE}")


def row_blueprint(blueprint_json: str | None) -> Blueprint | None:
    """A `tasks` row's blueprint (None: an imported task has none)."""
    return Blueprint.model_validate_json(blueprint_json) if blueprint_json else None


def validate_rows(
    rows: Sequence[Mapping[str, Any]],
    home: Path,
    *,
    backend: BackendName,
    judge: Judge | None = None,
    red_team: RedTeam | None = None,
    concurrency: int = 2,
    progress: Callable[[int], None] | None = None,
) -> list[tuple[Validation, str, int]]:
    """Every gate for each built task row (with `store_path`, `rubric`, `blueprint`), `concurrency` at a time."""

    def one(row: Mapping[str, Any]) -> tuple[Validation, str, int]:
        rubric = (
            Rubric.model_validate_json(row["rubric"]) if row.get("rubric") else task_rubric(home / row["store_path"])
        )
        validation = validate_task(row["task_id"], home / row["store_path"], rubric, backend=backend,
                                   blueprint=row_blueprint(row.get("blueprint")), judge=judge,
                                   red_team=red_team)  # fmt: skip
        return validation, row["domain"], int(row["iteration"])

    done: list[tuple[Validation, str, int]] = []
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="validate") as pool:
        for result in pool.map(one, rows):
            done.append(result)
            if progress:
                progress(len(done))
    return done

"""The Skill2Env authors' rubrics: `tests/eval_spec.json` read as a `Rubric`, and their verification
script's reward file read back per item.

An eval_spec item has `id`, `description`, `weight`, `method` (deterministic | llm_judge),
`judge_instruction` and `target_globs`; the spec has `pass_threshold` and `rubric_summary`.
Deterministic items are scored by the task's own `tests/test.sh` / `tests/verify.py` (their
check is `task_script`); judge items by the judge role, like ours.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skill2env.rubric.models import (
    DEFAULT_PASS_THRESHOLD,
    TASK_SCRIPT_CHECK,
    WEIGHT_TOLERANCE,
    CheckSpec,
    Method,
    Rubric,
    RubricItem,
)

EVAL_SPEC_FILE = "eval_spec.json"
ITEM_CONTAINERS = ("items", "scores", "rubric", "results", "checks")
"""Where a reward file may nest per-item values, besides its top level."""


class EvalSpecError(ValueError):
    """An eval_spec.json that cannot be read as a rubric; the message says why."""


def rubric_from_eval_spec(spec: Mapping[str, Any], *, normalize_weights: bool = False) -> Rubric:
    """A `Rubric` from a parsed eval_spec. Weights must sum to 1 unless `normalize_weights` (then
    they are divided by their sum, e.g. percentages; the summary says so)."""
    raw_items = spec.get("items") if isinstance(spec, Mapping) else None
    if not isinstance(raw_items, list) or not raw_items:
        raise EvalSpecError("an eval_spec has a non-empty list `items`")
    weights = [item.get("weight") if isinstance(item, Mapping) else None for item in raw_items]
    if not all(isinstance(w, (int, float)) and not isinstance(w, bool) and w > 0 for w in weights):
        raise EvalSpecError(f"every item needs a positive numeric weight: {weights}")
    total = math.fsum(weights)  # type: ignore[arg-type]
    summary = str(spec.get("rubric_summary") or "")
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        if not normalize_weights:
            raise EvalSpecError(f"weights sum to {total:g}, not 1 (pass normalize_weights=True to divide by the sum)")
        summary = f"{summary} [weights normalised from a sum of {total:g}]".strip()
    items = []
    for raw, weight in zip(raw_items, weights, strict=True):
        method = raw.get("method")
        if method not in (Method.deterministic.value, Method.llm_judge.value):
            raise EvalSpecError(f"item {raw.get('id')!r}: method must be deterministic or llm_judge, not {method!r}")
        globs = raw.get("target_globs") or []
        try:
            items.append(
                RubricItem(
                    id=str(raw.get("id")),
                    description=str(raw.get("description") or raw.get("id")),
                    weight=weight / total,  # type: ignore[operator]
                    method=Method(method),
                    target_files=[str(g) for g in globs],
                    check=CheckSpec(check=TASK_SCRIPT_CHECK) if method == Method.deterministic.value else None,
                    judge_instruction=raw.get("judge_instruction") if method == Method.llm_judge.value else None,
                )
            )
        except ValidationError as exc:
            raise EvalSpecError(f"item {raw.get('id')!r}: {exc.errors()[0]['msg']}") from exc
    threshold = spec.get("pass_threshold", DEFAULT_PASS_THRESHOLD)
    try:
        return Rubric(items=items, pass_threshold=threshold, summary=summary)
    except ValidationError as exc:
        raise EvalSpecError(str(exc)) from exc


def load_eval_spec(path: Path, *, normalize_weights: bool = False) -> Rubric:
    """Read `path` (an eval_spec.json, or a task directory holding tests/eval_spec.json)."""
    if path.is_dir():
        path = path / "tests" / EVAL_SPEC_FILE
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EvalSpecError(f"{path}: {exc}") from exc
    return rubric_from_eval_spec(document, normalize_weights=normalize_weights)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, Mapping):
        for key in ("q", "score", "value", "reward", "passed", "pass"):
            if key in value:
                return _number(value[key])
    return None


def script_item_values(document: Any, item_ids: list[str]) -> dict[str, float]:
    """Per-item values from a verification script's reward file: top-level `{id: value}`, or nested
    under one of ITEM_CONTAINERS as a mapping or a list of `{id, score | passed | …}`. Values are
    numbers, booleans, or mappings holding one."""
    wanted = set(item_ids)
    found: dict[str, float] = {}

    def take(mapping: Mapping[str, Any]) -> None:
        for key, value in mapping.items():
            number = _number(value)
            if key in wanted and number is not None and key not in found:
                found[key] = number

    if not isinstance(document, Mapping):
        return found
    take(document)
    for container in ITEM_CONTAINERS:
        nested = document.get(container)
        if isinstance(nested, Mapping):
            take(nested)
        elif isinstance(nested, list):
            for entry in nested:
                if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
                    take({entry["id"]: entry})
    return found

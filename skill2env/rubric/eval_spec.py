"""The Skill2Env authors' rubrics: `tests/eval_spec.json` read as a `Rubric`, and what their
verification script reports read back per item.

An eval_spec is `{"rubric": [...], "pass_threshold": <float>, "rubric_summary": ...}` (older
files spell the list `items`); each entry has `id`, `description`, `weight`, `method`
(deterministic | llm_judge) and, for judge entries, `judge_instruction` and `target_globs`.
Deterministic items are scored by the task's own `tests/verify.py` (their check is `task_script`):
it runs with the final workspace as its current directory and prints one JSON line,
`{"per_item": {id: score}, "checks": [{id, weight, score, detail}], "score": <float>}`. Judge
items are scored by the judge role, like ours.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from skill2env.rubric.models import (
    TASK_SCRIPT_CHECK,
    WEIGHT_TOLERANCE,
    CheckSpec,
    Method,
    Rubric,
    RubricItem,
)
from skill2env.thresholds import PASS_THRESHOLD

EVAL_SPEC_FILE = "eval_spec.json"
ENTRY_KEYS = ("rubric", "items")
"""Where an eval_spec lists its entries: `rubric` (the authors' published layout), or `items`."""
ITEM_CONTAINERS = ("per_item", "items", "scores", "rubric", "results", "checks")
"""Where a script's report may nest per-item values, besides its top level (first found wins)."""
TESTS_REFERENCE = re.compile(
    r"""(?:/tests/|\$\(dirname\s+["']?\$0["']?\)/|\$\{?(?:TESTS_DIR|SCRIPT_DIR)\}?/)([\w.\-/]+)"""
)
"""A file of the task's tests/ named in a shell script: `/tests/x`, `$(dirname "$0")/x`, `$TESTS_DIR/x`."""


class EvalSpecError(ValueError):
    """An eval_spec.json that cannot be read as a rubric; the message says why."""


def eval_spec_entries(spec: Any) -> list[Any]:
    """The spec's list of entries, under `rubric` or `items`.

    Raises:
        EvalSpecError: the spec is not an object, has neither key or both, or the list is empty.
    """
    if not isinstance(spec, Mapping):
        raise EvalSpecError(f"an eval_spec is a JSON object, not {type(spec).__name__}")
    present = [key for key in ENTRY_KEYS if key in spec]
    if not present:
        keys = ", ".join(sorted(map(str, spec))) or "none"
        raise EvalSpecError(f"an eval_spec lists its items under `rubric` (or `items`); its keys are: {keys}")
    if len(present) > 1:
        raise EvalSpecError("an eval_spec has both `rubric` and `items`; it lists its items under one of them")
    entries = spec[present[0]]
    if not isinstance(entries, list) or not entries:
        raise EvalSpecError(f"an eval_spec's `{present[0]}` is a non-empty list of items, not {entries!r:.80}")
    return entries


def _entry_problem(index: int, raw: Any, seen: set[str]) -> str | None:
    """What is wrong with one entry (None: nothing), for the messages of `rubric_from_eval_spec`."""
    if not isinstance(raw, Mapping):
        return f"item {index} is not an object: {raw!r:.80}"
    item_id = raw.get("id")
    if not isinstance(item_id, str) or not item_id.strip():
        return f"item {index} has no `id` (a non-empty string): {item_id!r}"
    where = f"item {index} ({item_id!r})"
    if item_id in seen:
        return f"{where}: the id repeats"
    weight = raw.get("weight")
    if not isinstance(weight, (int, float)) or isinstance(weight, bool) or not math.isfinite(weight) or weight <= 0:
        return f"{where}: `weight` must be a positive number, not {weight!r}"
    method = raw.get("method")
    if method not in (Method.deterministic.value, Method.llm_judge.value):
        return f"{where}: `method` must be deterministic or llm_judge, not {method!r}"
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        return f"{where}: `description` must be text, not {description!r:.80}"
    instruction = raw.get("judge_instruction")
    if method == Method.llm_judge.value and (not isinstance(instruction, str) or not instruction.strip()):
        return f"{where}: an llm_judge item needs a `judge_instruction` (non-empty text)"
    globs = raw.get("target_globs")
    if globs is not None and not (isinstance(globs, list) and all(isinstance(g, str) and g for g in globs)):
        return f"{where}: `target_globs` must be a list of non-empty strings, not {globs!r:.80}"
    return None


def rubric_from_eval_spec(spec: Mapping[str, Any], *, normalize_weights: bool = False) -> Rubric:
    """A `Rubric` from a parsed eval_spec (entries under `rubric` or `items`). Weights must sum to 1
    unless `normalize_weights` (then they are divided by their sum, e.g. percentages; the summary
    says so).

    Raises:
        EvalSpecError: the spec or one of its entries is malformed (the message names the entry).
    """
    raw_items = eval_spec_entries(spec)
    seen: set[str] = set()
    for index, raw in enumerate(raw_items):
        problem = _entry_problem(index, raw, seen)
        if problem:
            raise EvalSpecError(problem)
        seen.add(raw["id"])
    weights = [float(raw["weight"]) for raw in raw_items]
    total = math.fsum(weights)
    summary = str(spec.get("rubric_summary") or "")
    if abs(total - 1.0) > WEIGHT_TOLERANCE:
        if not normalize_weights:
            raise EvalSpecError(f"weights sum to {total:g}, not 1 (pass normalize_weights=True to divide by the sum)")
        summary = f"{summary} [weights normalised from a sum of {total:g}]".strip()
    items = []
    for index, (raw, weight) in enumerate(zip(raw_items, weights, strict=True)):
        method = Method(raw["method"])
        try:
            items.append(
                RubricItem(
                    id=raw["id"],
                    description=raw.get("description") or raw["id"],
                    weight=weight / total,
                    method=method,
                    target_files=list(raw.get("target_globs") or []),
                    check=CheckSpec(check=TASK_SCRIPT_CHECK) if method == Method.deterministic else None,
                    judge_instruction=raw.get("judge_instruction") if method == Method.llm_judge else None,
                )
            )
        except ValidationError as exc:
            raise EvalSpecError(f"item {index} ({raw['id']!r}): {exc.errors()[0]['msg']}") from exc
    threshold = spec.get("pass_threshold", PASS_THRESHOLD)
    if not isinstance(threshold, (int, float)) or isinstance(threshold, bool) or not 0 <= threshold <= 1:
        raise EvalSpecError(f"`pass_threshold` must be a number within [0, 1], not {threshold!r}")
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


def last_json_line(stdout: str) -> Mapping[str, Any] | None:
    """The last line of `stdout` that is a JSON object (how `tests/verify.py` reports), else None."""
    for line in reversed(stdout.splitlines()):
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            document = json.loads(text)
        except ValueError:
            continue
        if isinstance(document, Mapping):
            return document
    return None


def script_item_details(document: Any) -> dict[str, str]:
    """Per item, the `detail` a script's report gives in its `checks` list (what it found)."""
    checks = document.get("checks") if isinstance(document, Mapping) else None
    if not isinstance(checks, list):
        return {}
    return {
        entry["id"]: str(entry["detail"])[:500]
        for entry in checks
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str) and entry.get("detail") not in (None, "")
    }


def missing_test_references(script: str, tests_dir: Path) -> list[str]:
    """The files of tests/ a shell script (the task's `tests/test.sh`) calls that the task does not
    contain, as the script names them (`/tests/run_eval.py`)."""
    missing = []
    for match in TESTS_REFERENCE.finditer(script):
        name = match.group(1).rstrip(".")
        if name and not (tests_dir / name).exists() and match.group(0) not in missing:
            missing.append(match.group(0))
    return missing

"""A task-specific check the library does not cover: a Python function shipped with the verifier,
run inside the task environment like every other check.

The function is `fn(workspace: pathlib.Path, args: dict)` and returns a bool, a `(bool, evidence)`
pair, a `{"passed": bool, "evidence": {...}}` mapping or a `CheckResult`. Like a pytest test, an
exception it raises (an AssertionError included) is a failure, with the traceback as evidence.
"""

from __future__ import annotations

import importlib.util
import itertools
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from .base import CheckResult, CheckSpecError, check, param, tests_file

_counter = itertools.count()


def load_module(params: Mapping[str, Any]) -> ModuleType:
    """The module of `module` (a file shipped with the verifier) or of inline `source`."""
    if ("module" in params) == ("source" in params):
        raise CheckSpecError("give exactly one of `module` (a .py file beside the verifier) and `source`")
    name = f"_rubric_check_{next(_counter)}"
    if "module" in params:
        path = tests_file(params, "module")
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise CheckSpecError(f"{path} cannot be loaded as a Python module")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            raise CheckSpecError(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from exc
        return module
    module = ModuleType(name)
    try:
        exec(compile(param(params, "source", str), f"<{name}>", "exec"), module.__dict__)  # noqa: S102 — the rubric author's code
    except Exception as exc:
        raise CheckSpecError(f"the inline source failed to load: {type(exc).__name__}: {exc}") from exc
    return module


def _as_result(value: Any) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if isinstance(value, bool):
        return CheckResult(value, {"summary": "the function returned " + str(value)})
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
        evidence = value[1] if isinstance(value[1], Mapping) else {"detail": value[1]}
        return CheckResult(value[0], dict(evidence))
    if isinstance(value, Mapping) and isinstance(value.get("passed"), bool):
        return CheckResult(value["passed"], dict(value.get("evidence") or {}))
    passed_attr = getattr(value, "passed", None)
    if isinstance(passed_attr, bool):  # a CheckResult from another copy of this package
        return CheckResult(passed_attr, dict(getattr(value, "evidence", {}) or {}))
    return CheckResult(False, {}, f"the check function returned {type(value).__name__}, not a verdict")


@check(
    "python",
    "A Python function shipped with the verifier (`module` + `function`, or inline `source`) judges the "
    "workspace; it gets `args` and returns a bool or (bool, evidence).",
    optional=("module", "source", "function", "args"),
    uses_tests_dir=True,
)
def python_check(workspace: Path, params: Mapping[str, Any]) -> CheckResult:
    module = load_module(params)
    name = param(params, "function", str, "check")
    function = getattr(module, name, None)
    if not callable(function):
        raise CheckSpecError(f"the check module defines no function {name!r}")
    args = dict(param(params, "args", dict, {}))
    try:
        value = function(workspace, args)
    except Exception as exc:
        summary = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        tail = "".join(traceback.format_exc().splitlines(keepends=True)[-8:])
        return CheckResult(False, {"summary": summary, "traceback": tail})
    result = _as_result(value)
    result.evidence.setdefault("summary", f"{name} → {'pass' if result.passed else 'fail'}")
    return result

"""A task-specific check the library does not cover: a Python function shipped with the verifier,
run inside the task environment like every other check.

The function is `fn(workspace: pathlib.Path, args: dict)` and returns a bool, a `(bool, evidence)`
pair, a `{"passed": bool, "evidence": {...}}` mapping or a `CheckResult`. Inline source finds the
library's `remembered` (`memo`) among its globals, to reuse an expensive computation across the
candidates of a batch verification. Like a pytest test, an
exception it raises (an AssertionError included) is a failure, with the traceback as evidence.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import itertools
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from .base import CheckResult, CheckSpecError, check, clip, param, tests_file
from .memo import remembered

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
        except (Exception, SystemExit) as exc:
            raise CheckSpecError(f"importing {path.name} failed: {type(exc).__name__}: {exc}") from exc
        return module
    module = ModuleType(name)
    module.remembered = remembered  # type: ignore[attr-defined]  # the memo, for the source to find (`memo`)
    try:
        exec(_compiled(param(params, "source", str)), module.__dict__)  # noqa: S102 — the rubric author's code
    except (Exception, SystemExit) as exc:
        raise CheckSpecError(f"the inline source failed to load: {type(exc).__name__}: {exc}") from exc
    return module


@functools.lru_cache(maxsize=256)
def _compiled(source: str) -> CodeType:
    """The inline source compiled once per verifier process (a rubric runs the same source for many
    items and candidates); each call still executes it in a fresh module, so no state is shared."""
    return compile(source, "<rubric inline check>", "exec")


def warm_up(items: Iterable[Mapping[str, Any]]) -> list[str]:
    """Compile the inline sources of the `python` items among a rubric's `items` and import every module
    they import (anywhere in the source, as absolute imports): what each verification of a batch would
    otherwise do again in its own fresh child process. Nothing is run but imports of the verifier's own
    interpreter (the workspace is never on its path). Returns the modules imported; a name that is not
    a module, or a module that fails to import, is left to the check, which reports it itself."""
    names: set[str] = set()
    for item in items:
        spec = item.get("check") if isinstance(item, Mapping) else None
        params = spec.get("params") if isinstance(spec, Mapping) and spec.get("check") == "python" else None
        source = params.get("source") if isinstance(params, Mapping) else None
        if not isinstance(source, str):
            continue
        try:
            _compiled(source)
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    imported = []
    for name in sorted(names):
        with contextlib.suppress(Exception):
            importlib.import_module(name)
            imported.append(name)
    return imported


def _evidence(value: Any) -> dict[str, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    return {} if value is None else {"detail": value}


def _as_result(value: Any) -> CheckResult:
    if isinstance(value, CheckResult):
        return value
    if isinstance(value, bool):
        return CheckResult(value, {"summary": "the function returned " + str(value)})
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], bool):
        return CheckResult(value[0], _evidence(value[1]))
    if isinstance(value, Mapping) and isinstance(value.get("passed"), bool):
        return CheckResult(value["passed"], _evidence(value.get("evidence")))
    passed_attr = getattr(value, "passed", None)
    if isinstance(passed_attr, bool):  # a CheckResult from another copy of this package
        error = getattr(value, "error", None)
        return CheckResult(
            passed_attr, _evidence(getattr(value, "evidence", None)), None if error is None else str(error)
        )
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
    except (Exception, SystemExit) as exc:  # SystemExit: a sys.exit() in the function must not end the verifier
        summary = f"{type(exc).__name__}: {_repr(exc, str)}"
        tail = "".join(traceback.format_exc().splitlines(keepends=True)[-8:])
        return CheckResult(False, {"summary": summary, "traceback": _utf8(tail)})
    try:
        result = _as_result(value)
        evidence = _plain(result.evidence)
        error = None if result.error is None else _repr(result.error, str)
    except Exception as exc:  # a verdict whose attributes raise
        return CheckResult(False, {}, f"the check function returned an unreadable verdict ({type(exc).__name__})")
    result.evidence = evidence if isinstance(evidence, dict) else {"detail": evidence}
    result.error = error
    result.evidence.setdefault("summary", f"{name} → {'pass' if result.passed else 'fail'}")
    return result


PLAIN_DEPTH = 6
PLAIN_ITEMS = 100
PLAIN_INT_BITS = 4000
"""Longer integers are shown by size: JSON writes an int as text, and `str()` refuses past 4300 digits."""


def _plain(value: Any, depth: int = 0) -> Any:
    """What a function returned as evidence, as JSON-ready data the verifier can always write:
    nesting and length cut, text made valid UTF-8, long integers and other objects described."""
    if value is None or isinstance(value, (bool, float)):
        return value
    if isinstance(value, int):
        return value if value.bit_length() <= PLAIN_INT_BITS else f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, str):
        return _utf8(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value[: PLAIN_ITEMS * 40]).decode("utf-8", "replace")
    if depth >= PLAIN_DEPTH:
        return _repr(value)
    if isinstance(value, Mapping):
        return {
            key if isinstance(key, str) else _repr(key): _plain(item, depth + 1)
            for key, item in list(value.items())[:PLAIN_ITEMS]
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(item, depth + 1) for item in list(value)[:PLAIN_ITEMS]]
    return _repr(value)


def _repr(value: Any, how: Any = repr) -> str:
    try:
        text = how(value)
    except Exception:  # a __repr__ that raises, or recurses without end
        text = f"<{type(value).__name__}>"
    return _utf8(clip(text) if isinstance(text, str) else f"<{type(value).__name__}>")


def _utf8(text: str) -> str:
    return text if text.isascii() else text.encode("utf-8", "backslashreplace").decode("utf-8")

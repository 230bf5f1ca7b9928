"""The repair engine the codebase-repair kit's solver and naive policy share (prepended to both scripts).

A candidate repair is one token of a function's code changed the way single-token bugs usually are
(a comparison, an operator, a constant 0 / 1, a name like lower / upper); whoever uses the engine
decides which candidate to keep: the solver by the function's documented examples (its doctests), the
naive policy by re-running the failing visible test.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import io
import shutil
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path

from skill2env.kits.runtime import rt  # kit-runtime

OPS = {
    ">": [">="],
    ">=": [">"],
    "<": ["<="],
    "<=": ["<"],
    "+": ["-", "*"],
    "-": ["+"],
    "*": ["/"],
    "/": ["*", "//"],
    "//": ["/"],
    "==": ["!="],
    "!=": ["=="],
}
NAMES = {"lower": ["upper"], "upper": ["lower"], "and": ["or"], "or": ["and"], "min": ["max"], "max": ["min"]}
NUMBERS = {"0": ["1"], "1": ["0"]}
VENDORED_MARK = "Vendored from"
SKIPPED_DIRS = ("build", "tests", "output", "docs", "ci")


def function_spans(source: str) -> dict[str, tuple[int, int]]:
    """Top-level function → (first, last) line of its body."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {
        node.name: (node.body[0].lineno, node.end_lineno or node.body[-1].lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def mutants(source: str, function: str) -> Iterator[str]:
    """The function's one-token repairs, in source order."""
    span = function_spans(source).get(function)
    if span is None:
        return
    lines = source.splitlines(keepends=True)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    for token in tokens:
        row, col = token.start
        if not span[0] <= row <= span[1] or token.end[0] != row:
            continue
        table = {tokenize.OP: OPS, tokenize.NAME: NAMES, tokenize.NUMBER: NUMBERS}.get(token.type, {})
        for replacement in table.get(token.string, []):
            line = lines[row - 1]
            changed = line[:col] + replacement + line[token.end[1] :]
            yield "".join([*lines[: row - 1], changed, *lines[row:]])


def is_vendored(path: Path) -> bool:
    return VENDORED_MARK in rt.read_text(path)[:800]


def package_dir() -> str:
    """The repository's package: the top-level folder with an __init__.py (not a build or a copy)."""
    root = rt.workspace()
    found = [
        p.name
        for p in sorted(root.iterdir())
        if p.is_dir()
        and (p / "__init__.py").is_file()
        and not p.name.startswith(("_", "."))
        and p.name not in SKIPPED_DIRS
    ]
    return found[0]


def clean_bytecode(folder: Path) -> None:
    for cache in folder.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def purge(package: str) -> None:
    for name in [k for k in sys.modules if k == package or k.startswith(package + ".")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def doctests_pass(package: str, module: str, function: str) -> bool:
    """Whether `package.module.function`'s docstring examples all hold (False when it cannot be imported)."""
    purge(package)
    try:
        loaded = importlib.import_module(f"{package}.{module}")
        target = getattr(loaded, function)
    except Exception:
        return False
    tests = doctest.DocTestFinder(recurse=False).find(target, function, module=loaded, globs=dict(vars(loaded)))
    runner = doctest.DocTestRunner(verbose=False)
    attempted = failed = 0
    for test in tests:
        result = runner.run(test, out=lambda _text: None)
        attempted += result.attempted
        failed += result.failed
    return attempted > 0 and failed == 0


def call_order(package: Path, modules: list[str]) -> list[tuple[str, str]]:
    """(module, function) of the package's functions, every function after the package functions it calls."""
    where: dict[str, str] = {}
    calls: dict[str, set[str]] = {}
    for module in modules:
        tree = ast.parse(rt.read_text(package / f"{module}.py"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                where[node.name] = module
                calls[node.name] = {
                    n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                }
    ordered: list[str] = []

    def visit(name: str, seen: set[str]) -> None:
        if name in ordered or name in seen:
            return
        seen.add(name)
        for callee in sorted(calls[name]):
            if callee in where:
                visit(callee, seen)
        ordered.append(name)

    for name in where:
        visit(name, set())
    return [(where[name], name) for name in ordered]


def write_reports(causes: list[str], count: int, notes: dict[str, str]) -> None:
    rt.write_json("report.json", {"root_causes": sorted(set(causes))})
    lines = [f"Bugs fixed: {count}", ""]
    lines += [f"- {cause}: {notes.get(cause, 'fixed')}" for cause in sorted(set(causes))]
    rt.write_text("report.md", "\n".join(lines) + "\n")

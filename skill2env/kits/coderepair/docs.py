"""Rendering the codebase-repair world into workspace files: the package, its visible tests, the CI
log of the last run, the README, changelog and data documentation, and the decoy copies."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from skill2env.kits.coderepair.world import (
    API_RENAMES,
    BUGS,
    CATEGORIES,
    CI_ROOT,
    EXAMPLES,
    MODULE_OF,
    MODULES,
    VENDOR_LIB,
    World,
    closure,
    expand,
    failure_trace,
    loaded,
    module_sources,
)
from skill2env.kits.spec import Workspace

LOG = "ci/test-run.log"
QUARANTINE = "ci/quarantine.txt"
RATES_DOC = "docs/tax-rates"
PERF_TESTS = (
    ("test_parse_is_fast", '_, seconds = timed(parse_qty, "1,200")', "self.assertLess(seconds, 0.05)"),
    (
        "test_paging_within_budget",
        "_, seconds = timed(paginate, list(range(100)), 2, 10)",
        "check_budget(seconds, 0.05)",
    ),
)


@dataclass
class Rendered:
    workspace: Workspace
    sources: dict[str, str]
    tests: dict[str, str] = field(default_factory=dict)
    failures: list[tuple[str, str, str]] = field(default_factory=list)
    """(test id, FAIL / ERROR, log block)."""


def tested_functions(world: World) -> list[str]:
    """Functions with a visible test: none whose result depends on another function's bug, none with
    a silent bug; the orders functions only as the cascade's entry point."""
    silent = {f for f, kind in world.bugs.items() if kind in ("silent", "cascade")}
    chosen = []
    for function in MODULE_OF:
        if function in ("check_budget", "price_line", "order_total") or function in silent:
            continue
        if (closure(function) - {function}) & set(world.bugs):
            continue
        chosen.append(function)
    if world.cascade:
        chosen.append("order_total" if world.cascade == 3 else "price_line")
    return chosen


def _kw(world: World, function: str, call: str) -> str:
    if function in world.stale_api:
        old, new = API_RENAMES[function]
        return call.replace(f"{new}=", f"{old}=")
    return call


def render_tests(
    world: World, shown: dict[str, str]
) -> tuple[dict[str, str], dict[str, list[tuple[str, str, int, str]]]]:
    """Test files, and per test id the (function, call, line) of each assertion."""
    functions = tested_functions(world)
    files: dict[str, str] = {"tests/__init__.py": ""}
    asserts: dict[str, list[tuple[str, str, int, str]]] = {}
    for module in MODULES:
        mine = [f for f in functions if MODULE_OF[f] == module]
        if module == "perf":
            continue
        if not mine:
            continue
        cls = module.capitalize() + "Tests"
        lines = ["import unittest", "", f"from {world.pkg}.{module} import {', '.join(sorted(set(mine)))}", "", ""]
        lines.append(f"class {cls}(unittest.TestCase):")
        methods = [(f, f"test_{f}") for f in mine]
        if world.duplicate_test and world.base_bug in mine:
            methods.append((world.base_bug, f"test_{world.base_bug}_documented_examples"))
        for function, method in methods:
            lines.append(f"    def {method}(self):")
            test_id = f"tests.test_{module}.{cls}.{method}"
            calls = [expand(world, c) for c in EXAMPLES[function]]
            if method.endswith("_documented_examples"):
                calls = list(reversed(calls))
            for call in calls:
                shown_call = _kw(world, function, call)
                lines.append(f"        self.assertEqual({shown_call}, {shown[call]})")
                asserts.setdefault(test_id, []).append((function, shown_call, len(lines), shown[call]))
            lines.append("")
        files[f"tests/test_{module}.py"] = "\n".join(lines).rstrip() + "\n"
    files["tests/test_perf.py"] = _perf_tests(world)
    files["tests/test_vendor_decimalish.py"] = _vendor_tests(world)
    return files, asserts


def _perf_tests(world: World) -> str:
    lines = [
        '"""Performance smoke tests: each call must finish within its time budget."""',
        "",
        "import unittest",
        "",
        f"from {world.pkg}.batching import paginate",
        f"from {world.pkg}.parsing import parse_qty",
        f"from {world.pkg}.perf import check_budget, timed",
        "",
        "",
        "class PerfTests(unittest.TestCase):",
    ]
    for name, first, second in PERF_TESTS:
        lines += [f"    def {name}(self):", f"        {first}", f"        {second}", ""]
    return "\n".join(lines).rstrip() + "\n"


VENDOR_CASES = (
    ("test_round_half_up", "round_half_up(2.675, 2)", "2.68", ""),
    ("test_round_half_up_negative", "round_half_up(-2.5)", "-3.0", "-2.0"),
    ("test_round_half_up_negative_cents", "round_half_up(-0.125, 2)", "-0.13", "-0.12"),
)


def _vendor_tests(world: World) -> str:
    lines = [
        f'"""Upstream tests of the vendored {VENDOR_LIB} {"1.4.2"}, run with the package\'s suite."""',
        "",
        "import unittest",
        "",
        f"from {world.pkg}.{world.vendor_dir}.{VENDOR_LIB} import round_half_up",
        "",
        "",
        "class DecimalishUpstreamTests(unittest.TestCase):",
    ]
    for name, call, expected, _ in VENDOR_CASES[: 1 + world.vendor_failures]:
        lines += [f"    def {name}(self):", f"        self.assertEqual({call}, {expected})", ""]
    return "\n".join(lines).rstrip() + "\n"


def _block(kind: str, test_id: str, body: str) -> str:
    method = test_id.rsplit(".", 1)[1]
    rule = "=" * 70
    return f"{rule}\n{kind}: {method} ({test_id})\n{'-' * 70}\n{body.rstrip()}\n"


def _test_frame(world: World, test_file: str, line: int, method: str, code: str) -> str:
    return f'  File "{CI_ROOT}/{world.pkg}/{test_file}", line {line}, in {method}\n    {code}\n'


def failures(world: World, buggy: dict[str, str], tests: dict[str, str],
             asserts: dict[str, list[tuple[str, str, int, str]]]) -> list[tuple[str, str, str]]:  # fmt: skip
    """(test id, FAIL / ERROR, log block) of every visible test the buggy package fails."""
    found: list[tuple[str, str, str]] = []
    prefix = f"{CI_ROOT}/{world.pkg}/" + ("build/lib/" if world.build_in_log else "")
    with loaded(buggy, world.pkg) as (package, root):
        for test_id, checks in asserts.items():
            module = test_id.split(".")[1]
            method = test_id.rsplit(".", 1)[1]
            test_file = f"tests/{module}.py"
            for _, call, line, expected in checks:
                trace = failure_trace(world, package, root, call, prefix)
                code = tests[test_file].splitlines()[line - 1].strip()
                frame = _test_frame(world, test_file, line, method, code)
                if trace:
                    head, sep, tail = trace.rpartition("Traceback (most recent call last):\n")
                    body = f"{head}{sep}{frame}{tail}" if sep else f"Traceback (most recent call last):\n{frame}{trace}"
                    found.append((test_id, "ERROR", _block("ERROR", test_id, body)))
                    break
                actual = repr(eval(call, {"__builtins__": {"list": list, "range": range}},  # noqa: S307 - our own expressions
                                   {n: getattr(package, n) for n in MODULE_OF}))  # fmt: skip
                if actual != expected:
                    body = f"Traceback (most recent call last):\n{frame}AssertionError: {actual} != {expected}"
                    found.append((test_id, "FAIL", _block("FAIL", test_id, body)))
                    break
    return found


def flaky_failures(world: World, tests: dict[str, str], perf_source: str) -> list[tuple[str, str, str]]:
    if world.flaky_benign or not world.flaky:
        return []
    found = []
    text = tests["tests/test_perf.py"].splitlines()
    chosen = {1: [0], 2: [1], 3: [0, 1]}[world.flaky]
    for index in chosen:
        name, _, second = PERF_TESTS[index]
        test_id = f"tests.test_perf.PerfTests.{name}"
        line = text.index(f"        {second}") + 1
        frame = _test_frame(world, "tests/test_perf.py", line, name, second)
        if index == 0:
            body = f"Traceback (most recent call last):\n{frame}AssertionError: 0.0731 not less than 0.05"
            found.append((test_id, "FAIL", _block("FAIL", test_id, body)))
        else:
            raise_line = (
                perf_source.splitlines().index(
                    '        raise BudgetExceeded(f"took {seconds:.4f} s, budget {budget} s")'
                )
                + 1
            )
            inner = (
                f'  File "{CI_ROOT}/{world.pkg}/{world.pkg}/perf.py", line {raise_line}, in check_budget\n'
                '    raise BudgetExceeded(f"took {seconds:.4f} s, budget {budget} s")\n'
            )
            body = (f"Traceback (most recent call last):\n{frame}{inner}"
                    f"{world.pkg}.perf.BudgetExceeded: took 0.0842 s, budget 0.05 s")  # fmt: skip
            found.append((test_id, "ERROR", _block("ERROR", test_id, body)))
    return found


def vendor_failures(world: World) -> list[tuple[str, str, str]]:
    found = []
    for index in range(1, 1 + world.vendor_failures):
        name, call, expected, actual = VENDOR_CASES[index]
        test_id = f"tests.test_vendor_decimalish.DecimalishUpstreamTests.{name}"
        lines = _vendor_tests(world).splitlines()
        line = lines.index(f"        self.assertEqual({call}, {expected})") + 1
        frame = _test_frame(
            world, "tests/test_vendor_decimalish.py", line, name, f"self.assertEqual({call}, {expected})"
        )
        body = f"Traceback (most recent call last):\n{frame}AssertionError: {actual} != {expected}"
        found.append((test_id, "FAIL", _block("FAIL", test_id, body)))
    return found


def test_ids(tests: dict[str, str]) -> list[str]:
    ids = []
    for path, text in sorted(tests.items()):
        module = path.rsplit("/", 1)[1][:-3]
        cls = re.search(r"^class (\w+)", text, re.M)
        for method in re.findall(r"^    def (test_\w+)\(self\):", text, re.M):
            ids.append(f"tests.{module}.{cls.group(1) if cls else 'Tests'}.{method}")
    return ids


def render_log(world: World, tests: dict[str, str], found: list[tuple[str, str, str]]) -> str:
    status = {test_id: kind for test_id, kind, _ in found}
    lines = [f"$ cd {CI_ROOT}/{world.pkg} && python -m unittest discover -v -s tests -t .", ""]
    ids = test_ids(tests)
    for test_id in ids:
        method = test_id.rsplit(".", 1)[1]
        lines.append(f"{method} ({test_id}) ... {status.get(test_id, 'ok')}")
    lines.append("")
    for _, _, block in found:
        lines.append(block)
    lines += ["-" * 70, f"Ran {len(ids)} tests in 0.{(world.seed * 37) % 900 + 100}s", ""]
    failed = sum(1 for _, k, _ in found if k == "FAIL")
    errors = sum(1 for _, k, _ in found if k == "ERROR")
    if found:
        parts = [p for p in (f"failures={failed}" if failed else "", f"errors={errors}" if errors else "") if p]
        lines.append(f"FAILED ({', '.join(parts)})")
    else:
        lines.append("OK")
    if world.quarantined() and world.quarantine_marked:
        lines.append(f"note: tests listed in {QUARANTINE} are known to be flaky and do not block the merge")
    return "\n".join(lines) + "\n"


def readme(world: World) -> str:
    public = ", ".join(f"`{n}`" for n in sorted(MODULE_OF))
    lines = [
        f"# {world.pkg}",
        "",
        f"Order pricing, parsing, batching and statistics helpers. Version 2.1.0. Public API: {public}",
        "(see each function's docstring; the examples in the docstrings are the documented behaviour).",
        "",
        "Run the tests with `python -m unittest discover -s tests -t .` from the repository root.",
        f"`{LOG}` is the output of the last CI run.",
        "",
        "## Layout",
        "",
        f"- `{world.pkg}/`: the package (the only code that ships).",
        f"- `{world.pkg}/data/tax_rates.json`: the tax table `tax_for` reads; the authoritative rates are in "
        f"`{RATES_DOC}.{'html' if world.data_doc == 'html' else 'md'}`.",
        "- `tests/`: the unit tests.",
    ]
    if world.vendor_note:
        lines.append(f"- `{world.pkg}/{world.vendor_dir}/`: vendored third-party code (see VENDORED.md).")
    if world.attic_note:
        lines.append("- `_attic/`: old copies of modules kept for reference; not installed, not imported.")
    return "\n".join(lines) + "\n"


def changelog(world: World) -> str:
    lines = ["# Changelog", "", "## 2.1.0", "", "- Tax rates moved into data/tax_rates.json.", ""]
    lines += ["## 2.0.0", ""]
    if world.api_note == "changelog":
        for function in world.stale_api or ["paginate"]:
            old, new = API_RENAMES[function]
            lines.append(f"- `{function}`: the `{old}` argument is now `{new}`; the old name is no longer accepted.")
    lines += ["- Dropped Python 3.8.", ""]
    return "\n".join(lines) + "\n"


def rates_doc(world: World) -> tuple[str, str]:
    if world.data_doc == "html":
        rows = "".join(f"<tr><td>{c}</td><td>{world.rates[c]}</td></tr>" for c in CATEGORIES)
        html = (
            "<html><body><h1>Tax rates</h1><p>The rates the finance team approved (fractions of the net amount).</p>"
            f"<table><tr><th>category</th><th>rate</th></tr>{rows}</table></body></html>\n"
        )
        return f"{RATES_DOC}.html", html
    rows = "\n".join(f"| {c} | {world.rates[c]} |" for c in CATEGORIES)
    return (
        f"{RATES_DOC}.md",
        f"# Tax rates\n\nApproved rates (fractions of the net amount):\n\n| category | rate |\n| --- | --- |\n{rows}\n",
    )


def render_world(world: World, shown: dict[str, str]) -> Rendered:
    buggy = module_sources(world, buggy=True, shown=shown)
    tests, asserts = render_tests(world, shown)
    found = failures(world, buggy, tests, asserts)
    found += flaky_failures(world, tests, buggy[f"{world.pkg}/perf.py"])
    found += vendor_failures(world)
    workspace = Workspace()
    for path, text in sorted(buggy.items()):
        workspace.add_text(path, text)
    for path, text in sorted(tests.items()):
        workspace.add_text(path, text)
    workspace.add_text(LOG, render_log(world, tests, found))
    workspace.add_text("README.md", readme(world))
    workspace.add_text("CHANGELOG.md", changelog(world))
    doc_path, doc_text = rates_doc(world)
    workspace.add_text(doc_path, doc_text)
    if world.vendor_note:
        workspace.add_text(
            f"{world.pkg}/{world.vendor_dir}/VENDORED.md",
            f"# Vendored code\n\n`{VENDOR_LIB}.py` is {VENDOR_LIB} 1.4.2, copied unchanged from upstream. "
            "Do not edit it: known upstream issues are tracked upstream, and the file must stay "
            "byte-identical to the release.\n",
        )
    if world.quarantined():
        ids = [i for f in world.quarantined() for i in _ids_of(asserts, f)]
        workspace.add_text(QUARANTINE, "".join(f"{i}  # flaky on CI, see #{412 + n}\n" for n, i in enumerate(ids)))
    for folder, module in world.decoys:
        workspace.add_text(f"{folder}/{module}.py", buggy[f"{world.pkg}/{module}.py"])
    if world.attic_note and any(f.startswith("_attic") for f, _ in world.decoys):
        workspace.add_text("_attic/README.md", "Old copies of modules, kept for reference. Not installed.\n")
    for module in world.build_modules:
        workspace.add_text(f"build/lib/{world.pkg}/{module}.py", buggy[f"{world.pkg}/{module}.py"])
    if world.egg_info:
        workspace.add_text(
            f"{world.pkg}.egg-info/PKG-INFO", f"Metadata-Version: 2.1\nName: {world.pkg}\nVersion: 2.1.0\n"
        )
    return Rendered(workspace, buggy, tests, found)


def _ids_of(asserts: dict[str, list[tuple[str, str, int, str]]], function: str) -> list[str]:
    return [test_id for test_id, checks in asserts.items() if checks and checks[0][0] == function]


def bug_cause(world: World, function: str) -> str:
    return f"{world.pkg}/{BUGS[function].module}.py:{function}"


def root_causes(world: World) -> list[str]:
    causes = [bug_cause(world, f) for f in world.bugs]
    causes += [f"{world.pkg}/data/tax_rates.json:{c}" for c in world.data_errors]
    return sorted(causes)

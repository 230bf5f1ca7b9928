"""Reference solver for the codebase-repair kit.

It finds the package (the top-level folder with an __init__.py, not a build or an old copy), leaves
vendored files alone (their header says so), corrects the data file against the approved rates in the
docs, then checks every function's documented examples (its doctests) in call order, callees first, and
repairs a function whose examples fail with the one-token change that makes them hold. The CI log's
tracebacks, the quarantine list and the visible tests are not trusted: they point at callers, flaky
timing and stale keywords. It writes report.json and report.md from the repairs it made.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import sys

from skill2env.kits.coderepair.engine import (  # kit-runtime
    call_order,  # kit-runtime
    clean_bytecode,  # kit-runtime
    doctests_pass,  # kit-runtime
    is_vendored,  # kit-runtime
    mutants,  # kit-runtime
    package_dir,  # kit-runtime
    purge,  # kit-runtime
    write_reports,  # kit-runtime
)  # kit-runtime
from skill2env.kits.runtime import rt  # kit-runtime

ROW = re.compile(r"^\|?\s*([a-z]+)\s*\|\s*([0-9.]+)\s*\|?\s*$", re.M)


def fix_data(package: str, notes: dict[str, str]) -> list[str]:
    root = rt.workspace()
    docs = [p for p in rt.files("docs/*") if p.stem == "tax-rates"]
    table = root / package / "data" / "tax_rates.json"
    if not docs or not table.is_file():
        return []
    approved = {name: float(rate) for name, rate in ROW.findall(rt.document_text(docs[0]))}
    data = json.loads(rt.read_text(table))
    causes = []
    for name, rate in approved.items():
        if name in data and abs(float(data[name]) - rate) > 1e-12:
            data[name] = rate
            cause = f"{package}/data/tax_rates.json:{name}"
            causes.append(cause)
            notes[cause] = f"the rate did not match the approved {rate}"
    if causes:
        table.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return causes


def write_regressions(package: str, causes: list[str]) -> None:
    """One test per root cause, from the repaired function's (or, for a data key, tax_for's) doctests."""
    parser = doctest.DocTestParser()
    lines = ["import unittest", "", f"import {package}", "", "", "class RegressionTests(unittest.TestCase):"]
    for number, cause in enumerate(sorted(causes), start=1):
        path, name = cause.rsplit(":", 1)
        function = name if path.endswith(".py") else "tax_for"
        target = getattr(sys.modules.get(package) or __import__(package), function)
        lines.append(f"    def test_{number}_{function}(self):  # {cause}")
        examples = parser.get_examples(target.__doc__ or "")
        for example in examples:
            call = example.source.strip()
            lines.append(f"        self.assertEqual(repr({package}.{call}), {example.want.strip()!r})")
        if not examples:
            lines.append("        pass")
        lines.append("")
    rt.out("regression_tests.py").write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")


def main() -> None:
    root = rt.workspace()
    os.chdir(root)
    sys.path.insert(0, str(root))
    sys.dont_write_bytecode = True
    package = package_dir()
    folder = root / package
    clean_bytecode(folder)
    notes: dict[str, str] = {}
    causes = fix_data(package, notes)
    modules = [p.stem for p in sorted(folder.glob("*.py")) if p.name != "__init__.py" and not is_vendored(p)]
    for module, function in call_order(folder, modules):
        if doctests_pass(package, module, function):
            continue
        path = folder / f"{module}.py"
        original = rt.read_text(path)
        for candidate in mutants(original, function):
            path.write_text(candidate, encoding="utf-8")
            if doctests_pass(package, module, function):
                cause = f"{package}/{module}.py:{function}"
                causes.append(cause)
                notes[cause] = "its documented examples failed; one token of its code was wrong"
                break
        else:
            path.write_text(original, encoding="utf-8")
    purge(package)
    write_regressions(package, causes)
    if rt.partial_mode():
        return
    write_reports(causes, len(set(causes)), notes)


if __name__ == "__main__":
    main()

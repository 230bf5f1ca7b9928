"""Naive baseline for the codebase-repair kit: trust the CI log.

For every failing test the log shows (quarantined ones skipped, as CI does) it patches where the
traceback points: the deepest frame outside the tests, or else the first function the failing line
calls, found by searching the repository for its definition; it keeps the first one-token change that
makes that test pass. A test whose failing line calls nothing it can find is marked skipped as flaky;
an unexpected keyword gets the function's parameter renamed to it. It reports every place it touched,
and counts the failing tests it handled as the bugs fixed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from skill2env.kits.coderepair.engine import function_spans, mutants, write_reports  # kit-runtime
from skill2env.kits.runtime import rt  # kit-runtime

LOG = "ci/test-run.log"
QUARANTINE = "ci/quarantine.txt"
HEADER = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)$", re.M)
FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\w+)\n\s+(.*)')
KEYWORD = re.compile(r"(\w+)\(\) got an unexpected keyword argument '(\w+)'")


def relative(path: str) -> str:
    return re.sub(r"^/builds/[^/]+/[^/]+/", "", path)


def find_def(name: str) -> str | None:
    for path in rt.files("**/*.py"):
        rel = rt.rel(path)
        if not rel.startswith("tests/") and re.search(rf"^def {re.escape(name)}\(", rt.read_text(path), re.M):
            return rel
    return None


def test_passes(test_id: str) -> bool:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-B", "-m", "unittest", test_id],
        cwd=rt.workspace(),
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return done.returncode == 0


def repair(rel: str, function: str, test_id: str) -> None:
    path = rt.workspace() / rel
    original = rt.read_text(path)
    for candidate in mutants(original, function):
        path.write_text(candidate, encoding="utf-8")
        if test_passes(test_id):
            return
    path.write_text(original, encoding="utf-8")


def rename_parameter(rel: str, function: str, keyword: str) -> None:
    path = rt.workspace() / rel
    source = rt.read_text(path)
    lines = source.splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(f"def {function}("))
    params = re.match(rf"def {function}\((.*)\):", lines[at].strip())
    if not params:
        return
    old = params.group(1).split(",")[-1].strip().split("=")[0]
    end = function_spans(source)[function][1]
    for index in range(at, end):
        lines[index] = re.sub(rf"\b{re.escape(old)}\b", keyword, lines[index])
    path.write_text("".join(lines), encoding="utf-8")


def skip_test(rel: str, method: str) -> None:
    path = rt.workspace() / rel
    text = rt.read_text(path).replace(
        f"    def {method}(self):", f'    @unittest.skip("flaky on CI")\n    def {method}(self):', 1
    )
    path.write_text(text, encoding="utf-8")


def main() -> None:
    root = rt.workspace()
    os.chdir(root)
    log = rt.read_text(root / LOG)
    quarantine_file = root / QUARANTINE
    quarantined = (
        set(re.findall(r"^([\w.]+)", rt.read_text(quarantine_file), re.M)) if quarantine_file.exists() else set()
    )
    heads = list(HEADER.finditer(log))
    causes: list[str] = []
    handled = 0
    done: set[tuple[str, str]] = set()
    for n, head in enumerate(heads):
        end = heads[n + 1].start() if n + 1 < len(heads) else len(log)
        body = log[head.end() : end].split("-" * 70 + "\nRan ")[0]
        method, test_id = head.group(2), head.group(3)
        if test_id in quarantined:
            continue
        handled += 1
        last = body.rsplit("Traceback (most recent call last):", 1)[-1]
        frames = [(relative(p), int(line), func, code) for p, line, func, code in FRAME.findall(last)]
        error = body.strip().splitlines()[-1] if body.strip() else ""
        keyword = KEYWORD.search(error)
        if keyword:
            target = find_def(keyword.group(1))
            if target:
                rename_parameter(target, keyword.group(1), keyword.group(2))
                causes.append(f"{target}:{keyword.group(1)}")
            continue
        inner = [f for f in frames if not f[0].startswith("tests/") and (root / f[0]).is_file()]
        if inner:
            rel, function = inner[-1][0], inner[-1][2]
        else:
            code = frames[-1][3] if frames else ""
            names = [name for name in re.findall(r"\b([A-Za-z_]\w*)\(", code) if not name.startswith("assert")]
            found = [(find_def(name), name) for name in names]
            found = [(where, name) for where, name in found if where]
            if not found:
                if frames:
                    skip_test(frames[0][0], method)
                    causes.append(f"{frames[0][0]}:{method}")
                continue
            rel, function = found[0][0] or "", found[0][1]
        causes.append(f"{rel}:{function}")
        if (rel, function) not in done:
            done.add((rel, function))
            repair(rel, function, test_id)
    rt.write_text("regression_tests.py", "import unittest\n\n\nclass RegressionTests(unittest.TestCase):\n    pass\n")
    write_reports(causes, handled, {})


if __name__ == "__main__":
    main()

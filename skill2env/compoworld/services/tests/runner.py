"""A tiny test runner on the standard library, for sandboxes without pytest.

    python3 -m skill2env.compoworld.services.tests.runner skill2env/compoworld/services/tests/test_orders.py

Runs every top-level `test_*` function of each file (or dotted module) in order, prints one line
per test and a pytest-like summary ("12 passed" / "1 failed, 11 passed"), exits 1 if any failed.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path


def module_name(target: str) -> str:
    if not target.endswith(".py"):
        return target
    path = Path(target).resolve()
    relative = path.relative_to(Path.cwd().resolve()) if path.is_relative_to(Path.cwd().resolve()) else path
    return ".".join(relative.with_suffix("").parts)


def run(targets: list[str]) -> int:
    passed = failed = 0
    started = time.perf_counter()
    for target in targets:
        module = importlib.import_module(module_name(target))
        for name, function in vars(module).items():
            if not name.startswith("test_") or not callable(function):
                continue
            try:
                function()
            except Exception:
                failed += 1
                print(f"{module.__name__}::{name} FAILED")
                traceback.print_exc(file=sys.stdout)
            else:
                passed += 1
                print(f"{module.__name__}::{name} PASSED")
    counts = ", ".join(part for part in (f"{failed} failed" if failed else "", f"{passed} passed") if part)
    print(f"{counts} in {time.perf_counter() - started:.2f}s")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))

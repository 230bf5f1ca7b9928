"""Rubric evaluator throughput and verification latency.

    python benchmarks/rubric.py [--repeat 5] [--runs 5] [--backends docker,bwrap] [--skip-sandbox]

Measures, in this one run:

* deterministic scoring throughput (items/s): a synthetic rubric of 50 deterministic items (every
  check of the library) over ~10 MB of CSV / JSON / SQLite deliverables, scored `--repeat` times
  in-process (`verify_main.verify`) and as the shipped script (`python3 -I verify.py`, interpreter
  start and result files included);
* verifier start-to-reward latency per rollout in each sandbox backend, `--runs` times: in place
  (`verify_in_sandbox`: clear /logs/verifier, copy tests in, run, read, write back) and fresh
  (`verify_rollout`: copy the workspace out, start a new sandbox, load it, verify, stop), for the
  sales-summary fixture (6 items) and for the synthetic 50-item / 10 MB task.

Prints medians and p95s.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from skill2env.agent import OraclePolicy
from skill2env.rubric import Rubric, verify_in_sandbox, verify_rollout, write_bundle
from skill2env.rubric.bundle import verify_command
from skill2env.rubric.verify_main import verify
from skill2env.sandbox import BACKEND_NAMES, BackendName, SandboxLimits, TaskDir, make_sandbox

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "rubric_tasks" / "sales-summary"
CSV_FILES = 4
CSV_ROWS = 36_000
JSON_FILES = 4
JSON_RECORDS = 3_000
REGIONS = ["north", "south", "east", "west", "central"]


# -- the synthetic task -------------------------------------------------------------------------------


def _table(index: int, rng: random.Random) -> list[list[Any]]:
    rows = []
    for number in range(CSV_ROWS):
        units = rng.randint(1, 50)
        price = round(rng.uniform(1, 500), 2)
        day = f"2025-{(number % 12) + 1:02d}-{(number % 28) + 1:02d}"
        rows.append([f"INV-{index}-{number:06d}", REGIONS[number % 5], day, units, price, round(units * price, 2)])
    return rows


def make_workspace(workspace: Path, tests: Path) -> list[dict[str, Any]]:
    """~10 MB of deliverables in `workspace`, expected files in `tests`; returns the 50 rubric items."""
    rng = random.Random(7)
    out = workspace / "output"
    out.mkdir(parents=True)
    tests.mkdir(parents=True, exist_ok=True)
    columns = ["invoice", "region", "date", "units", "price", "amount"]
    items: list[dict[str, Any]] = []

    def add(check: str, params: dict[str, Any], **extra: Any) -> None:
        spec = {"check": check, "params": params, **extra}
        items.append(
            {"id": f"i{len(items):02d}_{check}", "description": check, "method": "deterministic", "check": spec}
        )

    totals = []
    for index in range(CSV_FILES):
        rows = _table(index, rng)
        totals.append(round(sum(r[5] for r in rows), 2))
        name = f"invoices_{index}.csv"
        for directory in (out, tests):
            with (directory / name).open("w", newline="") as handle:
                writer = csv.writer(handle, lineterminator="\n")
                writer.writerow(columns)
                writer.writerows(rows)
        path = f"output/{name}"
        add("csv_equals", {"path": path, "expected_file": name})
        add("csv_equals", {"path": path, "expected_file": name, "key_columns": ["invoice"], "tolerance": 0.01})
        add("row_count", {"path": path, "expected": CSV_ROWS})
        add(
            "text_matches", {"path": path, "pattern": r"^INV-\d+-\d{6},", "flags": ["MULTILINE"], "min_count": CSV_ROWS}
        )
        add("file_unchanged", {"path": path, "sha256": hashlib.sha256((out / name).read_bytes()).hexdigest()})
        summary = {"file": name, "total": totals[-1], "rows": CSV_ROWS, "regions": REGIONS}
        (out / f"summary_{index}.json").write_text(json.dumps(summary))
        sources = [
            {"path": f"output/summary_{index}.json", "json_path": "$.total"},
            {"path": path, "csv_column": "amount"},
        ]
        add("cross_file_consistent", {"sources": sources, "tolerance": 0.05})
    for index in range(JSON_FILES):
        records = [
            {
                "id": n,
                "region": REGIONS[n % 5],
                "amount": round(rng.uniform(1, 1000), 2),
                "tags": ["a", "b", str(n % 7)],
            }
            for n in range(JSON_RECORDS)
        ]
        document = {"report": index, "records": records, "count": len(records)}
        name = f"records_{index}.json"
        (out / name).write_text(json.dumps(document))
        (tests / name).write_text(json.dumps(document))
        path = f"output/{name}"
        add("json_equals", {"path": path, "expected_file": name, "tolerance": 0.001})
        add("json_path_equals", {"path": path, "values": {"$.count": JSON_RECORDS, "$.records[0].id": 0}})
        add(
            "json_path_equals",
            {"path": path, "json_path": "$.records[-1].region", "expected": REGIONS[(JSON_RECORDS - 1) % 5]},
        )
        add("row_count", {"path": path, "json_path": "$.records", "expected": JSON_RECORDS})
        add("text_contains", {"path": path, "contains": ['"report": ' + str(index), '"count": 3000']})
    database = out / "invoices.db"
    with sqlite3.connect(database) as db:
        db.execute("CREATE TABLE invoices (invoice TEXT, region TEXT, amount REAL)")
        with (out / "invoices_0.csv").open() as handle:
            reader = csv.DictReader(handle)
            db.executemany(
                "INSERT INTO invoices VALUES (?, ?, ?)", ((r["invoice"], r["region"], r["amount"]) for r in reader)
            )
    db.close()
    add("sql_query", {"path": "output/invoices.db", "query": "SELECT count(*) FROM invoices", "expected": CSV_ROWS})
    total_query = "SELECT round(sum(amount), 2) FROM invoices"
    add("sql_query", {"path": "output/invoices.db", "query": total_query, "expected": totals[0], "tolerance": 0.05})
    add("file_exists", {"path": "output/*.csv", "min_count": CSV_FILES, "min_bytes": 1000})
    add("file_absent", {"path": "output/*.tmp"})
    add("python", {"source": "def check(ws, args):\n    return (ws / 'output').is_dir()\n"})
    reads_json = (
        "import json\ndef check(ws, args):\n"
        "    return json.loads((ws / 'output/summary_0.json').read_text())['rows'] > 0\n"
    )
    add("python", {"source": reads_json})
    for extra in range(50 - len(items)):
        add("file_exists", {"path": f"output/summary_{extra % CSV_FILES}.json"})
    weight = 1.0 / len(items)
    for item in items:
        item["weight"] = weight
    return items


def synthetic_task(root: Path) -> tuple[TaskDir, Rubric, int]:
    """A Harbor task whose initial workspace already holds the deliverables (a nop agent 'solves' it)."""
    task_root = root / "synthetic-50"
    workspace = task_root / "environment" / "workspace"
    tests = task_root / "tests"
    items = make_workspace(workspace, tests)
    rubric = Rubric.model_validate({"items": items})
    write_bundle(tests, rubric)
    (task_root / "environment" / "Dockerfile").write_text(
        "FROM skill2env-base\nWORKDIR /workspace\nCOPY workspace/ /workspace/\n"
    )
    (task_root / "instruction.md").write_text("Nothing to do: the deliverables are in place.\n")
    (task_root / "task.toml").write_text(
        'version = "1.0"\n[verifier]\ntimeout_sec = 600.0\n[agent]\ntimeout_sec = 60.0\n'
        "[environment]\ncpus = 1\nmemory_mb = 2048\nstorage_mb = 512\n"
    )
    size = sum(p.stat().st_size for p in workspace.rglob("*") if p.is_file())
    return TaskDir(task_root), rubric, size


# -- measuring ------------------------------------------------------------------------------------------


def timed(action: Callable[[], object], repeat: int) -> list[float]:
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        seconds.append(time.perf_counter() - started)
    return seconds


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def perturb(workspace: Path, fraction: float = 0.01) -> None:
    """Change `fraction` of the amounts in every invoice table (the checks then compare cell by cell)."""
    rng = random.Random(11)
    for path in sorted((workspace / "output").glob("invoices_*.csv")):
        lines = path.read_text().splitlines(keepends=True)
        for number in rng.sample(range(1, len(lines)), int(fraction * (len(lines) - 1))):
            cells = lines[number].rstrip("\n").split(",")
            cells[-1] = f"{float(cells[-1]) + 1:.2f}"
            lines[number] = ",".join(cells) + "\n"
        path.write_text("".join(lines))


def throughput(task: TaskDir, rubric: Rubric, repeat: int, scratch: Path) -> None:
    document = json.loads((task.tests_dir / "rubric.json").read_text())
    results, _ = verify(document, task.workspace_dir, task.tests_dir)
    failing = [i["id"] for i in results["items"] if i["status"] != "passed"]
    if failing:
        raise SystemExit(f"the synthetic rubric should pass everywhere; not: {failing}")
    wrong = scratch / "perturbed"
    shutil.copytree(task.workspace_dir, wrong)
    perturb(wrong)
    count = len(rubric.items)
    print(f"deterministic scoring: {count} items over {workspace_mb(task.workspace_dir):.1f} MB, {repeat} repeats")
    print(f"{'what':<52}{'median s':>10}{'p95 s':>9}{'items/s':>10}")
    for label, workspace in (("all pass", task.workspace_dir), ("1% of table cells wrong", wrong)):
        in_process = timed(partial(verify, document, workspace, task.tests_dir), repeat)
        with tempfile.TemporaryDirectory() as out:
            command = [sys.executable, *verify_command(str(workspace), tests=str(task.tests_dir), out=out)[1:]]
            script = timed(partial(subprocess.run, command, check=True, capture_output=True), repeat)
        for what, values in ((f"{label}: in-process verify()", in_process), (f"{label}: python3 -I verify.py", script)):
            median = statistics.median(values)
            print(f"{what:<52}{median:>10.3f}{p95(values):>9.3f}{count / median:>10.0f}")
        results, _ = verify(document, workspace, task.tests_dir)
        slowest = sorted(results["items"], key=lambda i: -i["duration_s"])[:3]
        shown = ", ".join(f"{i['id']} {i['duration_s'] * 1000:.0f} ms" for i in slowest)
        counts = results["counts"]
        print(f"  slowest items: {shown}; statuses {counts}")


def workspace_mb(workspace: Path) -> float:
    return sum(p.stat().st_size for p in workspace.rglob("*") if p.is_file()) / 1e6


def latency(backend: BackendName, task: TaskDir, rubric: Rubric, runs: int, solve: bool) -> dict[str, list[float]]:
    limits = SandboxLimits.for_task(task)
    agent = make_sandbox(backend, limits)
    agent.start(task)  # builds the task image once, outside the measurement
    try:
        if solve:
            OraclePolicy().act(agent, task)

        def in_place() -> None:
            result = verify_in_sandbox(agent, task, rubric)
            if result.status != "scored":
                raise SystemExit(f"{backend}: {result.error}")

        def fresh() -> None:
            result = verify_rollout(agent, task, rubric, make_sandbox(backend, limits, reap=False))
            if result.status != "scored" or result.isolation != "fresh":
                raise SystemExit(f"{backend}: {result.error}")

        in_place()
        return {"in place": timed(in_place, runs), "fresh sandbox": timed(fresh, runs)}
    finally:
        agent.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="throughput repeats")
    parser.add_argument("--runs", type=int, default=5, help="latency runs per backend and mode")
    parser.add_argument("--backends", default="docker,bwrap")
    parser.add_argument("--skip-sandbox", action="store_true", help="throughput only")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="skill2env-rubric-bench-"))
    try:
        task, rubric, _ = synthetic_task(scratch)
        throughput(task, rubric, args.repeat, scratch)
        if args.skip_sandbox:
            return
        fixture = TaskDir(FIXTURE)
        fixture_rubric = Rubric.model_validate_json((fixture.tests_dir / "rubric.json").read_text())
        print(f"\nverifier start-to-reward latency per rollout, {args.runs} runs")
        print(f"{'backend / task / mode':<56}{'median s':>10}{'p95 s':>9}")
        backends: list[BackendName] = [b for b in BACKEND_NAMES if b in args.backends.split(",")]
        for backend in backends:
            cases = [
                ("sales-summary (6 items)", fixture, fixture_rubric, True),
                ("synthetic (50 items, 10 MB)", task, rubric, False),
            ]
            for label, case_task, case_rubric, solve in cases:
                for mode, values in latency(backend, case_task, case_rubric, args.runs, solve).items():
                    name = f"{backend} / {label} / {mode}"
                    print(f"{name:<56}{statistics.median(values):>10.3f}{p95(values):>9.3f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()

"""Content strategies: each only decides the final workspace's files, so it is built on the host from
a copy of the task's initial workspace (see `runner`), never by running anything.

Builders never change a file in place: they replace it (`_put` unlinks first) or give it an inode of
its own first (`chmod_lockout`), so candidates may share the initial workspace's files by hard links.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skill2env.validation.hack_probes.forge import (
    CONFTEST_PY,
    FORGED_RESULTS_JSON,
    FORGED_REWARD_JSON,
    HOOK_PY,
    SHIMMED_TOOLS,
    shim,
)
from skill2env.validation.hack_probes.instruction import TaskView

Builder = Callable[[Path, TaskView], None]
TEXT_SUFFIXES = (".md", ".txt", ".log", ".html", ".xml", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".env", ".py",
                 ".sh", ".sql")  # fmt: skip
DEEP = 200_000
ESCAPE_TARGETS = ("/tests/rubric.json", "/solution/solve.sh", "/proc/self/environ", "/logs/verifier/reward.json",
                  "/proc/self/root/tests/rubric.json", "/tests/eval_spec.json", "/etc/passwd")  # fmt: skip


def _put(ws: Path, relative: str, data: bytes | str) -> Path:
    path = ws / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def _leaves(template: Any, number: Callable[[int], Any], text: Callable[[int], Any], counter: list[int]) -> Any:
    """`template` with every number leaf from `number(i)` and every string leaf from `text(i)`."""
    if isinstance(template, dict):
        return {k: _leaves(v, number, text, counter) for k, v in template.items()}
    if isinstance(template, list):
        return [_leaves(v, number, text, counter) for v in template] or [text(counter[0])]
    counter[0] += 1
    if isinstance(template, bool):
        return template
    if isinstance(template, int | float):
        return number(counter[0])
    return text(counter[0])


def _json(view: TaskView, path: str, number: Callable[[int], Any], text: Callable[[int], Any]) -> Any:
    return _leaves(view.templates.get(path) or {}, number, text, [0])


def _header(view: TaskView, path: str) -> list[str]:
    return view.headers.get(path) or ["id", "value"]


def _pick(values: tuple[str, ...], i: int, default: str) -> str:
    return values[i % len(values)] if values else default


def _write_all(ws: Path, view: TaskView, csv_rows: Callable[[list[str]], list[list[str]]],
               number: Callable[[int], Any], text: Callable[[int], Any], prose: Callable[[], str]) -> None:  # fmt: skip
    for path in view.deliverables:
        if path.endswith((".csv", ".tsv")):
            header = _header(view, path)
            sep = "\t" if path.endswith(".tsv") else ","
            rows = [header, *csv_rows(header)]
            _put(ws, path, "".join(sep.join(map(str, row)) + "\n" for row in rows))
        elif path.endswith(".json"):
            _put(ws, path, json.dumps(_json(view, path, number, text), indent=1))
        elif path.endswith(".jsonl"):
            _put(ws, path, json.dumps(_json(view, path, number, text)) + "\n")
        else:
            _put(ws, path, prose())


def _labels(view: TaskView, value: str) -> str:
    return "".join(f"{label}: {value}\n" for label in view.labels)


def empty_deliverables(ws: Path, view: TaskView) -> None:
    for path in view.deliverables:
        _put(ws, path, b"")


def skeleton_deliverables(ws: Path, view: TaskView) -> None:
    """The formats the instruction spells out, holding nothing: headers only, placeholders as 0 / "x"."""
    _write_all(ws, view, lambda header: [], lambda i: 0, lambda i: "x",
               lambda: "# Report\n\n" + _labels(view, "0") + "Done.\n")  # fmt: skip


def example_values(ws: Path, view: TaskView) -> None:
    """Every slot filled with values the instruction itself shows (its numbers and identifiers)."""
    numbers, tokens = view.numbers or ("0",), view.tokens or ("x",)

    def rows(header: list[str]) -> list[list[str]]:
        return [[_pick(numbers if c % 2 else tokens, r + c, "0") for c in range(len(header))] for r in range(20)]

    def number(i: int) -> float:
        return float(_pick(numbers, i, "0"))

    prose = "\n".join([*(_labels(view, n) for n in numbers[:20]), " ".join(numbers), " ".join(tokens[:200])])
    _write_all(ws, view, rows, number, lambda i: _pick(tokens, i, "x"), lambda: prose + "\n")


def keyword_stuffing(ws: Path, view: TaskView) -> None:
    """Text deliverables hold the instruction and every text input; tables every input row; lists every id."""
    lines = [line for line in view.corpus.splitlines() if line.count(",") >= 1][:5000]

    def rows(header: list[str]) -> list[list[str]]:
        return [[line] for line in lines]

    def text(i: int) -> Any:
        return list(view.tokens) if i % 2 else " ".join(view.tokens)

    _write_all(ws, view, rows, lambda i: 0, text, lambda: view.corpus + "\n" + " ".join(view.tokens) + "\n")


def copy_inputs(ws: Path, view: TaskView) -> None:
    """Each deliverable is a copy of an input of the same kind (or of the first input)."""
    for path in view.deliverables:
        suffix = Path(path).suffix
        source = next((i for i in view.inputs if i.endswith(suffix)), view.inputs[0] if view.inputs else None)
        if source is not None:
            _put(ws, path, (ws / source).read_bytes())


def non_finite_numbers(ws: Path, view: TaskView) -> None:
    values = ("NaN", "Infinity", "-Infinity", "nan", "inf")
    _write_all(ws, view, lambda h: [[_pick(values, r + c, "NaN") for c in range(len(h))] for r in range(10)],
               lambda i: [math_nan, math_inf, -math_inf][i % 3], lambda i: "NaN",
               lambda: _labels(view, "NaN") or "NaN\n")  # fmt: skip


math_nan, math_inf = float("nan"), float("inf")


def huge_numbers(ws: Path, view: TaskView) -> None:
    huge = str(10**400)
    for path in view.deliverables:
        if path.endswith(".json"):
            text = json.dumps(_json(view, path, lambda i: 123456789, lambda i: "x")).replace("123456789", huge)
            _put(ws, path, text)
        elif path.endswith((".csv", ".tsv")):
            header = _header(view, path)
            _put(ws, path, ",".join(header) + "\n" + ",".join([huge, "1e999", "-1e999", "9" * 5000][:len(header)]
                                                               + [huge] * (len(header) - 4)) + "\n")  # fmt: skip
        else:
            _put(ws, path, _labels(view, huge) + huge + "\n")


def deep_nesting(ws: Path, view: TaskView) -> None:
    for path in view.deliverables:
        if path.endswith((".json", ".jsonl")):
            _put(ws, path, "[" * DEEP + "]" * DEEP)
        else:
            _put(ws, path, "(" * DEEP + "\n" + "," * DEEP + "\n")


def invalid_encoding(ws: Path, view: TaskView) -> None:
    bad = b"\xff\xfe\x00\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc\x00\x00"
    for i, path in enumerate(view.deliverables):
        body = (",".join(_header(view, path)) + "\n").encode() if path.endswith(".csv") else b"{"
        _put(ws, path, ("\ufeff" + body.decode()).encode("utf-16") if i % 2 else body + bad * 64)


def binary_garbage(ws: Path, view: TaskView) -> None:
    noise = random.Random(0x5EED)  # noqa: S311 — reproducible noise, not a secret
    for path in view.deliverables:
        _put(ws, path, noise.randbytes(1 << 16))


def directory_deliverables(ws: Path, view: TaskView) -> None:
    for path in view.deliverables:
        target = ws / path
        if target.exists() or target.is_symlink():
            target.unlink() if not target.is_dir() else shutil.rmtree(target)
        target.mkdir(parents=True)
        (target / Path(path).name).write_text("0\n")


def fifo_deliverables(ws: Path, view: TaskView) -> None:
    for path in view.deliverables:
        target = ws / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        os.mkfifo(target)


def _link(ws: Path, path: str, target: str) -> None:
    link = ws / path
    link.parent.mkdir(parents=True, exist_ok=True)
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.is_dir():
        return  # an input folder of that name stays
    link.symlink_to(target)


def symlink_escape(ws: Path, view: TaskView) -> None:
    """Deliverables that are links to the verifier's files, the solution, /proc and the reward file."""
    for i, path in enumerate(view.deliverables):
        _link(ws, path, ESCAPE_TARGETS[i % len(ESCAPE_TARGETS)])
    _link(ws, "tests", "/tests")
    _link(ws, "solution", "/solution")


def symlink_to_inputs(ws: Path, view: TaskView) -> None:
    for path in view.deliverables:
        suffix = Path(path).suffix
        source = next((i for i in view.inputs if i.endswith(suffix)), view.inputs[0] if view.inputs else None)
        if source is not None:
            _link(ws, path, os.path.relpath(ws / source, (ws / path).parent))


def verifier_files_in_workspace(ws: Path, view: TaskView) -> None:
    """A verifier of its own, reward and result files wherever a reader might look in the workspace."""
    item = {"id": "ok", "description": "ok", "weight": 1.0, "method": "deterministic",
            "check": {"check": "file_exists", "params": {"path": "."}}}  # fmt: skip
    rubric = {"items": [item], "pass_threshold": 0.0}
    for folder in ("", "tests/", "logs/verifier/", "output/", ".skill2env/"):
        _put(ws, folder + "reward.json", FORGED_REWARD_JSON)
        _put(ws, folder + "reward.txt", "1\n")
        _put(ws, folder + "results.json", FORGED_RESULTS_JSON)
    _put(ws, "tests/rubric.json", json.dumps(rubric))
    _put(ws, "tests/test.sh", "#!/bin/sh\nmkdir -p /logs/verifier\necho 1 > /logs/verifier/reward.txt\n").chmod(0o755)
    _put(ws, "tests/verify.py", HOOK_PY + "_skill2env_probe_forge()\n")


def python_hooks(ws: Path, view: TaskView) -> None:
    """Startup hooks and stdlib look-alikes that forge the outputs if any Python imports them."""
    # pytest.py and unittest.py: `python3 -m pytest` from the workspace runs the workspace's look-alike,
    # whose exit status 0 reads as every test passing; pytest run on tests in the workspace loads its
    # conftest.py, which sets the exit status to 0
    modules = ("sitecustomize.py", "usercustomize.py", "conftest.py", "json.py", "re.py", "csv.py", "math.py",
               "pathlib.py", "decimal.py", "fnmatch.py", "pytest.py", "unittest.py", "rubric_checks/__init__.py",
               "checks/__init__.py", "verify.py")  # fmt: skip
    folders = {"", *(str(Path(p).parent) + "/" for p in view.deliverables if Path(p).parent != Path())}
    for folder in folders:
        for module in modules:
            _put(ws, folder + module, CONFTEST_PY if module == "conftest.py" else HOOK_PY)
        _put(ws, folder + "zz_skill2env_probe.pth", "import sitecustomize\n")
    _put(ws, "pytest.ini", "[pytest]\naddopts = --collect-only -q\n")  # nothing runs, exit status 0
    _put(ws, "lib/python3.11/site-packages/sitecustomize.py", HOOK_PY)


def workspace_tool_shims(ws: Path, view: TaskView) -> None:
    """Executables named like the verifier's tools in every bin-like folder of the workspace."""
    for folder in ("", "bin/", ".local/bin/", ".venv/bin/", "node_modules/.bin/", "tests/"):
        for tool in SHIMMED_TOOLS:
            _put(ws, folder + tool, shim(tool)).chmod(0o755)
    _put(ws, ".envrc", "export PATH=$PWD/bin:$PATH\n")
    _put(ws, ".bashrc", "export PATH=$PWD/bin:$PATH\n")


def delete_inputs(ws: Path, view: TaskView) -> None:
    """The inputs the verifier may compare against are gone; only the skeletons are left."""
    for relative in view.inputs:
        (ws / relative).unlink(missing_ok=True)
    skeleton_deliverables(ws, view)


def chmod_lockout(ws: Path, view: TaskView) -> None:
    """Skeleton deliverables and every input unreadable (mode 000), folders closed."""
    skeleton_deliverables(ws, view)
    paths = sorted(ws.rglob("*"), key=lambda p: len(p.parts), reverse=True)
    for path in paths:
        if path.is_symlink():
            continue
        if path.is_file():  # an inode of its own first: the file may be a hard link shared with other candidates
            own = path.with_name(f".{path.name}.own")
            shutil.copy2(path, own)
            own.replace(path)
        path.chmod(0)


BUILDERS: dict[str, Builder] = {
    "empty_deliverables": empty_deliverables,
    "skeleton_deliverables": skeleton_deliverables,
    "example_values": example_values,
    "keyword_stuffing": keyword_stuffing,
    "copy_inputs": copy_inputs,
    "non_finite_numbers": non_finite_numbers,
    "huge_numbers": huge_numbers,
    "deep_nesting": deep_nesting,
    "invalid_encoding": invalid_encoding,
    "binary_garbage": binary_garbage,
    "directory_deliverables": directory_deliverables,
    "fifo_deliverables": fifo_deliverables,
    "symlink_escape": symlink_escape,
    "symlink_to_inputs": symlink_to_inputs,
    "verifier_files_in_workspace": verifier_files_in_workspace,
    "python_hooks": python_hooks,
    "workspace_tool_shims": workspace_tool_shims,
    "delete_inputs": delete_inputs,
    "chmod_lockout": chmod_lockout,
}

ADDITIVE: tuple[str, ...] = ("verifier_files_in_workspace", "python_hooks", "workspace_tool_shims")
"""Strategies that only add files no other writes and decide no deliverable: they share one candidate."""

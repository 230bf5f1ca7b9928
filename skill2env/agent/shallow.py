"""A shallow solver: the scripted baseline of a task no world kit serves (a model-authored one).

A world kit ships a naive solver for its own tasks; a model-authored task has none, so without a
model its baseline would be an empty rollout. The shallow solver stands in for it: it does what
a hurried agent does, and nothing more. It reads the instruction and the workspace, takes the
deliverables from the rubric's target files (what each item reads, never what it expects), and
writes each in the format its checks and the instruction ask for:

* JSON: an object with the keys the checks address (`$.a.b` paths, an expected document's top
  keys), each holding an empty value of the kind expected (0, "", [], {}, false, null);
* CSV / TSV: the header only, taken from the expected table's header where the rubric names one
  (`columns`, an expected file's first line, an inline table), else a backquoted column list the
  instruction gives next to the file's name;
* Markdown: a title and the headings the instruction names (backquoted `# …` lines), no content;
* any other text file: one line saying it was not analysed.

Inputs (files the workspace already has) are never touched, binary formats (xlsx, sqlite, …) are
not attempted. Its score is what format alone earns: above a nop's where a rubric checks format,
far from full credit where it checks results.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from skill2env.rubric import Rubric
from skill2env.rubric.eval_spec import load_eval_spec
from skill2env.sandbox import TaskDir

RUBRIC_FILE = "rubric.json"
EVAL_SPEC_FILE = "eval_spec.json"
INPUT_CHECKS = frozenset({"file_unchanged", "file_absent"})
"""Checks whose paths are inputs or must not exist: never a deliverable."""
TEXT_SUFFIXES = frozenset({".json", ".csv", ".tsv", ".md", ".markdown", ".txt", ".yaml", ".yml", ".jsonl", ".log"})
NOT_ANALYSED = "Not analysed."
_BACKQUOTED = re.compile(r"`([^`\n]+)`")
_JSON_KEY = re.compile(r"^[A-Za-z_][\w-]*$")


@dataclass(frozen=True)
class ShallowFile:
    path: str
    """Relative to the workspace."""
    content: str


def shallow_deliverables(task: TaskDir) -> list[ShallowFile]:
    """The files the shallow solver writes for `task` (empty when its rubric is unreadable)."""
    try:
        if (task.tests_dir / RUBRIC_FILE).is_file():
            rubric = Rubric.model_validate_json((task.tests_dir / RUBRIC_FILE).read_text(encoding="utf-8"))
        else:  # a task the Skill2Env authors published
            rubric = load_eval_spec(task.tests_dir / EVAL_SPEC_FILE)
    except (OSError, ValueError):
        return []
    instruction = task.instruction.read_text(errors="replace") if task.instruction.is_file() else ""
    inputs = _workspace_files(task.workspace_dir)
    specs = _check_params_by_path(rubric)
    files = []
    for path in deliverable_paths(rubric):
        if path in inputs:
            continue
        content = _content(path, specs.get(path, []), instruction, task.tests_dir)
        if content is not None:
            files.append(ShallowFile(path, content))
    return files


def deliverable_paths(rubric: Rubric) -> list[str]:
    """Workspace paths the rubric's items read, in order: target files and checks' `path`s, without
    globs, folders, and the paths of checks on inputs (`file_unchanged`, `file_absent`)."""
    paths: list[str] = []
    for item in rubric.items:
        if item.check is not None and item.check.check in INPUT_CHECKS:
            continue
        named = [*item.target_files]
        if item.check is not None and isinstance(item.check.params.get("path"), str):
            named.append(item.check.params["path"])
        for path in named:
            clean = _relative(path)
            if clean and clean not in paths:
                paths.append(clean)
    return paths


def _relative(path: str) -> str | None:
    text = path.strip().removeprefix("/workspace/")
    while text.startswith("./"):
        text = text[2:]
    if not text or text.startswith("/") or text.endswith("/") or any(c in text for c in "*?[]"):
        return None
    if ".." in PurePosixPath(text).parts:
        return None
    return text


def _workspace_files(root: Path) -> set[str]:
    if not root.is_dir():
        return set()
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def _check_params_by_path(rubric: Rubric) -> dict[str, list[tuple[str, Mapping[str, Any]]]]:
    """Deliverable path → (check name, params) of every deterministic check on it."""
    found: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for item in rubric.items:
        if item.check is None:
            continue
        path = item.check.params.get("path")
        targets = [path] if isinstance(path, str) else list(item.target_files)
        for target in targets:
            clean = _relative(target)
            if clean:
                found.setdefault(clean, []).append((item.check.check, item.check.params))
    return found


def _content(path: str, checks: list[tuple[str, Mapping[str, Any]]], instruction: str, tests_dir: Path) -> str | None:
    suffix = PurePosixPath(path).suffix.lower()
    if suffix not in TEXT_SUFFIXES:
        return None
    if suffix == ".json":
        return json.dumps(_json_skeleton(checks), indent=2) + "\n"
    if suffix in (".csv", ".tsv"):
        delimiter = "\t" if suffix == ".tsv" else ","
        header = _csv_header(path, checks, instruction, tests_dir, delimiter)
        if not header:
            return ""
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerow(header)
        return out.getvalue()
    if suffix in (".md", ".markdown"):
        return _markdown(path, instruction)
    if suffix == ".jsonl":
        return ""
    return NOT_ANALYSED + "\n"


# --- JSON ----------------------------------------------------------------------------------------


def _json_skeleton(checks: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for name, params in checks:
        if name == "json_path_equals":
            paths = dict(params.get("values") or {})
            if isinstance(params.get("json_path"), str):
                paths[params["json_path"]] = params.get("expected")
            for json_path, expected in paths.items():
                _place(document, _path_keys(str(json_path)), expected)
        elif name == "json_equals" and isinstance(params.get("expected"), dict):
            for key, expected in params["expected"].items():
                document.setdefault(str(key), _empty_like(expected))
    return document


def _path_keys(json_path: str) -> list[str | None]:
    """`$.a.b` → ["a", "b"]; a segment with an index or wildcard ends the path as a list (None)."""
    text = json_path.strip().removeprefix("$").lstrip(".")
    keys: list[str | None] = []
    for part in re.split(r"\.(?![^\[]*\])", text):
        name = part.split("[", 1)[0]
        if name and name != "*":
            keys.append(name.strip("'\""))
        if "[" in part or name == "*":
            keys.append(None)
            break
    return keys


def _place(document: dict[str, Any], keys: list[str | None], expected: Any) -> None:
    here: Any = document
    for index, key in enumerate(keys):
        if key is None or not isinstance(here, dict):
            return
        last = index == len(keys) - 1
        following = keys[index + 1] if not last else None
        if last:
            here.setdefault(key, _empty_like(expected))
        elif following is None:
            here.setdefault(key, [])
            return
        else:
            here = here.setdefault(key, {})


def _empty_like(value: Any) -> Any:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return 0
    if isinstance(value, str):
        return ""
    if isinstance(value, list):
        return []
    if isinstance(value, dict):
        return {}
    return None


# --- CSV -----------------------------------------------------------------------------------------


def _csv_header(path: str, checks: Iterable[tuple[str, Mapping[str, Any]]], instruction: str, tests_dir: Path,
                delimiter: str) -> list[str]:  # fmt: skip
    for _, params in checks:
        header = _expected_header(params, tests_dir, delimiter)
        if header:
            return header
    return _instruction_columns(path, instruction, delimiter)


def _expected_header(params: Mapping[str, Any], tests_dir: Path, delimiter: str) -> list[str]:
    """The expected table's header (its first line only, never its rows), or the compared columns."""
    expected = params.get("expected")
    if isinstance(expected, dict) and isinstance(expected.get("columns"), list):
        return [str(c) for c in expected["columns"]]
    if isinstance(expected, list) and expected and isinstance(expected[0], dict):
        return [str(c) for c in expected[0]]
    if isinstance(params.get("expected_csv"), str):
        return _first_row(params["expected_csv"], str(params.get("delimiter") or delimiter))
    name = params.get("expected_file")
    if isinstance(name, str) and _relative(name):
        try:
            with (tests_dir / name).open(encoding="utf-8", errors="replace") as handle:
                return _first_row(handle.readline(), str(params.get("delimiter") or delimiter))
        except OSError:
            pass
    columns = params.get("columns")
    if isinstance(columns, list) and columns:
        return [str(c) for c in columns]
    return []


def _first_row(text: str, delimiter: str) -> list[str]:
    rows = list(csv.reader(io.StringIO(text.splitlines()[0] if text.strip() else ""), delimiter=delimiter))
    return [cell.strip() for cell in rows[0]] if rows else []


def _instruction_columns(path: str, instruction: str, delimiter: str) -> list[str]:
    """A backquoted column list (`a,b,c`) on the instruction's lines that name the file."""
    name = PurePosixPath(path).name
    for line in _lines_naming(name, instruction):
        for quoted in _BACKQUOTED.findall(line):
            cells = [c.strip() for c in quoted.split(delimiter)]
            if len(cells) > 1 and all(re.fullmatch(r"[\w .()%/-]+", c) for c in cells) and name not in quoted:
                return cells
    return []


def _lines_naming(name: str, instruction: str) -> list[str]:
    """The instruction's paragraphs-worth of lines from each mention of `name` (a mention and the
    two lines after it, where a list item continues)."""
    lines = instruction.splitlines()
    found = []
    for index, line in enumerate(lines):
        if name in line:
            found.append(" ".join(lines[index : index + 3]))
    return found


# --- Markdown ------------------------------------------------------------------------------------


def _markdown(path: str, instruction: str) -> str:
    title = PurePosixPath(path).stem.replace("_", " ").replace("-", " ").strip().capitalize() or "Report"
    headings = []
    for line in _lines_naming(PurePosixPath(path).name, instruction):
        for quoted in _BACKQUOTED.findall(line):
            if re.fullmatch(r"#{1,6} \S.*", quoted.strip()) and quoted.strip() not in headings:
                headings.append(quoted.strip())
    body = [f"# {title}", "", NOT_ANALYSED, ""]
    for heading in headings:
        body += [heading, "", NOT_ANALYSED, ""]
    return "\n".join(body)

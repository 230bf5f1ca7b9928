"""What an agent can know of a task without solving it: the instruction and the initial workspace.

The hack probes build their fakes from this alone (never from the rubric): file names and formats
mentioned in the instruction, the CSV headers and JSON skeletons it spells out, its example values,
and the identifiers the workspace's text files hold.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

EXTENSIONS = ("csv", "tsv", "json", "jsonl", "md", "txt", "log", "yaml", "yml", "toml", "html", "xml", "xlsx",
              "docx", "pdf", "db", "sqlite", "sql", "py", "sh", "ini", "cfg", "env", "excalidraw", "mmd")  # fmt: skip
PATH_RE = re.compile(r"(?<![\w/.-])(/?[\w][\w./-]*\.(?:" + "|".join(EXTENSIONS) + r"))(?![\w])")
HEADER_RE = re.compile(r"`([A-Za-z_][\w ]*(?:,[A-Za-z_][\w ]*)+)`")
CODE_RE = re.compile(r"```[a-z]*\n(.*?)```|`(\{[^`]*\})`", re.DOTALL)
NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
TOKEN_RE = re.compile(r"\b[A-Z][A-Z0-9]*(?:[-_/][A-Z0-9]+)+\b|\b[A-Z]{1,4}\d{1,6}\b")
LABEL_RE = re.compile(r"`([A-Z][\w ]{2,40}):\s*<[^>`]*>`")
FALLBACK_DELIVERABLES = ("output/result.json", "output/report.md", "output/result.csv")
STUFF_CAP_BYTES = 200_000
"""How much workspace text a stuffed deliverable carries at most."""


@dataclass(frozen=True)
class TaskView:
    """The agent-visible facts the probes work from."""

    instruction: str
    workdir: str
    inputs: tuple[str, ...]
    """Relative paths of the initial workspace's files."""
    deliverables: tuple[str, ...]
    """Relative paths the instruction names that the workspace does not hold yet."""
    headers: dict[str, list[str]] = field(default_factory=dict)
    templates: dict[str, object] = field(default_factory=dict)
    labels: tuple[str, ...] = ()
    """`Label: <...>` lines the instruction asks a text deliverable to hold."""
    numbers: tuple[str, ...] = ()
    tokens: tuple[str, ...] = ()
    """Identifiers (INV-2024-0001, R3, CHG-7703…) from the instruction and the workspace's text."""
    corpus: str = ""
    """The instruction and the workspace's text files, capped."""


def relative_path(mention: str, workdir: str) -> str | None:
    """A mentioned path relative to the workspace; None for one outside it (another absolute path)."""
    if mention.startswith("/"):
        prefix = workdir.rstrip("/") + "/"
        return mention[len(prefix) :] if mention.startswith(prefix) else None
    return mention.removeprefix("./")


def read_view(instruction: str, workspace: Path, workdir: str) -> TaskView:
    inputs = tuple(sorted(p.relative_to(workspace).as_posix() for p in workspace.rglob("*") if p.is_file()))
    mentions: list[tuple[int, str]] = []
    for match in PATH_RE.finditer(instruction):
        relative = relative_path(match.group(1), workdir)
        if relative and not relative.startswith("skills/") and ".." not in relative.split("/"):
            mentions.append((match.start(), relative))
    deliverables = tuple(dict.fromkeys(p for _, p in mentions if p not in inputs and not _is_input_dir(p, inputs)))
    deliverables = deliverables or FALLBACK_DELIVERABLES
    headers, templates = {}, {}
    for path in deliverables:
        segment = _segment(instruction, mentions, path)
        if path.endswith((".csv", ".tsv")):
            found = HEADER_RE.search(segment) or HEADER_RE.search(instruction)
            if found:
                headers[path] = [c.strip() for c in found.group(1).split(",")]
        elif path.endswith((".json", ".jsonl")):
            templates[path] = _template(segment) or _template(instruction) or {}
    corpus = _corpus(instruction, workspace, inputs)
    return TaskView(
        instruction=instruction,
        workdir=workdir,
        inputs=inputs,
        deliverables=deliverables,
        headers=headers,
        templates=templates,
        labels=tuple(dict.fromkeys(LABEL_RE.findall(instruction))),
        numbers=tuple(dict.fromkeys(NUMBER_RE.findall(instruction))),
        tokens=tuple(dict.fromkeys(TOKEN_RE.findall(corpus)))[:2000],
        corpus=corpus,
    )


def _is_input_dir(path: str, inputs: tuple[str, ...]) -> bool:
    return any(i.startswith(path.rstrip("/") + "/") for i in inputs)


def _segment(instruction: str, mentions: list[tuple[int, str]], path: str) -> str:
    """The instruction's text from the first mention of `path` to the next mention of another path."""
    starts = [pos for pos, p in mentions if p == path]
    if not starts:
        return ""
    later = [pos for pos, p in mentions if pos > starts[0] and p != path]
    return instruction[starts[0] : min(later) if later else len(instruction)]


def _template(text: str) -> object | None:
    """The first JSON skeleton in `text` made parseable: placeholders become 0 or "x", ellipses go."""
    for match in CODE_RE.finditer(text):
        body = match.group(1) or match.group(2) or ""
        if "{" not in body:
            continue
        body = body[body.index("{") :]
        body = re.sub(r'"<[^>"]*>"', '"x"', body)
        body = re.sub(r"<[^>]*>", "0", body)
        body = re.sub(r",?\s*\.\.\.\s*", "", body)
        body = re.sub(r",\s*([}\]])", r"\1", body)
        try:
            return json.loads(body)
        except ValueError:
            keys = re.findall(r'"(\w+)"\s*:', body)
            if keys:
                return dict.fromkeys(keys, 0)
    return None


def _corpus(instruction: str, workspace: Path, inputs: tuple[str, ...]) -> str:
    parts, size = [instruction], len(instruction)
    for relative in inputs:
        path = workspace / relative
        try:
            text = path.read_bytes()[:STUFF_CAP_BYTES].decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if size + len(text) > STUFF_CAP_BYTES:
            break
        parts.append(text)
        size += len(text)
    return "\n".join(parts)

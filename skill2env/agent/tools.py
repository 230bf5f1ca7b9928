"""The solver's tools — bash, read_file, write_file, list_dir, finish — and running them in a sandbox.

Every tool runs as a command of the unprivileged agent user (`Sandbox.exec`), so a tool can do
exactly what the agent's own shell could: files outside its reach stay outside, and a link in
the workspace cannot make the engine write where the agent may not (the sandbox's privileged
`write_file` could). What a call returns is the observation the model sees, truncated to a
head and a tail with the cut marked.

Failures of a call (invalid arguments, a missing file, a command killed at its timeout) are
observations with `is_error`; failures of the sandbox itself propagate as `SandboxError`s.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from skill2env.llm import Tool
from skill2env.llm.structured import validation_errors
from skill2env.sandbox import ExecResult, Sandbox, SandboxTimeout

OBSERVATION_CHARS = 16_000
"""Default cap on one observation: a head and a tail of this many characters together."""
DEFAULT_COMMAND_TIMEOUT_S = 60.0
MAX_COMMAND_TIMEOUT_S = 1800.0
WRITE_CHUNK_BYTES = 64 * 1024
"""Content per command when writing a file: its base64 stays under Linux's 128 KiB limit per argument."""
NEAR_LINE_BREAK = 200
"""A cut moves to a line break this close, so kept lines stay whole."""


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BashArgs(_Arguments):
    command: str = Field(description="A bash command line. It runs in the workspace as the agent user.")
    timeout: float = Field(
        DEFAULT_COMMAND_TIMEOUT_S,
        gt=0,
        le=MAX_COMMAND_TIMEOUT_S,
        description="Seconds before the command is killed.",
    )


class ReadFileArgs(_Arguments):
    path: str = Field(description="The file to read; relative paths start at the workspace.")


class WriteFileArgs(_Arguments):
    path: str = Field(description="The file to create or replace; relative paths start at the workspace.")
    content: str = Field(description="The file's entire new content.")


class ListDirArgs(_Arguments):
    path: str = Field(".", description="The directory to list; relative paths start at the workspace.")


class FinishArgs(_Arguments):
    message: str = Field("", description="Your final answer, or a short summary of what you did.")


class AgentTool(Tool):
    """A tool whose arguments the agent loop validates itself, so invalid ones become an error
    observation in the trajectory instead of a hidden repair round inside the model client."""

    def check(self, arguments: dict[str, Any]) -> tuple[BaseModel | None, list[str]]:
        return None, []


BASH = AgentTool.from_model("bash", "Run a bash command in the sandbox and see its output and exit code.", BashArgs)
READ_FILE = AgentTool.from_model("read_file", "Read a text file.", ReadFileArgs)
WRITE_FILE = AgentTool.from_model(
    "write_file", "Create or overwrite a text file (parent directories are created).", WriteFileArgs
)
LIST_DIR = AgentTool.from_model("list_dir", "List a directory (like `ls -lA`).", ListDirArgs)
FINISH = AgentTool.from_model("finish", "End the task: call it once the work is done.", FinishArgs)
AGENT_TOOLS: tuple[Tool, ...] = (BASH, READ_FILE, WRITE_FILE, LIST_DIR, FINISH)
TOOL_ARGUMENTS: dict[str, type[BaseModel]] = {
    tool.name: tool.model for tool in AGENT_TOOLS if tool.model is not None
}  # fmt: skip


@dataclass(frozen=True)
class ToolOutcome:
    """What one call did: the observation the model sees, and how it went."""

    content: str
    is_error: bool = False
    finished: bool = False
    """The call was `finish`."""
    exit_code: int | None = None
    truncated: bool = False
    duration_s: float = 0.0


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """`text` cut to about `limit` characters: its head and its tail, the cut marked with what it
    removed. Cuts move to a nearby line break so kept lines stay whole. Returns (text, cut?)."""
    if len(text) <= limit:
        return text, False
    head_end = limit // 2
    tail_start = len(text) - (limit - head_end)
    newline = text.rfind("\n", max(0, head_end - NEAR_LINE_BREAK), head_end)
    if newline != -1:
        head_end = newline + 1
    newline = text.find("\n", tail_start, tail_start + NEAR_LINE_BREAK)
    if newline != -1:
        tail_start = newline + 1
    removed = text[head_end:tail_start]
    marker = f"\n[... {len(removed)} characters ({removed.count(chr(10))} lines) cut ...]\n"
    return text[:head_end] + marker + text[tail_start:], True


class ToolRunner:
    """Runs the agent's tool calls in one started sandbox (blocking: call it off the event loop)."""

    def __init__(
        self,
        sandbox: Sandbox,
        *,
        observation_chars: int = OBSERVATION_CHARS,
        command_timeout_s: float = MAX_COMMAND_TIMEOUT_S,
    ) -> None:
        self.sandbox = sandbox
        self.observation_chars = observation_chars
        self.command_timeout_s = command_timeout_s
        self._time_left = float("inf")

    def run(self, name: str, arguments: Mapping[str, Any], *, time_left: float = float("inf")) -> ToolOutcome:
        """Run one call, its commands cut off after `time_left` seconds (the agent's remaining time).

        Raises the sandbox's own failures (`SandboxError`s other than a command's timeout).
        """
        self._time_left = time_left
        model = TOOL_ARGUMENTS.get(name)
        if model is None:
            return ToolOutcome(f"error: unknown tool {name!r}; the tools are {sorted(TOOL_ARGUMENTS)}", is_error=True)
        try:
            args = model.model_validate(dict(arguments))
        except ValidationError as exc:
            problems = "; ".join(validation_errors(exc))
            return ToolOutcome(f"error: invalid arguments for {name}: {problems}", is_error=True)
        started = time.monotonic()
        outcome = self._dispatch(args)
        content, cut = truncate(outcome.content, self.observation_chars)
        return ToolOutcome(
            content,
            is_error=outcome.is_error,
            finished=outcome.finished,
            exit_code=outcome.exit_code,
            truncated=cut,
            duration_s=time.monotonic() - started,
        )

    def _dispatch(self, args: BaseModel) -> ToolOutcome:
        if isinstance(args, BashArgs):
            return self._bash(args)
        if isinstance(args, ReadFileArgs):
            return self._read(args)
        if isinstance(args, WriteFileArgs):
            return self._write(args)
        if isinstance(args, ListDirArgs):
            return self._list(args)
        if isinstance(args, FinishArgs):
            return ToolOutcome(args.message or "finished", finished=True)
        raise TypeError(f"no handler for {type(args).__name__}")  # pragma: no cover - TOOL_ARGUMENTS is closed

    def _timeout(self, requested: float) -> float:
        return max(0.001, min(requested, self.command_timeout_s, self._time_left))

    def _exec(self, cmd: str | list[str], timeout: float) -> tuple[ExecResult, bool]:
        """(result, killed at its timeout)."""
        try:
            return self.sandbox.exec(cmd, timeout=self._timeout(timeout)), False
        except SandboxTimeout as exc:
            return exc.result, True

    def _bash(self, args: BashArgs) -> ToolOutcome:
        result, killed = self._exec(args.command, args.timeout)
        text = _output(result)
        if killed:
            text += f"\n[the command ran past its {self._timeout(args.timeout):g} s timeout and was killed]"
        else:
            text += f"\n[exit code {result.exit_code}]"
        return ToolOutcome(text, is_error=killed, exit_code=result.exit_code)

    def _read(self, args: ReadFileArgs) -> ToolOutcome:
        result, killed = self._exec(["cat", "--", args.path], DEFAULT_COMMAND_TIMEOUT_S)
        if killed or result.exit_code != 0:
            return _failed(f"reading {args.path}", result, killed)
        note = "\n[the file is longer than the sandbox's output limit; the rest was not read]"
        return ToolOutcome(result.stdout + (note if result.output_truncated else ""), exit_code=0)

    def _write(self, args: WriteFileArgs) -> ToolOutcome:
        data = args.content.encode()
        chunks = [data[i : i + WRITE_CHUNK_BYTES] for i in range(0, len(data), WRITE_CHUNK_BYTES)] or [b""]
        for index, chunk in enumerate(chunks):
            redirect = ">" if index == 0 else ">>"
            script = f'mkdir -p -- "$(dirname -- "$1")" && printf %s "$2" | base64 -d {redirect} "$1"'
            payload = base64.b64encode(chunk).decode()
            result, killed = self._exec(["bash", "-c", script, "write_file", args.path, payload], 60.0)
            if killed or result.exit_code != 0:
                return _failed(f"writing {args.path}", result, killed)
        return ToolOutcome(f"wrote {len(data)} bytes to {args.path}", exit_code=0)

    def _list(self, args: ListDirArgs) -> ToolOutcome:
        result, killed = self._exec(["ls", "-lA", "--", args.path], DEFAULT_COMMAND_TIMEOUT_S)
        if killed or result.exit_code != 0:
            return _failed(f"listing {args.path}", result, killed)
        return ToolOutcome(result.stdout or "(empty directory)", exit_code=0)


def _output(result: ExecResult) -> str:
    parts = [result.stdout.rstrip("\n")] if result.stdout else []
    if result.stderr:
        parts.append("[stderr]\n" + result.stderr.rstrip("\n"))
    if result.output_truncated:
        parts.append("[output beyond the sandbox's limit was dropped]")
    return "\n".join(parts) if parts else "(no output)"


def _failed(what: str, result: ExecResult, killed: bool) -> ToolOutcome:
    reason = "it timed out" if killed else (result.stderr.strip() or f"exit code {result.exit_code}")
    return ToolOutcome(f"error: {what} failed: {reason}", is_error=True, exit_code=result.exit_code)

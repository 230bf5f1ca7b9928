"""What every check shares: its result, its failures, the registry, workspace paths and bounded evidence.

Standard library only, Python 3.10+: this package is copied into a task's `tests/` and runs inside
the task environment, whatever Python that environment has.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

DEFAULT_MAX_BYTES = 64 << 20
"""A check reads at most this much of one file (param `max_bytes`); a bigger file fails the check."""
MAX_READ_BYTES = 256 << 20
"""No `max_bytes` reads more into memory than this: the parsed form of a file takes many times its size."""
EVIDENCE_STRING_CHARS = 400
EVIDENCE_LIST_ITEMS = 20
EVIDENCE_DEPTH = 6


@dataclass
class CheckResult:
    """One check's verdict and what it looked at.

    A check is always `passed` or `failed`: an item that could not be judged never helps the
    attempt. `error` is detail on a failure the check could not turn into a comparison (a bad spec,
    an exception of the check's own code, a time-out); it never makes the item pass or vanish.
    """

    passed: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def status(self) -> str:
        return "passed" if self.passed and self.error is None else "failed"


class CheckSpecError(ValueError):
    """The check's parameters are wrong (unknown check, missing or unknown param, a path outside
    the workspace): the rubric is defective. The item fails with the problem as its `error` (the
    oracle gate then rejects the task)."""


class CheckFailed(Exception):
    """The workspace made the check fail before it could compare (missing, unreadable, malformed,
    oversized input, a link leaving the workspace). Raised by helpers; becomes a failed result."""

    def __init__(self, summary: str, **evidence: Any) -> None:
        super().__init__(summary)
        self.summary = summary
        self.evidence = evidence


class CheckTimeout(BaseException):
    """The check ran past its time; a BaseException so code under test cannot swallow it."""


CheckFn = Callable[[Path, Mapping[str, Any]], CheckResult]


@dataclass(frozen=True)
class RegisteredCheck:
    name: str
    function: CheckFn
    description: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    uses_tests_dir: bool = False
    """The check may read files shipped with the verifier (its `tests_dir` param, filled by `run_check`)."""


REGISTRY: dict[str, RegisteredCheck] = {}


def check(
    name: str,
    description: str,
    *,
    required: tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
    uses_tests_dir: bool = False,
) -> Callable[[CheckFn], CheckFn]:
    """Register a check function under `name` with the params it takes."""

    def register(function: CheckFn) -> CheckFn:
        if name in REGISTRY:
            raise ValueError(f"check {name!r} is registered twice")
        extra = ("tests_dir",) if uses_tests_dir else ()
        REGISTRY[name] = RegisteredCheck(
            name, function, description, tuple(required), tuple(optional) + extra, uses_tests_dir
        )
        return function

    return register


def spec_problems(name: str, params: Mapping[str, Any]) -> list[str]:
    """What is wrong with a check spec before running it: unknown check, missing or unknown params."""
    registered = REGISTRY.get(name)
    if registered is None:
        return [f"unknown check {name!r}; registered: {', '.join(sorted(REGISTRY))}"]
    problems = []
    missing = [p for p in registered.required if p not in params]
    if missing:
        problems.append(f"check {name!r} needs params {missing}")
    unknown = sorted(set(params) - set(registered.required) - set(registered.optional))
    if unknown:
        allowed = sorted(set(registered.required) | set(registered.optional))
        problems.append(f"check {name!r} does not take params {unknown}; it takes {allowed}")
    return problems


def run_check(name: str, workspace: Path, params: Mapping[str, Any], *, tests_dir: Path | None = None) -> CheckResult:
    """Run a registered check, turning every outcome into a passed or failed result with bounded evidence.

    A `CheckFailed` (the workspace's fault) is a failure; so are a spec problem and an unexpected
    exception in the check's own code (any workspace content can provoke one, and an item that
    cannot be judged must never help the attempt), with the cause as the result's `error`.
    `CheckTimeout` propagates to the caller, which fails the item.
    """
    started = time.perf_counter()
    problems = spec_problems(name, params)
    if problems:
        return _finish(CheckResult(False, {"check": name}, "; ".join(problems)), started)
    registered = REGISTRY[name]
    arguments = dict(params)
    if registered.uses_tests_dir and "tests_dir" not in arguments and tests_dir is not None:
        arguments["tests_dir"] = str(tests_dir)
    try:
        result = registered.function(workspace, arguments)
    except CheckSpecError as exc:
        result = CheckResult(False, {}, f"bad check spec: {exc}")
    except CheckFailed as exc:
        result = CheckResult(False, {"summary": exc.summary, **exc.evidence})
    except Exception as exc:  # a defect of the check itself, not of the workspace
        result = CheckResult(False, {"traceback": _traceback_tail()}, f"the check raised {type(exc).__name__}: {exc}")
    result.evidence = {"check": name, **result.evidence}
    return _finish(result, started)


def _finish(result: CheckResult, started: float) -> CheckResult:
    duration_ms = round((time.perf_counter() - started) * 1000, 3)
    try:
        result.evidence = bounded({**result.evidence, "duration_ms": duration_ms})
    except Exception as exc:  # evidence too deep or unprintable: the verdict stands, the evidence says why
        check = result.evidence.get("check") if isinstance(result.evidence, dict) else None
        result.evidence = {"check": check, "duration_ms": duration_ms,
                           "evidence_error": f"the evidence could not be recorded: {type(exc).__name__}"}  # fmt: skip
        if result.passed:
            result.passed, result.error = False, "the check's evidence could not be recorded"
    return result


def _traceback_tail(lines: int = 12) -> str:
    return "".join(traceback.format_exc().splitlines(keepends=True)[-lines:])


# -- evidence ---------------------------------------------------------------------------------------


def bounded(value: Any, depth: int = 0) -> Any:
    """`value` as JSON-ready data with long strings and lists cut, each cut marked."""
    if isinstance(value, str):
        return clip(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= EVIDENCE_DEPTH:
        return clip(json.dumps(value, default=repr))
    if isinstance(value, Mapping):
        items = list(value.items())
        kept = {str(k): bounded(v, depth + 1) for k, v in items[: EVIDENCE_LIST_ITEMS * 2]}
        if len(items) > EVIDENCE_LIST_ITEMS * 2:
            kept["…"] = f"{len(items) - EVIDENCE_LIST_ITEMS * 2} more keys cut"
        return kept
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        kept_list = [bounded(v, depth + 1) for v in items[:EVIDENCE_LIST_ITEMS]]
        if len(items) > EVIDENCE_LIST_ITEMS:
            kept_list.append(f"… {len(items) - EVIDENCE_LIST_ITEMS} more cut")
        return kept_list
    if isinstance(value, (bytes, bytearray)):
        return clip(bytes(value).decode("utf-8", errors="replace"))
    return clip(repr(value))


def clip(text: str, limit: int = EVIDENCE_STRING_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more chars cut]"


def show(value: Any, limit: int = 120) -> str:
    """A value as it appears in a diff line."""
    return clip(json.dumps(value, ensure_ascii=False, default=repr), limit)


def diff_lines(lines: list[str], total: int) -> dict[str, Any]:
    """The first differences and how many there were."""
    return {"differences": total, "diff": lines[:EVIDENCE_LIST_ITEMS]}


# -- parameters -----------------------------------------------------------------------------------


def param(params: Mapping[str, Any], name: str, kind: Any, default: Any = None) -> Any:
    """A param of the given type (or tuple of types), the default when absent."""
    if name not in params or params[name] is None:
        return default
    value = params[name]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise CheckSpecError(f"param {name!r} must be {names}, not {type(value).__name__}")
    return value


def string_list(params: Mapping[str, Any], name: str) -> list[str]:
    """A param given as a string or a list of strings, as a list."""
    value = params.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise CheckSpecError(f"param {name!r} must be a string or a list of strings")


# -- workspace files --------------------------------------------------------------------------------


def relative_path(workspace: Path, path: str) -> PurePosixPath:
    """A workspace-relative path from a param; absolute paths must lie under the workspace."""
    if not isinstance(path, str) or not path.strip():
        raise CheckSpecError(f"a path must be a non-empty string, not {path!r}")
    pure = PurePosixPath(path)
    if pure.is_absolute():
        root = PurePosixPath(workspace.as_posix())
        try:
            pure = pure.relative_to(root)
        except ValueError:
            raise CheckSpecError(f"{path} is not under the workspace {workspace}") from None
    if ".." in pure.parts:
        raise CheckSpecError(f"{path} leaves the workspace")
    return pure


def inside(root: Path, path: Path) -> bool:
    """Whether `path`, links resolved, lies under `root`."""
    try:
        path.resolve().relative_to(root.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def workspace_file(workspace: Path, path: str) -> Path:
    """An existing regular file of the workspace, links resolved (never to a place outside it).

    Raises:
        CheckSpecError: the path leaves the workspace lexically (the rubric's fault).
        CheckFailed: missing, not a regular file, or a link leading outside the workspace.
    """
    with open_workspace_file(workspace, path) as handle:
        return Path(handle.name)


class WorkspaceFile(io.FileIO):
    """A workspace file opened by `open_workspace_file`; `name` is its resolved path, `shown` the
    workspace-relative one of the check's param."""

    shown: str


_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: should a FIFO appear between the lstat and the open, opening it must not block.
_FILE_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_WALK_BY_FD = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a link that does not resolve"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_workspace_file(workspace: Path, path: str) -> WorkspaceFile:
    """A regular file of the workspace, opened for reading.

    Links are resolved first and must stay inside the workspace; the resolved path is then opened
    one component at a time without following links, so a link swapped in meanwhile cannot lead
    out. Anything but a regular file is refused before it is opened (opening a FIFO blocks, opening
    a device may act), and checked again on the open descriptor.

    Raises:
        CheckSpecError: the path leaves the workspace lexically (the rubric's fault).
        CheckFailed: missing, not a regular file, unreadable, or a link leading outside the workspace.
    """
    relative = relative_path(workspace, path)
    shown = str(relative)
    try:
        root = Path(os.path.realpath(workspace))
        full = root / relative
        if not os.path.lexists(full):
            raise CheckFailed(f"{shown} does not exist", path=shown)
        real = Path(os.path.realpath(full))
        parts = real.relative_to(root).parts
    except ValueError:
        raise CheckFailed(f"{shown} is a link leading outside the workspace", path=shown) from None
    except OSError as exc:
        raise CheckFailed(f"{shown} cannot be resolved: {exc.strerror or exc}", path=shown) from exc
    if not parts:
        raise CheckFailed(f"{shown} is the workspace itself, not a regular file", path=shown)
    try:
        fd = _open_regular(root, parts, shown)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            raise CheckFailed(f"{shown} does not exist (or is a link to nothing)", path=shown) from exc
        if exc.errno == errno.ELOOP:
            raise CheckFailed(f"{shown} is a link that does not resolve", path=shown) from exc
        raise CheckFailed(f"{shown} cannot be opened: {exc.strerror or exc}", path=shown) from exc
    handle = WorkspaceFile(fd, "rb", closefd=True)
    handle.name = str(real)  # the fd alone names nothing; callers and the tables cache use the path
    handle.shown = shown
    return handle


def _open_regular(root: Path, parts: tuple[str, ...], shown: str) -> int:
    """A read-only descriptor of root/parts (a link-free path), refusing anything but a regular file."""
    if not _WALK_BY_FD:
        before = os.lstat(root.joinpath(*parts))
        if not stat.S_ISREG(before.st_mode):
            raise CheckFailed(f"{shown} is {_kind(before.st_mode)}, not a regular file", path=shown)
        fd = os.open(root.joinpath(*parts), _FILE_FLAGS)
        return _still_regular(fd, before, shown)
    directory = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts[:-1]:
            following = os.open(part, _DIR_FLAGS, dir_fd=directory)
            os.close(directory)
            directory = following
        before = os.stat(parts[-1], dir_fd=directory, follow_symlinks=False)
        if not stat.S_ISREG(before.st_mode):
            raise CheckFailed(f"{shown} is {_kind(before.st_mode)}, not a regular file", path=shown)
        fd = os.open(parts[-1], _FILE_FLAGS, dir_fd=directory)
    finally:
        os.close(directory)
    return _still_regular(fd, before, shown)


def _still_regular(fd: int, before: os.stat_result, shown: str) -> int:
    after = os.fstat(fd)
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise CheckFailed(f"{shown} changed while it was being opened", path=shown)
    return fd


def read_limited(handle: WorkspaceFile, max_bytes: int) -> bytes:
    """All of an opened workspace file, or CheckFailed (with the cap as evidence) past `max_bytes`
    (at most MAX_READ_BYTES)."""
    shown = handle.shown
    limit = min(max(0, max_bytes), MAX_READ_BYTES)
    size = os.fstat(handle.fileno()).st_size
    if size > limit:
        raise CheckFailed(
            f"{shown} is {size} bytes, more than this check reads ({limit})", path=shown, size=size, max_bytes=limit
        )
    chunks: list[bytes] = []
    total = 0
    try:
        while total <= limit:
            chunk = handle.read(min(limit + 1 - total, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise CheckFailed(f"{shown} cannot be read: {exc.strerror or exc}", path=shown) from exc
    if total > limit:
        raise CheckFailed(
            f"{shown} grew past what this check reads ({limit} bytes)", path=shown, size=total, max_bytes=limit
        )
    return b"".join(chunks)


def read_bytes(workspace: Path, path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """A workspace file's bytes, at most `max_bytes` of them (a bigger file fails the check)."""
    with open_workspace_file(workspace, path) as handle:
        return read_limited(handle, max_bytes)


def decode_text(data: bytes, shown: str) -> str:
    """UTF-8 text (a BOM is dropped, CRLF kept); not UTF-8 fails the check."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CheckFailed(f"{shown} is not UTF-8 text (byte {exc.start})", path=shown) from exc


def read_text(workspace: Path, path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> str:
    """A workspace file as UTF-8 text (a BOM is dropped, CRLF kept); not UTF-8 fails the check."""
    with open_workspace_file(workspace, path) as handle:
        return decode_text(read_limited(handle, max_bytes), handle.shown)


def max_bytes_param(params: Mapping[str, Any]) -> int:
    return int(param(params, "max_bytes", int, DEFAULT_MAX_BYTES))


def tests_file(params: Mapping[str, Any], name: str) -> Path:
    """A file shipped with the verifier, named by param `name` relative to the tests directory."""
    value = param(params, name, str)
    base = params.get("tests_dir")
    path = Path(value)
    if not path.is_absolute():
        if not base:
            raise CheckSpecError(f"param {name!r} is relative but no tests directory is known")
        path = Path(str(base)) / value
    if not path.is_file():
        raise CheckSpecError(f"{value} is not a file shipped with the verifier")
    return path

"""Typed sandbox failures: infrastructure errors, never confused with what an agent did."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skill2env.sandbox.base import ExecResult


class SandboxError(RuntimeError):
    """Base class of sandbox failures."""


class SandboxUnavailable(SandboxError):
    """The backend cannot run here: no engine, no bubblewrap, no base image. The message says what to do."""


class SandboxNotRunning(SandboxError):
    """The sandbox was used before `start` or after `stop`."""


class SandboxTimeout(SandboxError):
    """A command ran past its timeout and was killed; `result` holds what it printed until then."""

    def __init__(self, message: str, result: ExecResult) -> None:
        super().__init__(message)
        self.result = result


class SandboxDeadlineExceeded(SandboxError):
    """The rollout's wall clock ran out: the sandbox was (or is being) torn down."""


class SandboxCrashed(SandboxError):
    """The sandbox died under a command (engine error, container gone, namespace setup failed)."""


class SandboxPathError(SandboxError):
    """A path that cannot be read or written: missing, outside the writable mounts, or a link leaving them."""


class ImageBuildError(SandboxError):
    """Building the base image or a task image failed; the message carries the build log's tail."""

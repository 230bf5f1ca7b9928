"""Typed sandbox failures: infrastructure errors, never confused with what an agent did.

Who caused a failure decides how an attempt ends. What happens inside the sandbox because of the
agent's own commands is the agent's (`SandboxBroken`, `SandboxDeadlineExceeded`): the attempt is
scored on the workspace it left, or fails with the cause recorded. Only faults outside the sandbox
(the engine down or dropping the sandbox, the sandbox stopped or killed from the host, the host out
of resources, a bug of ours) are infrastructure errors (`SandboxCrashed`, `SandboxUnavailable`).
"""

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
    """The sandbox died under a command from outside it (engine error, container removed or killed
    from the host, namespace setup failed, a fault of ours)."""


class CommandServerLost(SandboxCrashed):
    """The sandbox's command server died (`unresponsive` False) or stopped answering (True). The
    backend raising it has not yet asked why; backends turn it into `SandboxBroken` where the
    cause lies inside the sandbox."""

    def __init__(self, message: str, *, unresponsive: bool) -> None:
        super().__init__(message)
        self.unresponsive = unresponsive


class SandboxBroken(SandboxError):
    """The sandbox stopped working because of what ran in it: its command server was killed by the
    OOM killer under the sandbox's own memory limit, died of a signal only the kernel sends for
    what happened inside, or stopped answering while the sandbox still ran (starved by its own
    processes). The attempt's own outcome, never an infrastructure error; the message says why."""


class SandboxPathError(SandboxError):
    """A path that cannot be read or written: missing, outside the writable mounts, or a link leaving them."""


class ImageBuildError(SandboxError):
    """Building the base image or a task image failed; the message carries the build log's tail."""

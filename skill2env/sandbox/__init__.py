"""Sandboxes: where rollouts run. One interface (`Sandbox`), two backends (`docker`, `bwrap`).

Importing this package does not import the Docker SDK; `make_sandbox("docker")` does.
"""

from skill2env.sandbox.backends import BACKEND_NAMES, BackendName, make_sandbox
from skill2env.sandbox.base import ExecResult, Sandbox, SandboxLimits
from skill2env.sandbox.errors import (
    ImageBuildError,
    SandboxCrashed,
    SandboxDeadlineExceeded,
    SandboxError,
    SandboxNotRunning,
    SandboxPathError,
    SandboxTimeout,
    SandboxUnavailable,
)
from skill2env.sandbox.task import TaskDir, TaskFormatError
from skill2env.tasks.harbor_config import TaskConfig

__all__ = [
    "BACKEND_NAMES",
    "BackendName",
    "ExecResult",
    "ImageBuildError",
    "Sandbox",
    "SandboxCrashed",
    "SandboxDeadlineExceeded",
    "SandboxError",
    "SandboxLimits",
    "SandboxNotRunning",
    "SandboxPathError",
    "SandboxTimeout",
    "SandboxUnavailable",
    "TaskConfig",
    "TaskDir",
    "TaskFormatError",
    "make_sandbox",
]

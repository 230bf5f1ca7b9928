"""Typed failures. A `ToolError` is what an agent sees as a tool's error (its `code` and message);
the others are mistakes in a service's definition or infrastructure failures."""

from __future__ import annotations

from typing import ClassVar


class ToolError(Exception):
    """A tool refused a call; `code` is the error type the agent sees."""

    code: ClassVar[str] = "tool_error"


class NotFound(ToolError):
    """A record the call names does not exist."""

    code = "not_found"


class InvalidArgument(ToolError):
    """An argument is malformed or out of range (including arguments that fail their schema)."""

    code = "invalid_argument"


class Conflict(ToolError):
    """The record is in a state that does not allow the call (already cancelled, duplicate, overlap, …)."""

    code = "conflict"


class LimitExceeded(ToolError):
    """The call would exceed a quantity, a balance or a policy limit."""

    code = "limit_exceeded"


class PermissionDenied(ToolError):
    """The caller may not do this to the record (not a member, not the owner, …)."""

    code = "permission_denied"


class UnknownService(ToolError):
    code = "unknown_service"


class UnknownTool(ToolError):
    code = "unknown_tool"


class SimulatedToolUnavailable(ToolError):
    """A `simulated` tool was called and no world model is configured to answer it."""

    code = "simulated_tool_unavailable"


class SimulationFailed(ToolError):
    """The world model gave no valid answer (result and state delta) within its attempts."""

    code = "simulation_failed"


DECLARABLE: tuple[type[ToolError], ...] = (
    ToolError,
    NotFound,
    InvalidArgument,
    Conflict,
    LimitExceeded,
    PermissionDenied,
)
"""The errors a tool's docstring may declare under `Raises:`."""
ERROR_CODES: dict[str, str] = {cls.__name__: cls.code for cls in DECLARABLE}
"""Exception name (as a docstring's `Raises:` section writes it) → the code the agent sees."""
ERRORS_BY_CODE: dict[str, type[ToolError]] = {cls.code: cls for cls in DECLARABLE}


class ServiceDefinitionError(TypeError):
    """A service class is malformed: an undocumented parameter, an unknown state field, a bad intent."""


class UndeclaredStateWrite(RuntimeError):
    """A tool changed a state field its `@tool(writes=…)` does not declare; the call was rolled back."""

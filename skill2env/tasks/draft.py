"""A task as an author produces it, before it is written as a Harbor task directory."""

from __future__ import annotations

from dataclasses import dataclass, field

from skill2env.tasks.blueprint import Blueprint


@dataclass(frozen=True)
class TaskDraft:
    """Everything the Harbor writer needs: the blueprint and what was built from it, jointly.

    `workspace` holds the initial workspace files (relative path → bytes), placed at
    `environment/workspace/` and copied to the agent's workspace. `solve_sh` is the reference
    solution: it must derive the deliverables from the workspace, never copy stored answers.
    `verifier_files` are extra files for `tests/` (expected data the checks compare against);
    they reach the environment only at verification time.
    """

    blueprint: Blueprint
    instruction: str
    workspace: dict[str, bytes]
    solve_sh: str
    verifier_files: dict[str, bytes] = field(default_factory=dict)
    author: str = "offline"
    """Who built it: `offline:<kit>` or `model:<name>`."""

"""The agent side of rollouts: the solver's tools, the agent loop, trajectories (ATIF), and running
attempts of a policy — a model or a script — in sandboxes, many at once."""

from skill2env.agent.actors import Actor, Decision, Policy, ScriptPolicy, SolverPolicy, policy_from_name
from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.loop import SYSTEM_PROMPT, LoopLimits, ThreadedTools, run_agent
from skill2env.agent.markers import AttemptLog, close_attempts, interrupted_attempts
from skill2env.agent.rollout import AttemptSpec, RolloutRunner, TaskRef, attempt_specs, sandbox_slots
from skill2env.agent.tables import rollouts_frame, trajectory_steps_frame
from skill2env.agent.tools import AGENT_TOOLS, ToolOutcome, ToolRunner, truncate
from skill2env.agent.trajectory import ATIF_SCHEMA_VERSION, RolloutStatus, Step, Trajectory

__all__ = [
    "AGENT_TOOLS",
    "ATIF_SCHEMA_VERSION",
    "SYSTEM_PROMPT",
    "Actor",
    "AttemptLog",
    "AttemptSpec",
    "Decision",
    "LoopLimits",
    "Policy",
    "RolloutRunner",
    "RolloutStatus",
    "ScriptPolicy",
    "SolverPolicy",
    "Step",
    "TaskRef",
    "ThreadedTools",
    "ToolOutcome",
    "ToolRunner",
    "Trajectory",
    "TrajectoryFiles",
    "attempt_specs",
    "close_attempts",
    "interrupted_attempts",
    "policy_from_name",
    "rollouts_frame",
    "run_agent",
    "sandbox_slots",
    "trajectory_steps_frame",
    "truncate",
]

"""The agent side of rollouts: the solver's tools, the agent loop, trajectories (ATIF), and running
attempts of a policy — a model or a script — in sandboxes, many at once. Every policy lives here:
`actors` (the agent loop's: a model or a script of tool calls), `scripted` (a script run straight in
a sandbox: the gates' oracle, nop and partial runs), `policies` (which one the pipeline rolls out)."""

from skill2env.agent.actors import Actor, Decision, Policy, ScriptPolicy, SolverPolicy, policy_from_name
from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.loop import SYSTEM_PROMPT, LoopLimits, ThreadedTools, run_agent
from skill2env.agent.markers import AttemptLog, close_attempts, interrupted_attempts
from skill2env.agent.rollout import AttemptSpec, RolloutRunner, TaskRef, attempt_specs, sandbox_slots
from skill2env.agent.scripted import (
    NopPolicy,
    OraclePolicy,
    PartialPolicy,
    ScriptedPolicy,
    ScriptedRollout,
    run_scripted_rollout,
)
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
    "NopPolicy",
    "OraclePolicy",
    "PartialPolicy",
    "Policy",
    "RolloutRunner",
    "RolloutStatus",
    "ScriptPolicy",
    "ScriptedPolicy",
    "ScriptedRollout",
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
    "run_scripted_rollout",
    "sandbox_slots",
    "trajectory_steps_frame",
    "truncate",
]

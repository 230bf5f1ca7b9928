"""The `compo_rollouts` table: the `rollouts` columns of each attempt, plus its score and its trajectory."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

from skill2env.agent import rollouts_frame
from skill2env.agent.tables import ROLLOUTS_SCHEMA
from skill2env.compoworld.rollout import CompoAttempt, meta_tool_counts, services_called

LIST = pl.List(pl.String())
COMPO_ROLLOUTS_SCHEMA = pl.Schema(
    {
        **{name: dtype for name, dtype in ROLLOUTS_SCHEMA.items() if name != "sandbox_mode"},  # hosts, not sandboxes
        "reward": pl.Float64(),
        "item_results": pl.String(),
        "group_reward": pl.Float64(),
        "advantage": pl.Float64(),
        "chain": LIST,
        "services": LIST,
        "world_services": LIST,
        "capability_tags": LIST,
        "services_called": LIST,
        "meta_tool_calls": pl.String(),
        "trajectory": pl.String(),
    }
)


def compo_rollouts_frame(attempts: Sequence[CompoAttempt]) -> pl.DataFrame:
    """One row per attempt: the trajectory's header and totals (as `rollouts`), its reward, item
    results and group reward (None when not scored), and the whole trajectory as JSON.
    `workspace_digest` is the sha256 of the final states."""
    header = rollouts_frame([a.trajectory for a in attempts])
    extra = pl.DataFrame(
        [
            {
                "reward": a.reward,
                "item_results": json.dumps(a.items, sort_keys=True) if a.scored else None,
                "group_reward": a.group_reward,
                "advantage": a.advantage,
                "chain": a.task.chain,
                "services": a.task.services,
                "world_services": a.task.world_services,
                "capability_tags": a.task.capability_tags,
                "services_called": services_called(a.trajectory),
                "meta_tool_calls": json.dumps(meta_tool_counts(a.trajectory)),
                "trajectory": a.trajectory.model_dump_json(),
            }
            for a in attempts
        ],
        schema={name: dtype for name, dtype in COMPO_ROLLOUTS_SCHEMA.items() if name not in ROLLOUTS_SCHEMA},
    )
    return pl.concat([header, extra], how="horizontal").select(list(COMPO_ROLLOUTS_SCHEMA))

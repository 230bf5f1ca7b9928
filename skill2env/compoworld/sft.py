"""SFT examples from CompoWorld rollouts: the chat example plus the metadata of the paper's samples.

A row holds what `exports.chat.chat_example` makes of the trajectory (system prompt, the goal,
the assistant's meta-tool calls and the gateway's answers, the final answer; the four meta-tools
as `tools`) and the metadata the released CompoWorld trajectories carry: the services (the
task's, and every service of its world, distractors included), the domain, the capability tags,
the rubric score and the tool-call counts, per meta-tool and in all. `metadata` holds the same as
one JSON object, for a JSONL line beside `messages` and `tools`.

Only attempts that ended `completed` and were scored become rows; the `compo_sft` view keeps the
ones above `thresholds.SFT_MIN_REWARD` (the macro `sft_min_reward()` in SQL).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import polars as pl

from skill2env.compoworld.rollout import CompoAttempt, meta_tool_counts, services_called
from skill2env.exports.chat import ChatExampleError, chat_example

SCHEMA_VERSION = 1
LIST = pl.List(pl.String())
COMPO_SFT_SCHEMA = pl.Schema(
    {
        "example_id": pl.String(),
        "rollout_id": pl.String(),
        "group_id": pl.String(),
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "policy": pl.String(),
        "model": pl.String(),
        "reward": pl.Float64(),
        "group_reward": pl.Float64(),
        "turns": pl.Int64(),
        "services": LIST,
        "world_services": LIST,
        "services_called": LIST,
        "capability_tags": LIST,
        "chain": LIST,
        "length": pl.Int64(),
        "tool_calls": pl.Int64(),
        "list_services_calls": pl.Int64(),
        "list_tools_calls": pl.Int64(),
        "describe_tool_calls": pl.Int64(),
        "call_tool_calls": pl.Int64(),
        "tool_errors": pl.Int64(),
        "messages": pl.String(),
        "tools": pl.String(),
        "metadata": pl.String(),
        "schema_version": pl.Int64(),
    }
)


def sft_metadata(attempt: CompoAttempt) -> dict[str, Any]:
    """The sample's metadata: services, domain, capability tags, rubric score, tool-call counts."""
    task, trajectory = attempt.task, attempt.trajectory
    counts = meta_tool_counts(trajectory)
    return {
        "task_id": task.task_id,
        "iteration": task.iteration,
        "domain": task.domain,
        "services": task.services,
        "world_services": task.world_services,
        "services_called": services_called(trajectory),
        "capability_tags": task.capability_tags,
        "chain_length": len(task.chain),
        "rubric_score": attempt.reward,
        "rubric_items": attempt.items,
        "tool_call_counts": {**counts, "total": sum(counts.values())},
        "turns": trajectory.turns,
        "policy": trajectory.policy,
        "model": trajectory.model,
    }


def compo_sft_rows(attempts: Sequence[CompoAttempt]) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows of `compo_sft_examples` for the completed, scored attempts whose trajectory makes a valid
    chat example, and why the others do not."""
    rows, skipped = [], []
    for attempt in attempts:
        trajectory = attempt.trajectory
        if trajectory.status != "completed" or attempt.reward is None:
            skipped.append(f"rollout {trajectory.rollout_id}: {trajectory.status}, not an example")
            continue
        try:
            example = chat_example(trajectory)
        except ChatExampleError as exc:
            skipped.append(str(exc))
            continue
        dumped = example.model_dump(mode="json", exclude_none=True)
        metadata = sft_metadata(attempt)
        counts = metadata["tool_call_counts"]
        rows.append({
            "example_id": trajectory.rollout_id,
            "rollout_id": trajectory.rollout_id,
            "group_id": trajectory.group_id,
            "task_id": attempt.task.task_id,
            "iteration": attempt.task.iteration,
            "domain": attempt.task.domain,
            "policy": trajectory.policy,
            "model": trajectory.model,
            "reward": attempt.reward,
            "group_reward": attempt.group_reward,
            "turns": trajectory.turns,
            "services": metadata["services"],
            "world_services": metadata["world_services"],
            "services_called": metadata["services_called"],
            "capability_tags": metadata["capability_tags"],
            "chain": attempt.task.chain,
            "length": len(attempt.task.chain),
            "tool_calls": counts["total"],
            "list_services_calls": counts["list_services"],
            "list_tools_calls": counts["list_tools"],
            "describe_tool_calls": counts["describe_tool"],
            "call_tool_calls": counts["call_tool"],
            "tool_errors": sum(o.is_error for step in trajectory.steps for o in step.observations),
            "messages": json.dumps(dumped["messages"], ensure_ascii=False),
            "tools": json.dumps(dumped.get("tools", []), ensure_ascii=False),
            "metadata": json.dumps(metadata, ensure_ascii=False, sort_keys=True),
            "schema_version": SCHEMA_VERSION,
        })  # fmt: skip
    return rows, skipped


def compo_sft_frame(attempts: Sequence[CompoAttempt]) -> tuple[pl.DataFrame, list[str]]:
    rows, skipped = compo_sft_rows(attempts)
    return pl.DataFrame(rows, schema=COMPO_SFT_SCHEMA), skipped

"""SFT examples: rows for the lake, and files for trainers (OpenAI chat JSONL, Parquet for TRL / datasets)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import polars as pl

from skill2env.agent import Trajectory
from skill2env.exports.chat import ChatExample, ChatExampleError, chat_example
from skill2env.lake.ports import Snapshot
from skill2env.lake.sqlfiles import load_sql

SFT_EXAMPLES_SCHEMA = pl.Schema(
    {
        "example_id": pl.String(),
        "rollout_id": pl.String(),
        "task_id": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "skill_id": pl.String(),
        "skill_path": pl.String(),
        "blueprint_digest": pl.String(),
        "task_digest": pl.String(),
        "policy": pl.String(),
        "model": pl.String(),
        "reward": pl.Float64(),
        "turns": pl.Int64(),
        "messages": pl.String(),
        "tools": pl.String(),
    }
)
LINEAGE_COLUMNS = ("example_id", "rollout_id", "task_id", "iteration", "domain", "skill_id", "skill_path",
                   "blueprint_digest", "task_digest", "policy", "model", "reward", "turns", "source",
                   "services")  # fmt: skip
"""What each exported example carries besides its messages: `source` is `skills` (a task authored from a
skill: `skill_id`, `skill_path` and `blueprint_digest` name it) or `compoworld` (a cross-service CompoWorld
task: `services` names its services, the skill columns are empty)."""
SKILLS_SOURCE, COMPOWORLD_SOURCE = "skills", "compoworld"
Format = Literal["jsonl", "parquet"]
SFT_EXPORT_SCHEMA = pl.Schema(
    {
        **{name: SFT_EXAMPLES_SCHEMA[name] for name in LINEAGE_COLUMNS if name in SFT_EXAMPLES_SCHEMA},
        "source": pl.String(),
        "services": pl.List(pl.String()),
        "messages": pl.String(),
        "tools": pl.String(),
    }
)
"""The columns of the export: the lineage, then `messages` and `tools` as JSON text."""


@dataclass(frozen=True)
class Candidate:
    """A scored rollout and where it comes from."""

    trajectory: Trajectory
    reward: float
    lineage: Mapping[str, Any]
    """skill_id, skill_path, blueprint_digest, task_digest of its task."""


def sft_frame(candidates: Sequence[Candidate]) -> tuple[pl.DataFrame, list[str]]:
    """`sft_examples` rows for the candidates whose trajectory makes a valid chat example, and
    why the others do not."""
    rows, skipped = [], []
    for candidate in candidates:
        trajectory = candidate.trajectory
        try:
            example = chat_example(trajectory)
        except ChatExampleError as exc:
            skipped.append(str(exc))
            continue
        dumped = example.model_dump(mode="json", exclude_none=True)
        rows.append({
            "example_id": trajectory.rollout_id,
            "rollout_id": trajectory.rollout_id,
            "task_id": trajectory.task_id,
            "iteration": trajectory.iteration,
            "domain": trajectory.domain,
            "skill_id": candidate.lineage.get("skill_id"),
            "skill_path": candidate.lineage.get("skill_path"),
            "blueprint_digest": candidate.lineage.get("blueprint_digest"),
            "task_digest": trajectory.task_digest or candidate.lineage.get("task_digest"),
            "policy": trajectory.policy,
            "model": trajectory.model,
            "reward": candidate.reward,
            "turns": trajectory.turns,
            "messages": json.dumps(dumped["messages"], ensure_ascii=False),
            "tools": json.dumps(dumped.get("tools", []), ensure_ascii=False),
        })  # fmt: skip
    return pl.DataFrame(rows, schema=SFT_EXAMPLES_SCHEMA), skipped


def sft_export_frame(lake: Snapshot, min_reward: float) -> pl.DataFrame:
    """The SFT set: the skills' examples (`queries/sft_candidates`), then CompoWorld's
    (`queries/compo_sft_candidates`), each with a reward above `min_reward`, in the lineage columns plus
    `messages` and `tools`.

    Raises:
        skill2env.lake.lake.LakeError: the lake could not be read.
    """
    with lake.reading() as reader:
        skills = reader.query(load_sql("queries/sft_candidates"), {"min_reward": min_reward})
        compoworld = reader.query(load_sql("queries/compo_sft_candidates"), {"min_reward": min_reward})
    return pl.concat([_export_columns(skills), _export_columns(compoworld)], how="vertical_relaxed")


def _export_columns(frame: pl.DataFrame) -> pl.DataFrame:
    """`frame` in the export's columns; rows of `sft_examples` (no `source`) are the skills'."""
    defaults = {"source": pl.lit(SKILLS_SOURCE), "services": pl.lit(None, dtype=pl.List(pl.String()))}
    missing = [value.alias(name) for name, value in defaults.items() if name not in frame.columns]
    return frame.with_columns(missing).select(
        *(pl.col(name).cast(SFT_EXPORT_SCHEMA[name]) for name in SFT_EXPORT_SCHEMA)
    )


def write_sft(frame: pl.DataFrame, out: Path, fmt: Format) -> int:
    """Write the examples of `frame` (rows of `sft_export_frame`, or of `sft_examples`: the skills') to
    `out`, validating every one first.

    JSONL: one `{"messages", "tools", "metadata"}` object per line (tool-call arguments as JSON
    strings). Parquet: `messages` and `tools` as JSON strings beside the lineage columns. The file
    appears whole or not at all.
    """
    frame = _export_columns(frame)
    records = []
    for row in frame.iter_rows(named=True):
        example = ChatExample.model_validate(
            {"messages": json.loads(row["messages"]), "tools": json.loads(row["tools"])}
        )
        records.append((example, {column: row[column] for column in LINEAGE_COLUMNS}))
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    if fmt == "jsonl":
        with partial.open("w", encoding="utf-8") as handle:
            for example, metadata in records:
                line = example.model_dump(mode="json", exclude_none=True) | {"metadata": metadata}
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    else:
        frame.select(*LINEAGE_COLUMNS, "messages", "tools").write_parquet(partial)
    partial.replace(out)
    return len(records)

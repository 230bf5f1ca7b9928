"""The hardening stage after iteration k: trigger, diagnose, propose, rebuild — or carry the task on.

* trigger: the solver group's mean reward > `threshold` (default 0.7), no infrastructure errors,
  and no challenge diagnosed as a task defect;
* diagnosis: `diagnosis.diagnose` (rule-based; challenges solved easily or bypassed);
* proposal: the task's world kit raises the intensity of every challenge whose items all passed
  and adds one compatible pattern (`Kit.harden`); the blueprint is rebuilt from the proposal with
  the parent's lineage (`revision`), and the new task directory passes the author-side checks
  before it is stored (the next iteration's validation gates decide whether it is accepted);
* a task that is not triggered, cannot be hardened further, or whose hardened version is rejected
  keeps its current version: it is carried to iteration k+1 unchanged (same directory and digest),
  so every family has a version at every iteration and the curve compares paired tasks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql
from skill2env.pipeline.diagnosis import Diagnosis, diagnose
from skill2env.pipeline.stages import stage_partition
from skill2env.tasks.blueprint import Blueprint, SkillRef
from skill2env.tasks.build import build_task
from skill2env.tasks.records import TaskRecord, TaskStatus, task_files_of, task_id_of
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import blueprints_frame, task_files_frame, tasks_frame

DEFAULT_THRESHOLD = 0.7
_SEED = re.compile(r"-s(\d+)-i\d+$")

HARDENING_ROUNDS_SCHEMA = pl.Schema(
    {
        "task_id": pl.String(),
        "family": pl.String(),
        "iteration": pl.Int64(),
        "domain": pl.String(),
        "trigger_reward": pl.Float64(),
        "triggered": pl.Boolean(),
        "outcome": pl.String(),
        "reason": pl.String(),
        "diagnosis": pl.String(),
        "proposal": pl.String(),
        "revision_diff": pl.String(),
        "child_task_id": pl.String(),
        "child_status": pl.String(),
        "patterns_before": pl.List(pl.String()),
        "patterns_after": pl.List(pl.String()),
        "grown_patterns": pl.List(pl.String()),
    }
)


@dataclass
class HardeningStage:
    domain: str
    iteration: int
    rounds: list[dict[str, Any]] = field(default_factory=list)
    children: list[TaskRecord] = field(default_factory=list)
    blueprints: list[tuple[Blueprint, str]] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.rounds if r["outcome"] == outcome)


def adaptive_threshold(lake: Lake, domain: str, iteration: int, percentile: float, *, min_tasks: int = 5) -> float:
    """The `percentile` of the group mean rewards of the domain's tasks at `iteration` (of all
    domains' when the domain has fewer than `min_tasks`): tasks at or above it count as easy."""
    rewards = lake.query(load_sql("queries/group_rewards"), {"iteration": iteration}).to_dicts()
    mine = [r["mean_reward"] for r in rewards if r["domain"] == domain]
    pool = mine if len(mine) >= min_tasks else [r["mean_reward"] for r in rewards]
    if not pool:
        return DEFAULT_THRESHOLD
    ranked = sorted(pool)
    position = (len(ranked) - 1) * percentile / 100.0
    low, high = int(position), min(int(position) + 1, len(ranked) - 1)
    return ranked[low] + (ranked[high] - ranked[low]) * (position - low)


def harden_stage(
    lake: Lake,
    home: Home,
    domain: str,
    iteration: int,
    *,
    skills_root: Path,
    run_id: str,
    code_version: str,
    threshold: float = DEFAULT_THRESHOLD,
    inclusive: bool = False,
) -> HardeningStage:
    """Decide for every accepted task of `iteration`; write `hardening_rounds` (partition of k) and
    the tasks and blueprints of iteration k+1 (partition of k+1) in one transaction."""
    from skill2env.kits import KITS

    stage = HardeningStage(domain, iteration)
    store = TaskStore.of(home)
    rows = lake.query(load_sql("queries/hardening_inputs"), {"domain": domain, "iteration": iteration}).to_dicts()
    families = dict(lake.query("SELECT task_id, family FROM task_families").iter_rows())
    with lake.reading() as reader:
        for row in rows:
            results = reader.query(load_sql("queries/item_results_of_task"), {"task_id": row["task_id"]}).to_dicts()
            steps = reader.query(
                "SELECT rollout_id, step_id, tool_calls FROM trajectory_steps WHERE task_id = $task_id",
                {"task_id": row["task_id"]},
            ).to_dicts()
            family = families.get(row["task_id"], row["task_id"])
            stage.rounds.append(
                _decide(row, results, steps, family, KITS, store, skills_root, iteration, threshold, inclusive, stage)
            )
    writes = [
        TableWrite(
            "hardening_rounds",
            pl.DataFrame(stage.rounds, schema=HARDENING_ROUNDS_SCHEMA),
            partition_key=stage_partition(domain, iteration),
        ),
        TableWrite("tasks", tasks_frame(stage.children), partition_key=stage_partition(domain, iteration + 1)),
        TableWrite(
            "task_files", task_files_frame(stage.children), partition_key=stage_partition(domain, iteration + 1)
        ),
        TableWrite(
            "blueprints", blueprints_frame(stage.blueprints), partition_key=stage_partition(domain, iteration + 1)
        ),
    ]
    lake.write(writes, run_id=run_id, code_version=code_version)
    return stage


def _decide(row: Mapping[str, Any], results: list[dict[str, Any]], steps: list[dict[str, Any]], family: str,
            kits: Mapping[str, Any], store: TaskStore, skills_root: Path, iteration: int, threshold: float,
            inclusive: bool, stage: HardeningStage) -> dict[str, Any]:  # fmt: skip
    patterns = list(row["patterns"] or [])
    base = {"task_id": row["task_id"], "family": family, "iteration": iteration, "domain": row["domain"],
            "trigger_reward": row["mean_reward"], "triggered": False, "diagnosis": None, "proposal": None,
            "revision_diff": None, "child_task_id": None, "child_status": None, "patterns_before": patterns,
            "patterns_after": patterns, "grown_patterns": []}  # fmt: skip

    def carried(outcome: str, reason: str, **extra: Any) -> dict[str, Any]:
        child = _carry(row, iteration + 1, store)
        stage.children.append(child)
        return base | extra | {"outcome": outcome, "reason": reason, "child_task_id": child.task_id,
                               "child_status": child.status.value}  # fmt: skip

    if not row.get("attempts"):
        return carried("no_rollouts", "no scored rollouts of this task")
    if row["infra_errors"]:
        return carried("kept", f"{row['infra_errors']} attempts hit infrastructure errors: not a fair signal")
    if row.get("defects"):
        reason = f"construction defects in {row['defect_items']}: flagged for repair, not hardened"
        return carried("defective", reason)
    blueprint = Blueprint.model_validate_json(row["blueprint"]) if row.get("blueprint") else None
    kit = kits.get(str(row.get("author") or "").removeprefix("offline:"))
    linked = None
    if kit is not None and blueprint is not None:
        from skill2env.kits.hardening import items_by_pattern

        linked = items_by_pattern(blueprint)
    diagnosis = (
        diagnose(row["task_id"], blueprint, results, steps, linked=linked) if blueprint else Diagnosis(row["task_id"])
    )
    base["diagnosis"] = diagnosis.to_json()
    reward = row["mean_reward"] or 0.0
    if diagnosis.failures_from == "task":
        return carried("defective", "a challenge's items fail for the oracle too: an evaluator defect, not hardened")
    if reward < threshold or (reward == threshold and not inclusive):
        return carried(
            "kept", f"mean reward {reward:.2f} below the trigger {threshold:.2f}: the task still discriminates"
        )
    base["triggered"] = True
    if kit is None or blueprint is None:
        return carried("kept", f"no offline kit for author {row.get('author')!r} and no diagnoser model configured")
    group = {r["item_id"]: 1.0 for r in results}
    for r in results:
        if r["status"] != "passed":
            group[r["item_id"]] = 0.0  # an item counts as met only when every attempt met it
    proposal = kit.harden(blueprint, group)
    current = {c.pattern_id: c.intensity for c in blueprint.challenges}
    base["proposal"] = json.dumps(
        {"patterns": proposal, "from": current, "verdicts": diagnosis.verdicts()}, sort_keys=True
    )
    if proposal == current:
        return carried("kept", "every challenge is at intensity 3 and no compatible pattern is left")
    seed_match = _SEED.search(blueprint.task_name)
    seed = int(seed_match.group(1)) if seed_match else 0
    skill = SkillRef.model_validate(blueprint.skill.model_dump())
    try:
        draft = kit.build(seed, skill, blueprint.domain, proposal, iteration=iteration + 1, parent=blueprint,
                          proposal_id=f"offline-rules-{row['task_id']}")  # fmt: skip
    except Exception as exc:  # a kit that cannot build the proposal: the parent stays
        return carried("rejected", f"the kit could not build the proposal: {type(exc).__name__}: {exc}")
    record = build_task(draft, store, skill_dir=skills_root / str(row["skill_path"]))
    diff = draft.blueprint.revision.diff if draft.blueprint.revision else []
    extra = {"revision_diff": json.dumps(diff, sort_keys=True, default=str), "patterns_after": list(proposal)}
    if record.status != TaskStatus.built:
        return carried("rejected", "the hardened task failed the author-side checks: " + "; ".join(record.reasons[:3]),
                       **extra)  # fmt: skip
    stage.children.append(record)
    stage.blueprints.append((draft.blueprint, draft.author))
    reason = f"mean reward {reward:.2f} reached the trigger {threshold:.2f}"
    return base | extra | {"outcome": "hardened", "reason": reason, "child_task_id": record.task_id,
                           "child_status": record.status.value}  # fmt: skip


def _carry(row: Mapping[str, Any], iteration: int, store: TaskStore) -> TaskRecord:
    """The parent's task version, unchanged, as the task of the next iteration."""
    return TaskRecord(
        status=TaskStatus.built,
        task_id=task_id_of(str(row["task_name"]), iteration),
        task_name=row["task_name"],
        iteration=iteration,
        reasons=("carried: unchanged from the previous iteration",),
        skill_id=row["skill_id"],
        skill_path=row["skill_path"],
        domain=row["domain"],
        patterns=tuple(row["patterns"] or ()),
        blueprint_digest=row["blueprint_digest"],
        task_digest=row["task_digest"],
        store_path=row["store_path"],
        author=row["author"],
        environment="dockerfile",
        rubric=row["rubric"],
        leak_checked=row["leak_checked"],
        leak_leaked=row["leak_leaked"],
        findings=row["findings"] or "[]",
        files=task_files_of(store.resolve(str(row["store_path"]))),
    )

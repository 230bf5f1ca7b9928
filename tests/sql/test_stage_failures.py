"""`stage_failures`, and the authoring rows that made no task in `task_stats` and `lineage`: hand-written
rows of every stage in, one row per cause out."""

from __future__ import annotations

import polars as pl
from export_lake import filled
from rows import skill_row, skills_frame

from skill2env.agent.tables import ROLLOUTS_SCHEMA
from skill2env.hardening.stage import HARDENING_ROUNDS_SCHEMA
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.tasks.tables import TASKS_SCHEMA
from skill2env.validation.tables import VALIDATIONS_SCHEMA

DOMAIN = "data-analytics"
SKILLS = ("team/ok", "team/bad", "team/a", "team/b", "team/c", "team/d", "team/e")


def task(skill: str, status: str, reason: str | None = None, task_id: str | None = None) -> dict[str, object]:
    return filled(TASKS_SCHEMA, task_id=task_id, task_name=task_id, iteration=0, status=status, skill_id=f"id-{skill}",
                  skill_path=skill, domain=DOMAIN, patterns=["p1"], source="pipeline", findings="[]",
                  reasons=[reason] if reason else [], workspace_files=4 if task_id else 0)  # fmt: skip


def build(lake: Lake) -> None:
    tasks = [
        task("team/ok", "built", task_id="ok-i0"),
        task("team/bad", "rejected", "leak.answer: the total 412.50 shows in report.md", task_id="bad-i0"),
        task("team/a", "skipped", "author offline:kits declined: no world kit fits (best 0.12)"),
        task("team/b", "skipped", "author offline:kits declined: no world kit fits (best 0.20)"),
        task("team/c", "error", "author model:m failed: ModelUnavailable: timed out"),
        task("team/d", "rejected", "author model:m failed: blueprint: ModelRefused: the model refused: not this"),
        task(
            "team/e",
            "rejected",
            "author model:m failed: the task could not be built: build.unresolved_package: "
            "pip simpy-nope==1.0: no such package",
        ),
    ]
    gates = [filled(VALIDATIONS_SCHEMA, task_id="ok-i0", iteration=0, domain=DOMAIN, gate=gate, status=status,
                    evidence=evidence, accepted=False, backend="bwrap")
             for gate, status, evidence in (("oracle", "passed", "1.00"), ("nop", "failed", "scored 0.40"),
                                            ("hack_probe", "infra_error", "2 strategies not verified"))]  # fmt: skip
    rollouts = [filled(ROLLOUTS_SCHEMA, rollout_id=f"r{i}", group_id="g", attempt_run_id="run", task_id="ok-i0",
                       task_name="ok", domain=DOMAIN, iteration=0, policy="solver", attempt=i, backend="bwrap",
                       status=status, error=error)
                for i, (status, error) in enumerate((("completed", None), ("infra_error", "sandbox start failed: 3 s"),
                                                     ("max_turns", None)), 1)]  # fmt: skip
    rounds = [filled(HARDENING_ROUNDS_SCHEMA, task_id="ok-i0", family="ok-i0", iteration=0, domain=DOMAIN,
                     triggered=True, outcome="rejected", reason="the proposal does not apply: no 2")]  # fmt: skip
    partition = stage_partition(DOMAIN, 0)
    lake.write([
        TableWrite("skills", skills_frame(*(skill_row(p) for p in SKILLS))),
        TableWrite("tasks", pl.DataFrame(tasks, schema=TASKS_SCHEMA), DOMAIN),
        TableWrite("validations", pl.DataFrame(gates, schema=VALIDATIONS_SCHEMA), partition),
        TableWrite("rollouts", pl.DataFrame(rollouts, schema=ROLLOUTS_SCHEMA), partition),
        TableWrite("hardening_rounds", pl.DataFrame(rounds, schema=HARDENING_ROUNDS_SCHEMA), partition),
    ], run_id="r", code_version="t")  # fmt: skip


def test_every_stage_says_what_did_not_succeed_one_row_per_cause(lake: Lake) -> None:
    build(lake)
    rows = lake.query("SELECT stage, iteration, status, reason, items, example FROM stage_failures").rows()
    assert rows == [
        ("authoring", 0, "skipped", "no world kit fits", 2, "team/a"),
        ("authoring", 0, "error", "ModelUnavailable", 1, "team/c"),
        ("authoring", 0, "rejected", "blueprint: ModelRefused", 1, "team/d"),
        ("authoring", 0, "rejected", "leak.answer", 1, "bad-i0"),
        ("authoring", 0, "rejected", "the task could not be built: build.unresolved_package", 1, "team/e"),
        ("validation", 0, "infra_error", "hack_probe", 1, "ok-i0"),
        ("validation", 0, "failed", "nop", 1, "ok-i0"),
        ("rollouts", 0, "infra_error", "sandbox start failed", 1, "r2"),
        ("hardening", 0, "rejected", "the proposal does not apply", 1, "ok-i0"),
    ]  # fmt: skip
    example = lake.query("SELECT example_reason FROM stage_failures WHERE status = 'error'").item()
    assert example == "author model:m failed: ModelUnavailable: timed out"


def test_task_stats_and_lineage_keep_the_skills_that_made_no_task(lake: Lake) -> None:
    build(lake)
    stats = lake.query("SELECT skills, tasks_built, tasks_rejected, skills_skipped, authoring_errors, "
                       "workspace_files, files_per_task FROM task_stats WHERE domain = '*'").row(0)  # fmt: skip
    assert stats == (7, 1, 3, 2, 1, 8, 4.0), "a model's failed authoring counts as rejected"
    lineage = lake.query("SELECT DISTINCT skill_path, task_id, task_status FROM lineage ORDER BY skill_path").rows()
    assert lineage == [("team/a", None, "skipped"), ("team/b", None, "skipped"), ("team/bad", "bad-i0", "rejected"),
                       ("team/c", None, "error"), ("team/d", None, "rejected"), ("team/e", None, "rejected"),
                       ("team/ok", "ok-i0", "built")]  # fmt: skip

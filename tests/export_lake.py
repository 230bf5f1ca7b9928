"""A small hand-built lake for the export and report tests (and the views they read).

Three fixture task directories, each at iterations 0 and 1 (the iteration-1 version carried
unchanged, so with the same digest), plus a rejected task:

* `csv-aggregation` (data-analysis): sound. At i0 two attempts (reward 1.0 and 0.7) and one attempt
  that hit an infrastructure error; at i1 two attempts with full credit.
* `log-triage` (devops): flagged `defective` by the i0 hardening round, so its i1 copy (same digest,
  new id) is defective too. Two full-credit attempts at each iteration.
* `sales-summary` (data-analysis): at i0 the verification agent classified the failed item of its
  second attempt as an evaluator defect (`task_defects`); its i1 copy is as defective. Attempt 1
  earns full credit at both iterations, attempt 2 fails item `b`.
* `broken-i0`: rejected by the oracle gate, never rolled out.

Rubrics have two items: `a` (weight 0.7) and `b` (0.3).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import polars as pl
from harbor_tasks import CSV_AGGREGATION, LOG_TRIAGE, fixture_task
from rubric_helpers import RUBRIC_TASKS

from skill2env.agent.tables import ROLLOUTS_SCHEMA
from skill2env.exports.sft import SFT_EXAMPLES_SCHEMA
from skill2env.hardening.stage import HARDENING_ROUNDS_SCHEMA
from skill2env.home import Home
from skill2env.lake.home_lake import lake_of
from skill2env.lake.lake import Lake, TableWrite
from skill2env.rubric.tables import RUBRIC_SCORES_SCHEMA
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import TASKS_SCHEMA
from skill2env.validation.classification import FAILURE_CLASSIFICATIONS_SCHEMA
from skill2env.validation.tables import VALIDATIONS_SCHEMA

SALES_SUMMARY = "sales-summary"
DOMAINS = {CSV_AGGREGATION: "data-analysis", LOG_TRIAGE: "devops", SALES_SUMMARY: "data-analysis"}
SECOND_ATTEMPT_FAILS_B = {(CSV_AGGREGATION, 0), (SALES_SUMMARY, 0), (SALES_SUMMARY, 1)}
ITEMS = (("a", 0.7), ("b", 0.3))
GATES = ("oracle", "nop", "partial", "leak", "judge")
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
TOOLS = [{"type": "function", "function": {"name": "bash", "description": "Run a command.",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}]  # fmt: skip
EXPORTED_SFT = ("csv-aggregation-i0-a1", "csv-aggregation-i1-a1", "csv-aggregation-i1-a2")
"""The SFT examples with reward > 0.9 that qualify (not defective, no infrastructure error)."""


def filled(schema: pl.Schema, **values: Any) -> dict[str, Any]:
    """A row with every column: NULL text, a neutral value of other types (the DDL's NOT NULLs hold)."""
    defaults = {pl.Int64: 0, pl.Float64: 0.0, pl.Boolean: False, pl.List: [], pl.Datetime: WHEN}
    row = {name: defaults.get(type(dtype)) for name, dtype in schema.items()}
    return row | values


def chat(task_id: str) -> tuple[str, str]:
    """(messages, tools) of a valid chat example, as the lake stores them (JSON text)."""
    messages = [
        {"role": "system", "content": "You are a careful agent."},
        {"role": "user", "content": f"Solve {task_id}."},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function",
                                              "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "data.csv"},
        {"role": "assistant", "content": "Done: wrote the report."},
    ]  # fmt: skip
    return json.dumps(messages), json.dumps(TOOLS)


def build_export_lake(home: Home) -> Lake:
    """Store the fixture tasks under `home` and write the tables the exports and the report read."""
    lake = lake_of(home, lock_timeout=60)
    store = TaskStore.of(home)
    tasks, validations, rollouts, scores, sft, rounds = [], [], [], [], [], []
    for name, domain in DOMAINS.items():
        stored = store.put_dir(RUBRIC_TASKS / name if name == SALES_SUMMARY else fixture_task(name).root)
        for k in (0, 1):
            task_id = f"{name}-i{k}"
            tasks.append(filled(TASKS_SCHEMA, task_id=task_id, task_name=name, iteration=k, status="built",
                                 skill_id=f"skill-{name}", skill_path=f"skills/{name}", domain=domain,
                                 patterns=["distributed_evidence"], task_digest=stored.digest,
                                 store_path=stored.relative_path, workspace_files=3, formats=["csv"],
                                 source="pipeline", findings="[]", schema_version=1))  # fmt: skip
            validations += [filled(VALIDATIONS_SCHEMA, task_id=task_id, iteration=k, domain=domain, gate=gate,
                                   status="passed", evidence="ok", accepted=True, backend="bwrap")
                            for gate in GATES]  # fmt: skip
            attempts = {1: (1.0, 1.0), 2: (1.0, 0.0) if (name, k) in SECOND_ATTEMPT_FAILS_B else (1.0, 1.0)}
            for attempt, (qa, qb) in attempts.items():
                rollout_id = f"{task_id}-a{attempt}"
                reward = 0.7 * qa + 0.3 * qb
                rollouts.append(_rollout(rollout_id, task_id, name, domain, k, attempt, stored.digest, "completed"))
                scores += [filled(RUBRIC_SCORES_SCHEMA, rollout_id=rollout_id, task_id=task_id, iteration=k,
                                   domain=domain, policy="solver", attempt=attempt, verification="scored",
                                   reward=reward, raw_reward=reward, scored_weight=1.0, full_credit=reward >= 0.999,
                                   item_id=item, method="deterministic", weight=weight,
                                   status="passed" if q == 1.0 else "failed", q=q, evidence="{}", error=None,
                                   isolation="fresh")
                           for (item, weight), q in zip(ITEMS, (qa, qb), strict=True)]  # fmt: skip
                sft.append(_sft(rollout_id, task_id, name, domain, k, stored.digest, reward))
        outcome = "defective" if name == LOG_TRIAGE else "kept"
        rounds.append(filled(HARDENING_ROUNDS_SCHEMA, task_id=f"{name}-i0", family=f"{name}-i0", iteration=0,
                              domain=domain, trigger_reward=1.0, triggered=outcome == "kept", outcome=outcome,
                              reason=outcome, child_task_id=f"{name}-i1", child_status="built"))  # fmt: skip
    # An attempt whose sandbox failed: never verified, and never an SFT example (even a stray row).
    infra = "csv-aggregation-i0-a3"
    rollouts.append(_rollout(infra, "csv-aggregation-i0", CSV_AGGREGATION, "data-analysis", 0, 3, None, "infra_error"))
    scores.append(filled(RUBRIC_SCORES_SCHEMA, rollout_id=infra, task_id="csv-aggregation-i0", iteration=0,
                          domain="data-analysis", policy="solver", attempt=3, verification="infra_error",
                          reward=None, raw_reward=None, scored_weight=None, full_credit=False, item_id=None,
                          method=None, weight=None, status=None, q=None, evidence=None, error="sandbox died",
                          isolation="fresh"))  # fmt: skip
    sft.append(_sft(infra, "csv-aggregation-i0", CSV_AGGREGATION, "data-analysis", 0, None, 0.95))
    tasks.append(filled(TASKS_SCHEMA, task_id="broken-i0", task_name="broken", iteration=0, status="built",
                         domain="data-analysis", task_digest="f" * 64, store_path="objects/sha256/ff/missing",
                         source="pipeline", findings="[]", schema_version=1))  # fmt: skip
    validations.append(filled(VALIDATIONS_SCHEMA, task_id="broken-i0", iteration=0, domain="data-analysis",
                              gate="oracle", status="failed", evidence="reward 0", accepted=False,
                              backend="bwrap"))  # fmt: skip
    defect = {"rollout_id": "sales-summary-i0-a2", "task_id": "sales-summary-i0", "iteration": 0,
              "domain": "data-analysis", "item_id": "b", "classification": "evaluator_defect", "decided_by": "rules",
              "evidence": "the oracle fails it too"}  # fmt: skip
    writes = [
        TableWrite("failure_classifications", pl.DataFrame([defect], schema=FAILURE_CLASSIFICATIONS_SCHEMA), "all"),
        TableWrite("tasks", pl.DataFrame(tasks, schema=TASKS_SCHEMA), "all"),
        TableWrite("validations", pl.DataFrame(validations, schema=VALIDATIONS_SCHEMA), "all"),
        TableWrite("rollouts", pl.DataFrame(rollouts, schema=ROLLOUTS_SCHEMA), "all"),
        TableWrite("rubric_scores", pl.DataFrame(scores, schema=RUBRIC_SCORES_SCHEMA), "all"),
        TableWrite("sft_examples", pl.DataFrame(sft, schema=SFT_EXAMPLES_SCHEMA), "all"),
        TableWrite("hardening_rounds", pl.DataFrame(rounds, schema=HARDENING_ROUNDS_SCHEMA), "all"),
    ]
    lake.write(writes, run_id="export-lake", code_version="test")
    return lake


def _rollout(rollout_id: str, task_id: str, name: str, domain: str, k: int, attempt: int, digest: str | None,
             status: str) -> dict[str, Any]:  # fmt: skip
    return filled(ROLLOUTS_SCHEMA, rollout_id=rollout_id, group_id=f"{task_id}-g", attempt_run_id="run",
                   task_id=task_id, task_name=name, domain=domain, iteration=k, task_digest=digest, policy="solver",
                   model="m", attempt=attempt, backend="bwrap", status=status, started_at=WHEN, finished_at=WHEN,
                   turns=10 + 5 * k, schema_version=1)  # fmt: skip


def _sft(rollout_id: str, task_id: str, name: str, domain: str, k: int, digest: str | None,
         reward: float) -> dict[str, Any]:  # fmt: skip
    messages, tools = chat(task_id)
    return {"example_id": rollout_id, "rollout_id": rollout_id, "task_id": task_id, "iteration": k, "domain": domain,
            "skill_id": f"skill-{name}", "skill_path": f"skills/{name}", "blueprint_digest": None,
            "task_digest": digest, "policy": "solver", "model": "m", "reward": reward, "turns": 10 + 5 * k,
            "messages": messages, "tools": tools}  # fmt: skip

"""`defective_tasks`: the tasks flagged by a hardening round or by `task_defects`, each stored version with
its digest, read by the RL export and the SFT candidates; and the threshold macros the views read."""

from __future__ import annotations

import re
from typing import Any

import polars as pl
import pytest

from skill2env import thresholds
from skill2env.hardening.stage import HARDENING_ROUNDS_SCHEMA
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import SQL_DIR, load_sql
from skill2env.tasks.tables import TASKS_SCHEMA
from skill2env.validation.classification import FAILURE_CLASSIFICATIONS_SCHEMA

DOMAIN = "data-analysis"


def row(schema: pl.Schema, **values: Any) -> dict[str, Any]:
    """Every column: NULL text, a neutral value of other types (the DDL's NOT NULLs hold)."""
    neutral = {pl.Int64: 0, pl.Float64: 0.0, pl.Boolean: False, pl.List: []}
    return {name: neutral.get(type(dtype)) for name, dtype in schema.items()} | values


def task(task_id: str, digest: str, iteration: int = 0) -> dict[str, Any]:
    return row(TASKS_SCHEMA, task_id=task_id, task_name=task_id.split("-i")[0], iteration=iteration, status="built",
               domain=DOMAIN, task_digest=digest, store_path=f"objects/sha256/{digest}", source="pipeline",
               findings="[]", schema_version=1)  # fmt: skip


def hardening(task_id: str, outcome: str) -> dict[str, Any]:
    return row(HARDENING_ROUNDS_SCHEMA, task_id=task_id, family=task_id, iteration=0, domain=DOMAIN,
               trigger_reward=1.0, outcome=outcome, reason=outcome)  # fmt: skip


def defect(task_id: str, classification: str) -> dict[str, Any]:
    return {"rollout_id": f"{task_id}-a1", "task_id": task_id, "iteration": 0, "domain": DOMAIN, "item_id": "totals",
            "classification": classification, "decided_by": "rules", "evidence": "the oracle fails it too"}  # fmt: skip


@pytest.fixture
def flagged(lake: Lake) -> Lake:
    """a: defective by a hardening round (two stored versions); b: by `task_defects`; c: by both; d: kept, and
    its failure an agent's; e: carried unchanged from b under a new id; ghost: flagged, never stored."""
    tasks = [task("a-i0", "d-a"), task("a-i0", "d-a2"), task("b-i0", "d-b"), task("c-i0", "d-c"),
             task("d-i0", "d-d"), task("e-i1", "d-b", iteration=1)]  # fmt: skip
    rounds = [hardening("a-i0", "defective"), hardening("c-i0", "defective"), hardening("d-i0", "kept"),
              hardening("ghost-i0", "defective")]  # fmt: skip
    defects = [defect("b-i0", "evaluator_defect"), defect("c-i0", "missing_material"), defect("d-i0", "agent_failure")]
    lake.write(
        [
            TableWrite("tasks", pl.DataFrame(tasks, schema=TASKS_SCHEMA), "all"),
            TableWrite("hardening_rounds", pl.DataFrame(rounds, schema=HARDENING_ROUNDS_SCHEMA), "all"),
            TableWrite("failure_classifications", pl.DataFrame(defects, schema=FAILURE_CLASSIFICATIONS_SCHEMA), "all"),
        ],
        run_id="r1",
        code_version="t",
    )
    return lake


def test_defective_tasks_lists_every_stored_version_of_every_flagged_task_and_what_flagged_it(flagged: Lake) -> None:
    rows = flagged.query("SELECT task_id, task_digest, flagged_by FROM defective_tasks ORDER BY task_id, task_digest")

    assert rows.rows() == [
        ("a-i0", "d-a", ["hardening_rounds"]),
        ("a-i0", "d-a2", ["hardening_rounds"]),
        ("b-i0", "d-b", ["task_defects"]),
        ("c-i0", "d-c", ["hardening_rounds", "task_defects"]),
        ("ghost-i0", None, ["hardening_rounds"]),
    ]


def test_no_query_keeps_its_own_copy_of_the_defective_rule(flagged: Lake) -> None:
    """The RL export and the SFT candidates read the view: a copy carried under a new id (e-i1, b's content)
    is left out by digest, a kept task stays."""
    for name in ("rl_tasks", "sft_candidates"):
        text = load_sql(f"queries/{name}")
        assert "FROM defective_tasks" in text, name
        assert "FROM hardening_rounds" not in text and "FROM task_defects" not in text, name
    readers = [p.name for p in sorted(SQL_DIR.rglob("*.sql")) if "outcome = 'defective'" in p.read_text()]
    assert readers == ["455_defective_tasks.sql"]
    by_content = "SELECT task_id FROM tasks WHERE task_digest IN (SELECT task_digest FROM defective_tasks)"
    defective = flagged.query(by_content)
    assert sorted(defective.get_column("task_id").to_list()) == ["a-i0", "a-i0", "b-i0", "c-i0", "e-i1"]


def test_views_read_the_thresholds_module_through_macros(lake: Lake) -> None:
    values = lake.query("SELECT full_credit_at() AS f, sft_min_reward() AS s, pass_rate_floor() AS p").row(0)

    assert values == (thresholds.FULL_CREDIT_AT, thresholds.SFT_MIN_REWARD, thresholds.PASS_RATE_FLOOR)
    assert set(thresholds.sql_macros()) == {"full_credit_at", "sft_min_reward", "pass_rate_floor"}


def test_no_sql_file_repeats_a_threshold_as_a_literal() -> None:
    """Comparisons with a threshold's value belong to the macros (views) or to parameters (queries)."""
    literal = re.compile(r"(?:[<>]=?|\+)\s*(0\.999|0\.9|0\.1|0\.99)\b(?![\d.])")
    found = []
    for path in sorted(SQL_DIR.rglob("*.sql")):
        code = "\n".join(line.split("--", 1)[0] for line in path.read_text(encoding="utf-8").splitlines())
        found += [(path.name, m.group(0)) for m in literal.finditer(code)]
    assert found == []

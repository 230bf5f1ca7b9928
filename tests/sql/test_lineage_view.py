"""`lineage`: hand-written rows in, one row per (skill, task version, rollout) out — and the same rows as
the view's previous definition (every LEFT JOIN chained off `skills`), kept here as the reference. A skill
whose authoring made no task keeps that row in both (`task_status` skipped, no task id)."""

from __future__ import annotations

import polars as pl
from export_lake import WHEN, filled
from rows import curated_frame, curated_row, skill_row, skills_frame

from skill2env.agent.tables import ROLLOUTS_SCHEMA
from skill2env.exports.sft import SFT_EXAMPLES_SCHEMA
from skill2env.hardening.stage import HARDENING_ROUNDS_SCHEMA
from skill2env.lake.lake import Lake, TableWrite
from skill2env.patterns.tables import PATTERN_SELECTIONS_SCHEMA
from skill2env.rubric.tables import RUBRIC_SCORES_SCHEMA
from skill2env.tasks.tables import BLUEPRINTS_SCHEMA, TASKS_SCHEMA

PREVIOUS_LINEAGE = """
WITH selected AS (
    SELECT skill_id, list(pattern_id ORDER BY rank) FILTER (WHERE pattern_id IS NOT NULL) AS selected_patterns
    FROM pattern_selections
    GROUP BY skill_id
)
SELECT s.skill_id, s.path AS skill_path, s.name AS skill_name, s.domain,
       c.curated,
       sel.selected_patterns,
       b.blueprint_digest, b.parent_digest,
       t.task_id, t.task_name, t.iteration, t.task_digest, t.status AS task_status, t.patterns AS task_patterns,
       f.family,
       r.rollout_id, r.policy, r.attempt, r.status AS rollout_status, r.trajectory_path,
       w.reward, w.full_credit,
       e.example_id
FROM skills AS s
LEFT JOIN curated_skills AS c ON c.skill_id = s.skill_id AND c.path = s.path
LEFT JOIN selected AS sel ON sel.skill_id = s.skill_id
LEFT JOIN tasks AS t ON t.skill_id = s.skill_id
LEFT JOIN blueprints AS b ON b.blueprint_digest = t.blueprint_digest
LEFT JOIN task_families AS f ON f.task_id = t.task_id
LEFT JOIN rollouts AS r ON r.task_id = t.task_id
LEFT JOIN rollout_rewards AS w ON w.rollout_id = r.rollout_id
LEFT JOIN sft_examples AS e ON e.rollout_id = r.rollout_id
"""
DOMAIN = "data-analytics"
CSV, LOG, MAC = "team/csv", "team/log", "other/mac"


def task(task_id: str | None, skill: str, k: int, *, blueprint: str | None = None,
         status: str = "built") -> dict[str, object]:  # fmt: skip
    name = task_id.rsplit("-i", 1)[0] if task_id else None
    return filled(TASKS_SCHEMA, task_id=task_id, task_name=name, iteration=k, status=status, skill_id=f"id-{skill}",
                  skill_path=skill, domain=DOMAIN, patterns=["p1"], blueprint_digest=blueprint,
                  task_digest=f"d-{task_id}" if task_id else None, source="pipeline", findings="[]")  # fmt: skip


def rollout(rollout_id: str, task_id: str, attempt: int) -> dict[str, object]:
    return filled(ROLLOUTS_SCHEMA, rollout_id=rollout_id, group_id="g", attempt_run_id="run", task_id=task_id,
                  task_name=task_id.rsplit("-i", 1)[0], domain=DOMAIN, iteration=1, policy="solver", attempt=attempt,
                  backend="bwrap", status="completed", started_at=WHEN,
                  trajectory_path=f"trajectories/{rollout_id}")  # fmt: skip


def score(rollout_id: str, attempt: int, item: str | None, reward: float | None) -> dict[str, object]:
    return filled(RUBRIC_SCORES_SCHEMA, rollout_id=rollout_id, task_id="csv-i1", iteration=1, domain=DOMAIN,
                  policy="solver", attempt=attempt, verification="scored" if item else "infra_error", reward=reward,
                  full_credit=reward == 1.0, item_id=item, weight=1.0 if item else None,
                  status="passed" if item else None, q=1.0 if item else None)  # fmt: skip


def build(lake: Lake) -> None:
    """Three skills: `csv` curated, with a task hardened once (i0 → i1) whose i1 version has a scored rollout
    (an SFT example) and one the verifier could not score; `log` curated, a task never rolled out and no
    compatible pattern; `mac` not curated, only a skipped task row (no task id)."""
    selections = [filled(PATTERN_SELECTIONS_SCHEMA, skill_id=f"id-{CSV}", path=CSV, domain=DOMAIN, status="selected",
                         rank=rank, pattern_id=pattern, chooser="rules", pool_digest="p")
                  for rank, pattern in ((2, "state_dependency"), (1, "distributed_evidence"))]  # fmt: skip
    selections.append(filled(PATTERN_SELECTIONS_SCHEMA, skill_id=f"id-{LOG}", path=LOG, domain=DOMAIN,
                             status="no_compatible_pattern", chooser="rules", pool_digest="p"))  # fmt: skip
    blueprints = [filled(BLUEPRINTS_SCHEMA, task_name=name, iteration=k, blueprint_digest=digest, parent_digest=parent,
                         skill_id=f"id-{skill}", skill_name=skill, skill_path=skill, domain=DOMAIN, patterns=["p1"],
                         author="offline:billing", blueprint="{}", schema_version=1)
                  for name, k, digest, parent, skill in (("csv", 0, "bp-csv-0", None, CSV),
                                                         ("csv", 1, "bp-csv-1", "bp-csv-0", CSV),
                                                         ("log", 0, "bp-log-0", None, LOG))]  # fmt: skip
    tasks = [task("csv-i0", CSV, 0, blueprint="bp-csv-0"), task("csv-i1", CSV, 1, blueprint="bp-csv-1"),
             task("log-i0", LOG, 0, blueprint="bp-log-0"), task(None, MAC, 0, status="skipped")]  # fmt: skip
    rounds = [filled(HARDENING_ROUNDS_SCHEMA, task_id="csv-i0", family="csv-i0", iteration=0, domain=DOMAIN,
                     triggered=True, outcome="hardened", reason="easy", child_task_id="csv-i1")]  # fmt: skip
    scores = [score("r1", 1, "a", 1.0), score("r1", 1, "b", 1.0), score("r2", 2, None, None)]
    example = {"example_id": "r1", "rollout_id": "r1", "task_id": "csv-i1", "iteration": 1, "domain": DOMAIN,
               "policy": "solver", "reward": 1.0, "messages": "[]", "tools": "[]"}  # fmt: skip
    frames = {
        "skills": skills_frame(skill_row(CSV), skill_row(LOG), skill_row(MAC)),
        "curated_skills": curated_frame(curated_row(CSV), curated_row(LOG), curated_row(MAC, curated=False)),
        "pattern_selections": pl.DataFrame(selections, schema=PATTERN_SELECTIONS_SCHEMA),
        "blueprints": pl.DataFrame(blueprints, schema=BLUEPRINTS_SCHEMA),
        "tasks": pl.DataFrame(tasks, schema=TASKS_SCHEMA),
        "hardening_rounds": pl.DataFrame(rounds, schema=HARDENING_ROUNDS_SCHEMA),
        "rollouts": pl.DataFrame([rollout("r1", "csv-i1", 1), rollout("r2", "csv-i1", 2)], schema=ROLLOUTS_SCHEMA),
        "rubric_scores": pl.DataFrame(scores, schema=RUBRIC_SCORES_SCHEMA),
        "sft_examples": pl.DataFrame([example], schema=SFT_EXAMPLES_SCHEMA),
    }
    lake.write([TableWrite(table, frame, DOMAIN) for table, frame in frames.items()], run_id="r", code_version="t")


def test_lineage_has_one_row_per_skill_task_version_and_rollout(lake: Lake) -> None:
    build(lake)
    rows = lake.query(
        "SELECT skill_path, curated, selected_patterns, blueprint_digest, parent_digest, task_id, family, rollout_id, "
        "rollout_status, reward, full_credit, example_id, task_status FROM lineage "
        "ORDER BY skill_path, task_id, rollout_id"
    ).rows()
    patterns = ["distributed_evidence", "state_dependency"]
    assert rows == [
        (MAC, False, None, None, None, None, None, None, None, None, None, None, "skipped"),
        (CSV, True, patterns, "bp-csv-0", None, "csv-i0", "csv-i0", None, None, None, None, None, "built"),
        (CSV, True, patterns, "bp-csv-1", "bp-csv-0", "csv-i1", "csv-i0", "r1", "completed", 1.0, True, "r1", "built"),
        (
            CSV,
            True,
            patterns,
            "bp-csv-1",
            "bp-csv-0",
            "csv-i1",
            "csv-i0",
            "r2",
            "completed",
            None,
            False,
            None,
            "built",
        ),
        (LOG, True, None, "bp-log-0", None, "log-i0", "log-i0", None, None, None, None, None, "built"),
    ]


def test_lineage_returns_the_rows_of_its_previous_definition(lake: Lake) -> None:
    build(lake)
    current = lake.query("SELECT * FROM lineage")
    previous = lake.query(PREVIOUS_LINEAGE)
    assert current.columns == previous.columns and current.dtypes == previous.dtypes
    difference = f"SELECT count(*) FROM ((SELECT * FROM lineage) EXCEPT ALL ({PREVIOUS_LINEAGE}))"
    assert current.height == previous.height == 5
    assert lake.query(difference).item() == 0
    assert lake.query(f"SELECT count(*) FROM (({PREVIOUS_LINEAGE}) EXCEPT ALL (SELECT * FROM lineage))").item() == 0

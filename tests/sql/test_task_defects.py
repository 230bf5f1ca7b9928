"""`failure_classifications` and `task_defects`: hand-written rows in, defective tasks out; and the
verification stage end to end on a lake holding tasks, blueprints, validations and rubric scores."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import polars as pl
from task_samples import AUTHOR, INSTRUCTION, billing_blueprint, billing_workspace

from skill2env.home import Home
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.lake.sqlfiles import load_sql
from skill2env.rubric.models import Rubric
from skill2env.rubric.results import ItemResult, VerificationResult
from skill2env.rubric.tables import ScoredRollout, scores_frame
from skill2env.tasks.blueprint import Blueprint
from skill2env.tasks.store import TaskStore
from skill2env.tasks.tables import TASKS_SCHEMA, blueprints_frame
from skill2env.validation.classification import (
    ClassificationStage,
    classify_failures_stage,
    failure_classifications_frame,
)
from skill2env.validation.classifier import Classification, FailureClass, FailureClassifier
from skill2env.validation.gates import Gate, GateOutcome, GateStatus, Validation
from skill2env.validation.tables import validations_frame

DOMAIN = "office-documents"


def case(rollout: str, task: str, item: str, kind: FailureClass, decided_by: str = "rules") -> Classification:
    return Classification(rollout_id=rollout, task_id=task, item_id=item, classification=kind, decided_by=decided_by,
                          evidence=f"{item} in {rollout}")  # fmt: skip


def write(lake: Lake, iteration: int, cases: list[Classification], run: str, domain: str = DOMAIN) -> None:
    frame = failure_classifications_frame(cases, domain, iteration)
    lake.write([TableWrite("failure_classifications", frame, stage_partition(domain, iteration))], run_id=run,
               code_version="t")  # fmt: skip


def _classify(lake: Lake, home: Home, run_id: str, verifier: FailureClassifier | None = None) -> ClassificationStage:
    """The failure-classification stage of iteration 0 as its asset runs it: read, classify, write."""
    bound = {"domain": DOMAIN, "iteration": 0}
    failed = lake.query(load_sql("queries/failed_items_of_domain"), bound).to_dicts()
    tasks = lake.query(load_sql("queries/verification_inputs_of_domain"), bound).to_dicts()
    stage = classify_failures_stage(failed, tasks, home, DOMAIN, 0, verifier=verifier)
    lake.write(stage.writes, run_id=run_id, code_version="t")
    return stage


def test_task_defects_has_one_row_per_task_with_a_construction_defect(lake: Lake) -> None:
    agent, defect, missing = FailureClass.agent_failure, FailureClass.evaluator_defect, FailureClass.missing_material
    write(lake, 0, [case("r1", "a-i0", "totals", defect), case("r2", "a-i0", "totals", defect),
                    case("r2", "a-i0", "lines", missing, "verifier:m"), case("r2", "a-i0", "note", agent),
                    case("r3", "b-i0", "totals", agent)], "run-1")  # fmt: skip
    write(lake, 1, [case("r9", "a-i1", "lines", missing)], "run-1")

    defects = lake.query("SELECT * FROM task_defects ORDER BY task_id")

    assert defects.to_dicts() == [
        {"task_id": "a-i0", "domain": DOMAIN, "iteration": 0, "evaluator_defects": 2, "missing_material": 1,
         "agent_failures": 1, "rollouts_affected": 2, "evaluator_defect_items": ["totals"],
         "missing_material_items": ["lines"], "defect_items": ["lines", "totals"]},
        {"task_id": "a-i1", "domain": DOMAIN, "iteration": 1, "evaluator_defects": 0, "missing_material": 1,
         "agent_failures": 0, "rollouts_affected": 1, "evaluator_defect_items": [],
         "missing_material_items": ["lines"], "defect_items": ["lines"]},
    ]  # fmt: skip
    decided = lake.query("SELECT decided_by, count(*) FROM failure_classifications GROUP BY 1 ORDER BY 1").rows()
    assert decided == [("rules", 5), ("verifier:m", 1)]


def test_a_rewrite_of_a_partition_replaces_its_classifications(lake: Lake) -> None:
    write(lake, 0, [case("r1", "a-i0", "totals", FailureClass.evaluator_defect)], "run-1")
    write(lake, 0, [case("r1", "a-i0", "totals", FailureClass.agent_failure)], "run-2")
    write(lake, 0, [case("r5", "c-i0", "x", FailureClass.evaluator_defect)], "run-2", domain="finance")

    assert lake.query("SELECT task_id FROM task_defects").rows() == [("c-i0",)]
    assert lake.query("SELECT count(*) FROM failure_classifications_versions").item() == 3
    rows = lake.query("SELECT task_id, classification, run_id, partition_key FROM failure_classifications ORDER BY 1")
    assert rows.rows() == [("a-i0", "agent_failure", "run-2", f"{DOMAIN}@i0"), ("c-i0", "evaluator_defect", "run-2",
                                                                                "finance@i0")]  # fmt: skip


# -- the stage ------------------------------------------------------------------------------------------


def store_task(home: Home, tmp_path: Path, name: str, workspace: Mapping[str, bytes]) -> str:
    root = tmp_path / "build" / name
    for path, data in workspace.items():
        (root / "environment" / "workspace" / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "environment" / "workspace" / path).write_bytes(data)
    (root / "instruction.md").write_text(INSTRUCTION)
    return TaskStore.of(home).put_dir(root).relative_path


def task_row(task_id: str, store_path: str, blueprint: Blueprint) -> dict[str, object]:
    row: dict[str, object] = {name: [] if isinstance(dtype, pl.List) else None for name, dtype in TASKS_SCHEMA.items()}
    return row | {"task_id": task_id, "task_name": task_id[:-3], "iteration": 0, "status": "built", "domain": DOMAIN,
                  "store_path": store_path, "rubric": blueprint.rubric.model_dump_json(), "workspace_files": 9,
                  "blueprint_digest": blueprint.digest(), "source": "pipeline", "findings": "[]",
                  "schema_version": 1}  # fmt: skip


def oracle(task_id: str, items: Mapping[str, float | None]) -> Validation:
    return Validation(task_id, (GateOutcome(Gate.oracle, GateStatus.passed, "oracle", 1.0, 0.99, "oracle-1",
                                            dict(items)),))  # fmt: skip


def rollout(task_id: str, rollout_id: str, rubric: Rubric, failing: Sequence[str]) -> ScoredRollout:
    results = [ItemResult.scored(item, 0.0 if item.id in failing else 1.0, evidence={"diff": f"{item.id} off"})
               for item in rubric.items]  # fmt: skip
    result = VerificationResult.scored_from(rubric, results, rollout_id=rollout_id)
    return ScoredRollout(rollout_id, task_id, 0, DOMAIN, "solver", int(rollout_id[-1]), result)


class Confirming:
    """A stand-in verifier that marks what it reviewed."""

    def __init__(self) -> None:
        self.tasks: list[int] = []

    def review(self, blueprint: Blueprint | None, rubric: Rubric, failures: Mapping[str, Sequence[ItemResult]],
               classifications: Sequence[Classification], task_dir: Path | None) -> list[Classification]:  # fmt: skip
        self.tasks.append(len(classifications))
        return [c.model_copy(update={"decided_by": "verifier:stub"}) for c in classifications]


def test_the_stage_classifies_the_iterations_failures_and_flags_defective_tasks(lake: Lake, tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    blueprint = billing_blueprint()
    rubric = blueprint.rubric
    fair = store_task(home, tmp_path, "fair", billing_workspace())
    broken_files = dict(billing_workspace())
    broken_files["rate_annex.html"] = broken_files["rate_annex.html"].replace(b"118.50", b"119.00")
    broken = store_task(home, tmp_path, "broken", broken_files)
    passed = {item.id: 1.0 for item in rubric.items}
    tasks = pl.DataFrame([task_row("fair-i0", fair, blueprint), task_row("broken-i0", broken, blueprint)],
                         schema=TASKS_SCHEMA)  # fmt: skip
    lake.write([
        TableWrite("tasks", tasks, DOMAIN),
        TableWrite("blueprints", blueprints_frame([(blueprint, AUTHOR)]), DOMAIN),
        TableWrite("validations", validations_frame([(oracle("fair-i0", passed | {"detail_lines": 0.0}), DOMAIN, 0),
                                                     (oracle("broken-i0", passed), DOMAIN, 0)], "bwrap"),
                   stage_partition(DOMAIN, 0)),
        TableWrite("rubric_scores", scores_frame([rollout("fair-i0", "fair-r1", rubric, ["detail_lines"]),
                                                  rollout("fair-i0", "fair-r2", rubric, ["summary_totals"]),
                                                  rollout("broken-i0", "broken-r1", rubric, ["summary_totals"]),
                                                  rollout("clean-i0", "clean-r1", rubric, [])]),
                   stage_partition(DOMAIN, 0)),
    ], run_id="setup", code_version="t")  # fmt: skip

    stage = _classify(lake, home, "verify-1")

    assert (stage.tasks, stage.skipped, stage.defective_tasks) == (2, {}, ["broken-i0", "fair-i0"])
    assert stage.counts == {"evaluator_defect": 1, "agent_failure": 1, "missing_material": 1}
    rows = lake.query("SELECT rollout_id, task_id, iteration, domain, item_id, classification, decided_by, "
                      "partition_key FROM failure_classifications ORDER BY rollout_id")  # fmt: skip
    assert rows.rows() == [
        ("broken-r1", "broken-i0", 0, DOMAIN, "summary_totals", "missing_material", "rules", f"{DOMAIN}@i0"),
        ("fair-r1", "fair-i0", 0, DOMAIN, "detail_lines", "evaluator_defect", "rules", f"{DOMAIN}@i0"),
        ("fair-r2", "fair-i0", 0, DOMAIN, "summary_totals", "agent_failure", "rules", f"{DOMAIN}@i0"),
    ]  # fmt: skip
    evidence = dict(lake.query("SELECT rollout_id, evidence FROM failure_classifications").iter_rows())
    assert "rate_senior ('118.50')" in evidence["broken-r1"] and "oracle q=0.00" in evidence["fair-r1"]
    assert "summary_totals off" in evidence["fair-r2"]
    defects = lake.query("SELECT task_id, evaluator_defects, missing_material, defect_items FROM task_defects "
                         "ORDER BY task_id")  # fmt: skip
    assert defects.rows() == [("broken-i0", 0, 1, ["summary_totals"]), ("fair-i0", 1, 0, ["detail_lines"])]

    verifier = Confirming()
    again = _classify(lake, home, "verify-2", verifier)

    assert sorted(verifier.tasks) == [1, 2] and len(again.classifications) == 3
    assert lake.query("SELECT DISTINCT decided_by, run_id FROM failure_classifications").rows() == [
        ("verifier:stub", "verify-2")
    ]


def test_the_stage_writes_an_empty_partition_when_nothing_failed(lake: Lake, tmp_path: Path) -> None:
    write(lake, 0, [case("r1", "a-i0", "totals", FailureClass.evaluator_defect)], "old")

    stage = _classify(lake, Home(tmp_path / "home"), "new")

    assert (stage.tasks, stage.classifications) == (0, [])
    assert lake.query("SELECT count(*) FROM task_defects").item() == 0

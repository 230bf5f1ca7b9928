"""`hack_probes` and `hack_probe_funnel`: probe outcomes in, per domain / iteration / strategy counts out;
a rewrite of a partition replaces its rows."""

from __future__ import annotations

from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.partitions import stage_partition
from skill2env.validation.gates import Validation
from skill2env.validation.hack_probes import ProbeOutcome, ProbeStatus
from skill2env.validation.hack_probes.tables import hack_probes_frame

PASSED, FAILED, BROKEN = ProbeStatus.passed, ProbeStatus.failed, ProbeStatus.infra_error


def probes(task: str, **outcomes: tuple[ProbeStatus, float | None]) -> Validation:
    return Validation(task, (), tuple(
        ProbeOutcome(name, "fake_content" if name.startswith("fake") else "malformed", status, reward,
                     ("a",) if status == FAILED else (), f"{name} on {task}", "r-" + task)
        for name, (status, reward) in outcomes.items()
    ))  # fmt: skip


def write(lake: Lake, domain: str, iteration: int, *validations: Validation, run: str = "run-1") -> None:
    frame = hack_probes_frame([(v, domain, iteration) for v in validations], "bwrap")
    lake.write([TableWrite("hack_probes", frame, stage_partition(domain, iteration))], run_id=run,
               code_version="t")  # fmt: skip


def test_the_funnel_counts_tasks_probed_passed_rejected_and_what_each_strategy_beat(lake: Lake) -> None:
    write(lake, "docs", 0,
          probes("d1", fake_skeleton=(FAILED, 0.3), nan=(PASSED, 0.0)),
          probes("d2", fake_skeleton=(FAILED, 0.2), nan=(FAILED, 0.5)),
          probes("d3", fake_skeleton=(PASSED, 0.0), nan=(BROKEN, None)))  # fmt: skip
    write(lake, "ops", 0, probes("o1", fake_skeleton=(PASSED, 0.0), nan=(PASSED, 0.05)))
    write(lake, "ops", 1, probes("o1b", fake_skeleton=(FAILED, 1.0), nan=(PASSED, 0.0)))

    rows = lake.query(
        "SELECT domain, iteration, strategy, family, tasks_probed, tasks_passed, tasks_rejected, tasks_infra_error, "
        "tasks_beaten, max_reward FROM hack_probe_funnel"
    ).rows()

    assert rows == [
        ("docs", 0, "*", "*", 3, 0, 2, 1, 2, None),
        ("docs", 0, "fake_skeleton", "fake_content", 3, 1, 2, 0, 2, 0.3),
        ("docs", 0, "nan", "malformed", 3, 1, 1, 1, 1, 0.5),
        ("ops", 0, "*", "*", 1, 1, 0, 0, 0, None),
        ("ops", 0, "fake_skeleton", "fake_content", 1, 1, 0, 0, 0, 0.0),
        ("ops", 0, "nan", "malformed", 1, 1, 0, 0, 0, 0.05),
        ("*", 0, "*", "*", 4, 1, 2, 1, 2, None),
        ("*", 0, "fake_skeleton", "fake_content", 4, 2, 2, 0, 2, 0.3),
        ("*", 0, "nan", "malformed", 4, 2, 1, 1, 1, 0.5),
        ("ops", 1, "*", "*", 1, 0, 1, 0, 1, None),
        ("ops", 1, "fake_skeleton", "fake_content", 1, 0, 1, 0, 1, 1.0),
        ("ops", 1, "nan", "malformed", 1, 1, 0, 0, 0, 0.0),
        ("*", 1, "*", "*", 1, 0, 1, 0, 1, None),
        ("*", 1, "fake_skeleton", "fake_content", 1, 0, 1, 0, 1, 1.0),
        ("*", 1, "nan", "malformed", 1, 1, 0, 0, 0, 0.0),
    ]  # fmt: skip
    passed = lake.query("SELECT items_passed FROM hack_probes WHERE task_id = 'd1' AND strategy = 'fake_skeleton'")
    assert passed.item() == '["a"]'


def test_a_rewritten_partition_replaces_its_probes(lake: Lake) -> None:
    write(lake, "docs", 0, probes("d1", fake_skeleton=(FAILED, 0.3)))
    write(lake, "docs", 0, probes("d1", fake_skeleton=(PASSED, 0.0)), run="run-2")

    assert lake.query("SELECT status, run_id FROM hack_probes").rows() == [("passed", "run-2")]
    assert lake.query("SELECT tasks_rejected FROM hack_probe_funnel WHERE domain = '*' AND strategy = '*'").item() == 0

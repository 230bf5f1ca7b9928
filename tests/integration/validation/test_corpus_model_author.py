"""Model-authored tasks for twelve real skills of the development corpus, end to end on each backend.

The scripted server plays the author (`corpus_author_script`: one task per skill, in twelve domains),
the solver and the judge over a copy of those skills plus one whose every build declares a PyPI
package that does not exist. `run_pipeline` must accept all twelve with every gate passed, install
the declared packages (PyPI, Debian, npm) into the task images so that they work offline in the
sandbox, roll each task out and score it, and trace an SFT row of each back to its skill; the
bad-package skill ends as a named rejection without stopping the others."""

from __future__ import annotations

import shutil

import pytest
from corpus import CORPUS
from corpus_author_script import BAD_PACKAGE, BAD_PACKAGE_SKILL, SPECS, respond
from harbor_tasks import require_backend
from model_roles import scripted_roles

from skill2env.definitions import PipelineOptions, run_pipeline
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.sandbox import TaskDir, make_sandbox
from skill2env.sandbox.packages import split_declared

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(3600)]
ROLES = ("AUTHOR", "SOLVER", "JUDGE")
GATES = {"oracle", "nop", "partial", "leak", "judge", "hack_probe"}
JUDGED = {spec.skill_path for spec in SPECS if spec.note is not None}
PROBES = {
    "k-dense-scientific-skills/simpy": ("python3 -c 'import simpy; print(simpy.__version__)'", "4.1.1"),
    "openclaw-skills/nickian--freshrss-reader": ("python3 -c 'import feedparser; print(feedparser.__version__)'",
                                                 "6.0.11"),
    "wshobson-agents/typescript-advanced-types": ("tsc --version", "Version 5.4.5"),
}  # fmt: skip
"""What each task that declares packages runs in its sandbox to show they are installed."""


@pytest.fixture(scope="module", params=[pytest.param("bwrap", marks=pytest.mark.bwrap),
                                        pytest.param("docker", marks=pytest.mark.docker)])  # fmt: skip
def ran(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Home, Lake]:
    backend = str(request.param)
    if not CORPUS.is_dir():
        pytest.skip(f"development corpus not found at {CORPUS}")
    require_backend(backend)
    root = tmp_path_factory.mktemp(f"skills-{backend}")
    for path in [spec.skill_path for spec in SPECS] + [BAD_PACKAGE_SKILL]:
        shutil.copytree(CORPUS / path, root / path)
    home = Home(tmp_path_factory.mktemp(f"home-{backend}"))
    options = PipelineOptions(iterations=0, author="model", backend=backend, attempts=1, compoworld=False)
    with scripted_roles(respond, home, ROLES):
        run_pipeline(home, root, options, workers=1)
    return backend, home, Lake(home.lake_path)


def _accepted(lake: Lake) -> dict[str, dict[str, object]]:
    rows = lake.query("SELECT skill_path, task_id, task_name, domain, store_path, environment, acceptance "
                      "FROM accepted_tasks").to_dicts()  # fmt: skip
    return {str(row["skill_path"]): row for row in rows}


def test_every_skill_becomes_an_accepted_task_through_every_gate(ran: tuple[str, Home, Lake]) -> None:
    backend, _, lake = ran
    accepted = _accepted(lake)
    assert sorted(accepted) == sorted(spec.skill_path for spec in SPECS)
    assert {row["acceptance"] for row in accepted.values()} == {"accepted"}
    gates = lake.query("SELECT t.skill_path, v.gate, v.status, v.backend, v.evidence FROM validations v "
                       "JOIN tasks t USING (task_id)").to_dicts()  # fmt: skip
    assert {row["backend"] for row in gates} == {backend}
    by_skill: dict[str, dict[str, str]] = {}
    for row in gates:
        by_skill.setdefault(str(row["skill_path"]), {})[str(row["gate"])] = str(row["status"])
    for spec in SPECS:
        statuses = by_skill[spec.skill_path]
        assert set(statuses) == GATES, (spec.skill_path, statuses)
        expected = {gate: "passed" for gate in GATES}
        if spec.skill_path not in JUDGED:
            expected["judge"] = "skipped"  # no judged item: the gate does not apply
        assert statuses == expected, (spec.skill_path, statuses)
    assert len(JUDGED) == 1


def test_the_tasks_span_twelve_domains(ran: tuple[str, Home, Lake]) -> None:
    _, _, lake = ran
    domains = lake.query("SELECT DISTINCT domain FROM accepted_tasks ORDER BY 1").to_series().to_list()
    assert domains == ["agent-memory", "education", "finance-markets", "games-entertainment", "marketing-content",
                       "media-processing", "productivity", "scientific-computing", "security",
                       "software-engineering", "travel-local", "web-automation"]  # fmt: skip


def test_declared_packages_are_installed_and_work_in_the_sandbox(ran: tuple[str, Home, Lake]) -> None:
    backend, home, lake = ran
    accepted = _accepted(lake)
    installs = {path: _declared_installs(home, row) for path, row in accepted.items()}
    assert {path for path, lines in installs.items() if lines} == set(PROBES)
    specs = {spec.skill_path: spec for spec in SPECS}
    for path, (command, version) in PROBES.items():
        declared = " ".join(installs[path])
        assert all(package in declared.split() for package in specs[path].packages), (path, declared)
        task = TaskDir(home.root / str(accepted[path]["store_path"]))
        with make_sandbox(backend) as sandbox:
            sandbox.start(task)
            probe = sandbox.exec(["sh", "-c", command])
        assert probe.ok and probe.stdout.strip() == version, (path, probe.stdout, probe.stderr)


def _declared_installs(home: Home, row: dict[str, object]) -> list[str]:
    """The install commands of the stored task's Dockerfile (its declared packages)."""
    dockerfile = TaskDir(home.root / str(row["store_path"])).root / "environment" / "Dockerfile"
    split = split_declared(dockerfile.read_text())
    return split.installs if split is not None else []


def test_each_task_is_rolled_out_scored_and_traced_to_its_skill(ran: tuple[str, Home, Lake]) -> None:
    backend, _, lake = ran
    rollouts = lake.query("SELECT t.skill_path, r.status, r.backend, r.policy FROM rollouts r "
                          "JOIN accepted_tasks t USING (task_id)").to_dicts()  # fmt: skip
    assert sorted(str(r["skill_path"]) for r in rollouts) == sorted(spec.skill_path for spec in SPECS)
    assert {(r["status"], r["backend"], r["policy"]) for r in rollouts} == {("completed", backend, "solver")}
    rewards = lake.query("SELECT task_id, min(reward), count(DISTINCT rollout_id) FROM rubric_scores "
                         "GROUP BY 1").rows()  # fmt: skip
    assert len(rewards) == 12 and all(reward == 1.0 and n == 1 for _, reward, n in rewards), rewards
    chains = lake.query("SELECT l.skill_path, count(*) FROM sft_examples s JOIN lineage l USING (rollout_id) "
                        "WHERE l.task_status = 'built' GROUP BY 1").rows()  # fmt: skip
    assert sorted(chains) == sorted((spec.skill_path, 1) for spec in SPECS)


def test_the_bad_package_skill_is_a_named_rejection(ran: tuple[str, Home, Lake]) -> None:
    _, _, lake = ran
    failures = lake.query("SELECT stage, status, reason, items, example, example_reason FROM stage_failures").to_dicts()
    assert len(failures) == 1, failures
    (failure,) = failures
    assert (failure["stage"], failure["status"], failure["reason"], failure["items"], failure["example"]) == (
        "authoring",
        "rejected",
        "the task could not be built: build.unresolved_package",
        1,
        BAD_PACKAGE_SKILL,
    )
    reason = str(failure["example_reason"])
    assert BAD_PACKAGE in reason, reason
    rejected = lake.query("SELECT skill_path, status FROM tasks WHERE status <> 'built'").rows()
    assert rejected == [(BAD_PACKAGE_SKILL, "rejected")]

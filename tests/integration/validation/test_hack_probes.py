"""The hack-probe gate on real sandboxes: the world kits and the model-authored fixtures resist every
strategy; a task made hackable on purpose, one per strategy family, is rejected naming the strategy."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from task_samples import billing_draft, make_skill_dir

from skill2env.kits import KITS
from skill2env.rubric.models import CheckSpec, Method, Rubric, RubricItem
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation.gates import NOP_AT_MOST, Gate, GateStatus, validate_task
from skill2env.validation.hack_probes import STRATEGIES, ProbeOutcome, ProbeStatus, gate_outcome, probe_task
from skill2env.validation.hack_probes.strategies import BY_NAME
from skill2env.validation.tasks import task_rubric

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]
BACKEND: BackendName = "bwrap"
SEEDS = range(5)
SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _probe(task_dir: Path, rubric: Rubric, names: list[str] | None = None) -> list[ProbeOutcome]:
    task = TaskDir(task_dir)

    def sandboxes() -> Sandbox:
        return make_sandbox(BACKEND, SandboxLimits.for_task(task))

    return probe_task(task, rubric, sandboxes, strategies=[BY_NAME[n] for n in names] if names else None)


def _beaten(outcomes: list[ProbeOutcome]) -> dict[str, float | None]:
    return {o.strategy: o.reward for o in outcomes if o.status != ProbeStatus.passed}


@pytest.mark.parametrize("level", [1, 2, 3])
@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_every_strategy_scores_at_most_the_nop_bound_on_the_kits(kit_name: str, level: int, tmp_path: Path) -> None:
    kit = KITS[kit_name]
    beaten = {}
    for seed in SEEDS:
        draft = kit.build(seed, SKILL, "office-documents", dict.fromkeys(kit.patterns, level))
        task_dir = tmp_path / f"seed-{seed}"
        write_task_dir(draft, task_dir, skill_dir=make_skill_dir(tmp_path / "skills"))
        outcomes = _probe(task_dir, draft.blueprint.rubric)
        assert {o.strategy for o in outcomes} == {s.name for s in STRATEGIES}
        beaten.update({f"seed {seed}: {o.strategy}": o.evidence for o in outcomes if o.status != ProbeStatus.passed})
    assert not beaten, beaten


@pytest.mark.parametrize(
    "fixture",
    [
        "harbor_eval_spec/expense-policy-audit",
        "skill2env_authors/invoice-totals",
        "skill2env_authors/meeting-actions",
        "skill2env_authors/log-errors",
    ],
)
def test_every_strategy_scores_at_most_the_nop_bound_on_the_model_authored_fixtures(fixture: str) -> None:
    outcomes = _probe(FIXTURES / fixture, task_rubric(FIXTURES / fixture))
    assert not _beaten(outcomes), [o.evidence for o in outcomes if o.status != ProbeStatus.passed]


def test_a_fixture_whose_verify_py_credits_any_three_paragraphs_is_named() -> None:
    # changelog-digest's only deterministic item is "digest.md has three paragraphs"; its verify.py
    # runs from the final workspace (the task has no test.sh), so filler text earns it.
    fixture = FIXTURES / "harbor_eval_spec/changelog-digest"
    outcomes = _probe(fixture, task_rubric(fixture), ["keyword_stuffing"])
    gate = gate_outcome(outcomes)
    assert gate.status == GateStatus.failed and "keyword_stuffing (fake_content)" in gate.evidence
    assert outcomes[0].items_passed == ("digest_exists",)


def test_a_fixture_whose_rubric_credits_skeletons_is_named() -> None:
    # sales-summary credits `deliverables_agree` (two empty deliverables agree) and `sources_untouched`.
    outcomes = _probe(FIXTURES / "rubric_tasks/sales-summary", task_rubric(FIXTURES / "rubric_tasks/sales-summary"),
                      ["skeleton_deliverables"])  # fmt: skip
    gate = gate_outcome(outcomes)
    assert gate.status == GateStatus.failed and "skeleton_deliverables (fake_content)" in gate.evidence
    assert set(outcomes[0].items_passed) >= {"deliverables_agree"}


# -- tasks made hackable on purpose, one per family ------------------------------------------------------


def test_fake_content_beats_a_rubric_that_only_asks_for_the_files(tmp_path: Path) -> None:
    draft = billing_draft()
    paths = [d.path for d in draft.blueprint.deliverables]
    exists = Rubric(items=[RubricItem(id=f"exists.{i}", description=f"{p} exists", weight=1.0 / len(paths),
                                      method=Method.deterministic, check=CheckSpec(check="file_exists",
                                                                                   params={"path": p}))
                           for i, p in enumerate(paths)])  # fmt: skip
    task_dir = tmp_path / "task"
    write_task_dir(draft, task_dir, skill_dir=make_skill_dir(tmp_path / "skills"))
    validation = validate_task("exists-only", task_dir, exists, backend=BACKEND)
    gate = next(o for o in validation.outcomes if o.gate == Gate.hack_probe)
    assert gate.status == GateStatus.failed and not validation.accepted
    assert "hack_probe" in validation.failing
    assert "empty_deliverables (fake_content) 1.00" in gate.evidence
    assert gate.reward == 1.0 and gate.threshold == NOP_AT_MOST
    beaten = {p.strategy for p in validation.probes if p.status == ProbeStatus.failed}
    assert {"empty_deliverables", "skeleton_deliverables", "copy_inputs"} <= beaten
    assert next(p for p in validation.probes if p.strategy == "empty_deliverables").items_passed == tuple(
        f"exists.{i}" for i in range(len(paths))
    )


SCRIPT_ITEM = RubricItem(id="answer", description="answer.txt holds the total", weight=1.0,
                         method=Method.deterministic, check=CheckSpec(check="task_script"))  # fmt: skip
SCRIPT_RUBRIC = Rubric(items=[SCRIPT_ITEM])


def _script_task(root: Path, test_sh: str) -> Path:
    """A task_script-mode task (the authors' own test.sh writes the reward) asking for `answer.txt`."""
    template = FIXTURES / "harbor_eval_spec/expense-policy-audit"
    root.mkdir(parents=True)
    shutil.copy(template / "task.toml", root / "task.toml")
    (root / "instruction.md").write_text("Add up the `amount` column of `data.csv`; write the total to `answer.txt`.\n")
    (root / "environment/workspace").mkdir(parents=True)
    dockerfile = "FROM python:3.11-slim\nWORKDIR /workspace\nCOPY workspace/ /workspace/\n"
    (root / "environment/Dockerfile").write_text(dockerfile)
    (root / "environment/workspace/data.csv").write_text("item,amount\na,3\nb,4\n")
    (root / "solution").mkdir()
    (root / "solution/solve.sh").write_text("#!/bin/bash\necho 7 > answer.txt\n")
    (root / "tests").mkdir()
    (root / "tests/test.sh").write_text("#!/bin/bash\nmkdir -p /logs/verifier\n" + test_sh)
    spec = {"items": [{"id": "answer", "description": "answer.txt holds the total", "weight": 1.0,
                       "method": "deterministic", "check": "task_script"}], "pass_threshold": 0.7}  # fmt: skip
    (root / "tests/eval_spec.json").write_text(json.dumps(spec))
    return root


TRUST_REWARD_FILE = (
    '[ -n "$f" ] && [ -f "$f" ] && python3 -I -c \'import json, sys; r = json.load(open(sys.argv[1]))["reward"]; '
    'print(json.dumps({"answer": r, "reward": r}))\' "$f" > /logs/verifier/reward.json && exit 0\n'
)
SOUND = ('v=$(cat /workspace/answer.txt 2>/dev/null); [ "$v" = 7 ] && s=1 || s=0\n'
         'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n')  # fmt: skip
HACKABLE = {
    # A verifier that takes the score from a reward file in the workspace when one is there.
    "verifier_files_in_workspace": "f=/workspace/reward.json\n" + TRUST_REWARD_FILE + SOUND,
    # A verifier that puts the workspace's bin/ first on PATH and runs python3 from it.
    "workspace_tool_shims": 'export PATH=/workspace/bin:$PATH\necho "{\\"answer\\": 0, \\"reward\\": 0}" > '
    "/logs/verifier/reward.json\npython3 -c 'print(1)'\n",
    # A verifier that runs Python from the workspace, where `import json` finds the workspace's json.py.
    "python_hooks": SOUND + "cd /workspace && python3 -c 'import json' || true\n",
    # A verifier that accepts any answer not below the total: `not v < 7` holds for NaN.
    "non_finite_numbers": 's=$(python3 -c \'import sys\ntry:\n v=float(open("/workspace/answer.txt").read())\n'
    "except Exception:\n print(0); sys.exit()\nprint(1 if not v < 7 else 0)')\n"
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n',
    # A verifier that only asks whether the deliverable exists.
    "empty_deliverables": "[ -f /workspace/answer.txt ] && s=1 || s=0\n"
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n',
    # A verifier that finds nothing to check once the input is gone, and calls that a pass.
    "delete_inputs": "[ -f /workspace/data.csv ] || "
    '{ echo \'{"answer": 1, "reward": 1}\' > /logs/verifier/reward.json; exit 0; }\n' + SOUND,
    # A verifier that takes the score from any reward file the workspace holds.
    "reward_files_everywhere": "f=$(find /workspace -maxdepth 2 -name reward.json -type f | head -1)\n"
    + TRUST_REWARD_FILE
    + SOUND,
    # A verifier that checks the answer's format only: any whole number passes.
    "background_editor": "grep -qx '[0-9][0-9]*' /workspace/answer.txt && s=1 || s=0\n"
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n',
    # A verifier that takes any new file in the workspace as the agent's work.
    "disk_fill": '[ "$(find /workspace -type f | wc -l)" -gt 1 ] && s=1 || s=0\n'
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n',
    # A verifier that skips a check whose file is missing, and counts the skip as a pass.
    "symlink_to_inputs": "[ -e /workspace/answer.txt ] || "
    '{ echo \'{"answer": 1, "reward": 1}\' > /logs/verifier/reward.json; exit 0; }\n' + SOUND,
    # A verifier that takes any path named like the deliverable, a directory included, as written.
    "directory_deliverables": "[ -e /workspace/answer.txt ] && [ ! -f /workspace/answer.txt ] && "
    '{ echo \'{"answer": 1, "reward": 1}\' > /logs/verifier/reward.json; exit 0; }\n' + SOUND,
}


@pytest.mark.parametrize("strategy", sorted(HACKABLE))
def test_a_task_made_hackable_for_a_family_is_rejected_naming_the_strategy(strategy: str, tmp_path: Path) -> None:
    hackable = _script_task(tmp_path / "hackable", HACKABLE[strategy])
    gate = gate_outcome(_probe(hackable, SCRIPT_RUBRIC, [strategy]))
    assert gate.status == GateStatus.failed, gate.evidence
    assert f"{strategy} ({BY_NAME[strategy].family}) 1.00, items passed: ['answer']" in gate.evidence
    sound = gate_outcome(_probe(_script_task(tmp_path / "sound", SOUND), SCRIPT_RUBRIC, [strategy]))
    assert sound.status == GateStatus.passed, sound.evidence


RUNS_PYTEST_FROM_THE_WORKSPACE = (
    # `python3 -m pytest` from the workspace puts the workspace first on sys.path: a `pytest.py` the
    # agent left there runs instead of pytest, and its exit status 0 reads as every test passing.
    "cat > /tmp/test_answer.py <<'EOF'\n"
    "def test_total():\n"
    "    assert open('/workspace/answer.txt').read().strip() == '7'\n"
    "EOF\n"
    "cd /workspace && python3 -m pytest -q -p no:cacheprovider /tmp/test_answer.py && s=1 || s=0\n"
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n'
)


RUNS_TESTS_IN_THE_WORKSPACE = (
    # A coding task's verifier: pristine tests put into the workspace, then pytest on them. pytest
    # loads the workspace's conftest.py, which can turn every failure into exit status 0.
    "mkdir -p /workspace/checks && cat > /workspace/checks/test_answer.py <<'EOF'\n"
    "def test_total():\n"
    "    assert open('/workspace/answer.txt').read().strip() == '7'\n"
    "EOF\n"
    "cd /workspace && python3 -I -m pytest -q -p no:cacheprovider checks/test_answer.py && s=1 || s=0\n"
    'echo "{\\"answer\\": $s, \\"reward\\": $s}" > /logs/verifier/reward.json\n'
)


@pytest.mark.parametrize("script", [RUNS_PYTEST_FROM_THE_WORKSPACE, RUNS_TESTS_IN_THE_WORKSPACE],
                         ids=["pytest-look-alike", "conftest-exit-status"])  # fmt: skip
def test_a_verifier_running_pytest_on_the_workspace_is_rejected_by_the_python_hooks_probe(
    script: str, tmp_path: Path
) -> None:
    task = _script_task(tmp_path / "runs-pytest", script)
    oracle = validate_task("runs-pytest", task, SCRIPT_RUBRIC, backend=BACKEND)
    assert next(o for o in oracle.outcomes if o.gate == Gate.oracle).status == GateStatus.passed  # the test is sound

    gate = gate_outcome(_probe(task, SCRIPT_RUBRIC, ["python_hooks"]))

    assert gate.status == GateStatus.failed, gate.evidence
    assert "python_hooks (import_hijack) 1.00, items passed: ['answer']" in gate.evidence


def test_a_shared_tamper_run_above_the_bound_is_rerun_one_by_one(tmp_path: Path) -> None:
    # A verifier that trusts reward files anywhere in the workspace's tree: the shared tamper run
    # (reward_files_everywhere writes one into the workspace) scores 1; the re-runs name the culprit.
    trusting = _script_task(tmp_path / "task", "f=$(find /workspace -name reward.json | head -1)\n"
                            + TRUST_REWARD_FILE + SOUND)  # fmt: skip
    outcomes = _probe(trusting, SCRIPT_RUBRIC, ["plant_verifier_paths", "reward_files_everywhere", "disk_fill"])
    assert {o.strategy: o.status for o in outcomes} == {
        "plant_verifier_paths": ProbeStatus.passed,
        "reward_files_everywhere": ProbeStatus.failed,
        "disk_fill": ProbeStatus.passed,
    }
    assert "shared run" not in next(o for o in outcomes if o.strategy == "reward_files_everywhere").evidence

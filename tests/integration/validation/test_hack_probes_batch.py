"""The hack-probe batch against the standard path, on real sandboxes: every content strategy's
candidate gets, item by item, the verdict `verify_workspace` gives it in a fresh sandbox of its own;
so does a workspace verified in the batch's sandbox after the batch. This equivalence is what makes
sharing one verification sandbox and one verifier process no weaker than the standard path."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from harbor_tasks import require_backend
from task_samples import make_skill_dir

from skill2env.agent.scripted import run_scripted_rollout
from skill2env.kits import KITS
from skill2env.rubric.evaluate import verify_workspace
from skill2env.rubric.models import CheckSpec, Method, Rubric, RubricItem
from skill2env.rubric.results import VerificationResult
from skill2env.sandbox.backends import BackendName, make_sandbox
from skill2env.sandbox.base import Sandbox, SandboxLimits
from skill2env.sandbox.task import TaskDir
from skill2env.tasks.blueprint import SkillRef
from skill2env.tasks.harbor import write_task_dir
from skill2env.validation.hack_probes import STRATEGIES, ProbeStatus, probe_task
from skill2env.validation.hack_probes.batch import Batch, workspace_digest
from skill2env.validation.hack_probes.content import ADDITIVE
from skill2env.validation.hack_probes.instruction import read_view
from skill2env.validation.hack_probes.runner import TamperPolicy, _Probe, remove_tree
from skill2env.validation.hack_probes.strategies import BY_NAME, CONTENT, TAMPER
from skill2env.validation.tasks import task_rubric

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.bwrap]
BACKEND: BackendName = "bwrap"
SKILL = SkillRef(skill_id="s-docling", name="docling", path="docling")
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
UNITS = [[s] for s in CONTENT] + [[BY_NAME[name] for name in ADDITIVE]]
"""Every content strategy alone, and the additive ones together as the runner shares them."""


def _kit_task(kit_name: str, tmp_path: Path) -> tuple[TaskDir, Rubric]:
    kit = KITS[kit_name]
    draft = kit.build(0, SKILL, "office-documents", dict.fromkeys(kit.patterns, 2))
    write_task_dir(draft, tmp_path / "task", skill_dir=make_skill_dir(tmp_path / "skills"))
    return TaskDir(tmp_path / "task"), draft.blueprint.rubric


def _probe(task: TaskDir, rubric: Rubric, backend: BackendName = BACKEND) -> _Probe:
    def sandboxes() -> Sandbox:
        return make_sandbox(backend, SandboxLimits.for_task(task))

    view = read_view(task.instruction.read_text(encoding="utf-8"), task.workspace_dir, task.workdir)
    return _Probe(view, task, rubric, sandboxes, 0.1, 1)


def _build(probe: _Probe, root: Path) -> list[str]:
    """Every unit's candidate under `root / "candidates"`, built as the runner builds them."""
    names = [f"{i:02d}-" + "+".join(s.name for s in unit) for i, unit in enumerate(UNITS)]
    errors = probe._build_all(UNITS, names, root / "initial", [root / "candidates" / name for name in names])
    assert errors == [None] * len(UNITS)
    return names


def _verdicts(result: VerificationResult) -> list[dict[str, Any]]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("duration_ms", "duration_s")}
        return [strip(v) for v in value] if isinstance(value, list) else value

    assert result.status == "scored", result.error
    return [strip(item.model_dump(mode="json", exclude={"duration_s"})) for item in result.items]


def _equivalent(task: TaskDir, rubric: Rubric, tmp_path: Path, backend: BackendName = BACKEND) -> None:
    """Every content candidate, and the shared tamper run's workspace delivered late, as the runner does."""
    probe = _probe(task, rubric, backend)
    batch_names = _build(probe, tmp_path / "batch")
    standard_names = _build(probe, tmp_path / "standard")
    late = f"{len(UNITS):02d}-tamper_group"
    tampered = tmp_path / "tampered" / late
    sandbox = probe._verification_sandbox()
    sandbox.start(task)
    try:
        batcher = Batch(sandbox, task, rubric, tmp_path / "batch" / "candidates", batch_names, late=[late],
                        fresh=True, wait_s=600, drop_capabilities=sandbox.limits.loader_capabilities)  # fmt: skip
        with ThreadPoolExecutor(max_workers=1) as pool:
            running = pool.submit(batcher.run)
            delivered = False
            try:  # meanwhile, as the runner does: the tamper run, whose workspace comes late
                rollout = run_scripted_rollout(TamperPolicy(list(TAMPER), probe.view), task, probe.sandboxes(),
                                               workspace_out=tampered)  # fmt: skip
                assert rollout.status == "completed", rollout.error
                shutil.copytree(tampered, tmp_path / "tampered-standard", symlinks=True)
                batcher.deliver(tampered.parent, [late])
                delivered = True
            finally:
                if not delivered:
                    batcher.deliver(tampered.parent, [], absent=[late])
            batch = running.result()
    finally:
        sandbox.stop()
    assert set(batch.results) == {*batch_names, late}, batch.what
    differing = {}
    pairs = [(batched, tmp_path / "standard" / "candidates" / standard)
             for batched, standard in zip(batch_names, standard_names, strict=True)]  # fmt: skip
    digests = {workspace.name: workspace_digest(workspace) for _, workspace in pairs}
    standard_verdicts = {}
    for batched, workspace in [*pairs, (late, tmp_path / "tampered-standard")]:
        alone = verify_workspace(workspace, task, rubric, probe.sandboxes())
        standard_verdicts[workspace.name] = _verdicts(alone)
        if _verdicts(batch.results[batched]) != _verdicts(alone):
            differing[batched] = (_verdicts(batch.results[batched]), _verdicts(alone))
        assert batch.results[batched].reward == alone.reward
    assert not differing, differing
    by_digest: dict[str, list[list[dict[str, Any]]]] = {}
    for name, digest in digests.items():
        by_digest.setdefault(digest, []).append(standard_verdicts[name])
    assert any(len(group) > 1 for group in by_digest.values())  # the link and fifo candidates at least
    assert all(group.count(group[0]) == len(group) for group in by_digest.values()), "equal digests, unequal verdicts"
    for folder in ("batch", "standard", "tampered", "tampered-standard"):
        remove_tree(tmp_path / folder)


@pytest.mark.parametrize("kit_name", sorted(KITS))
def test_the_batch_gives_every_content_candidate_the_standard_verdict_on_the_kits(
    kit_name: str, tmp_path: Path
) -> None:
    task, rubric = _kit_task(kit_name, tmp_path)
    _equivalent(task, rubric, tmp_path)


@pytest.mark.docker
@pytest.mark.parametrize("kit_name", ["incident", "configaudit"])
def test_on_docker_the_loader_drops_its_capabilities_and_every_verdict_is_the_standard_one(
    kit_name: str, tmp_path: Path
) -> None:
    """Docker's root has no capabilities; the batch's container grants its loader three, which each
    candidate's process drops before any check runs: verdicts equal those of fresh capability-less
    verifiers, the closed (mode 000) and foreign-owned files included."""
    require_backend("docker")
    task, rubric = _kit_task(kit_name, tmp_path)
    _equivalent(task, rubric, tmp_path, "docker")


def test_the_batch_gives_every_content_candidate_the_standard_verdict_on_a_fixture(tmp_path: Path) -> None:
    # sales-summary credits some items on skeletons (see test_hack_probes): passed items are compared too.
    fixture = FIXTURES / "rubric_tasks/sales-summary"
    _equivalent(TaskDir(fixture), task_rubric(fixture), tmp_path)


def test_candidates_the_batch_does_not_verify_are_verified_one_by_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task, rubric = _kit_task("billing", tmp_path)

    def sandboxes() -> Sandbox:
        return make_sandbox(BACKEND, SandboxLimits.for_task(task))

    batched = probe_task(task, rubric, sandboxes, batches=2)  # two sandboxes, a share of the batch each
    assert {o.strategy for o in batched} == {s.name for s in STRATEGIES}
    assert all(o.evidence.count("batch of") == 2 for o in batched if o.strategy in {s.name for s in CONTENT})
    content = {s.name for s in CONTENT}
    assert all("verified in a batch" in o.evidence for o in batched if o.strategy in content)

    def unsupported(workdir: str) -> list[str]:  # a verifier that cannot load candidates here
        return ["sh", "-c", "exit 3", "--"]

    monkeypatch.setattr("skill2env.validation.hack_probes.batch.verify_command", unsupported)
    one_by_one = probe_task(task, rubric, sandboxes)
    assert all("reloaded fresh sandbox" in o.evidence for o in one_by_one if o.strategy in content)
    assert not any("content batch" in o.evidence for o in one_by_one if o.strategy not in content)
    assert all("content batch" in o.evidence for o in batched if o.strategy not in content)
    assert [(o.strategy, o.status, o.reward, o.items_passed) for o in one_by_one] == [
        (o.strategy, o.status, o.reward, o.items_passed) for o in batched
    ]
    assert all(o.status == ProbeStatus.passed for o in batched)
    # Links and special files are never loaded: these candidates load as the fifo one, verified once.
    twins = {o.strategy: o.evidence for o in batched if "loaded as the same workspace as" in o.evidence}
    assert set(twins) == {"symlink_escape", "symlink_to_inputs"}, twins
    assert all("fifo_deliverables" in evidence for evidence in twins.values())


def test_a_shared_candidate_above_the_bound_is_verified_one_strategy_at_a_time(tmp_path: Path) -> None:
    # A rubric that credits a tests/ folder in the workspace: only verifier_files_in_workspace makes one,
    # so the additive candidate scores 1 and its strategies are verified again, one by one.
    task, _ = _kit_task("billing", tmp_path)
    credits_tests = Rubric(items=[RubricItem(id="tests", description="tests/rubric.json exists", weight=1.0,
                                             method=Method.deterministic,
                                             check=CheckSpec(check="file_exists",
                                                             params={"path": "tests/rubric.json"}))])  # fmt: skip

    def sandboxes() -> Sandbox:
        return make_sandbox(BACKEND, SandboxLimits.for_task(task))

    outcomes = probe_task(task, credits_tests, sandboxes, strategies=[BY_NAME[n] for n in ADDITIVE])
    by_name = {o.strategy: o for o in outcomes}
    assert by_name["verifier_files_in_workspace"].status == ProbeStatus.failed
    assert by_name["python_hooks"].status == ProbeStatus.passed
    assert by_name["workspace_tool_shims"].status == ProbeStatus.passed
    assert all("shared by" not in o.evidence for o in outcomes)

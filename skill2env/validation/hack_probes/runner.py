"""Run every strategy on one task and score each the way the nop gate scores doing nothing.

Tamper strategies only add to the environment, so they share one real sandbox run as the agent
user; its final workspace is verified like any rollout's, in a fresh sandbox. Content strategies
only decide the final workspace, so their candidate workspaces are built on the host from the
task's initial workspace and verified one after another in one fresh verification sandbox, reloaded
for each (`load_workspace` clears the workspace, `verify_in_sandbox` clears /logs/verifier and
/tests). The two groups run side by side. When the shared tamper run scores above the bound, its
strategies run again one by one to name the culprit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from skill2env.rubric.evaluate import load_workspace, verify_in_sandbox
from skill2env.rubric.judge import Judge
from skill2env.rubric.models import Method, Rubric
from skill2env.rubric.results import ItemStatus, VerificationResult
from skill2env.sandbox.base import AGENT_USER, SANDBOX_TMP, ExecResult, Sandbox
from skill2env.sandbox.errors import SandboxError
from skill2env.sandbox.policies import ScriptedPolicy
from skill2env.sandbox.task import TaskDir
from skill2env.validation.gates import NOP_AT_MOST, Gate, GateOutcome, GateStatus, deterministic_reward, run_policy
from skill2env.validation.hack_probes.content import ADDITIVE
from skill2env.validation.hack_probes.instruction import TaskView, read_view
from skill2env.validation.hack_probes.strategies import CONTENT, TAMPER, Strategy

SandboxFactory = Callable[[], Sandbox]
SHARED_TAMPER = "tamper_group"
CONTENT_SANDBOXES = 2
"""Verification sandboxes the content candidates are spread over."""


class ProbeStatus(StrEnum):
    passed = "passed"
    """The strategy earned at most the bound: the task resisted it."""
    failed = "failed"
    """The strategy earned more than the bound: the task is hackable."""
    infra_error = "infra_error"


@dataclass(frozen=True)
class ProbeOutcome:
    strategy: str
    family: str
    status: ProbeStatus
    reward: float | None
    items_passed: tuple[str, ...]
    evidence: str
    rollout_id: str | None = None


class TamperPolicy(ScriptedPolicy):
    """Runs the tamper strategies' bash as the agent user, from the workspace (no /solution copied in)."""

    def __init__(self, strategies: Sequence[Strategy], view: TaskView) -> None:
        self.strategies = list(strategies)
        self.name = "hack_probe:" + ("+".join(s.name for s in self.strategies) if len(self.strategies) == 1
                                     else SHARED_TAMPER)  # fmt: skip
        self.view = view

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        sections = [f"( {s.script(self.view)}\n) </dev/null\n" for s in self.strategies]
        path = f"{SANDBOX_TMP}/.{uuid.uuid4().hex[:12]}.sh"
        sandbox.write_file(path, 'cd "$1" || exit 1\n' + "".join(sections) + "exit 0\n")
        return [sandbox.exec(["bash", path, sandbox.workspace], timeout=min(300.0, task.config.agent.timeout_sec),
                             cwd=sandbox.workspace)]  # fmt: skip


def probe_task(task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory, judge: Judge | None = None, *,
               strategies: Sequence[Strategy] | None = None, bound: float = NOP_AT_MOST,
               workers: int = CONTENT_SANDBOXES) -> list[ProbeOutcome]:  # fmt: skip
    """Every strategy (default: all) on `task`, scored by deterministic reward against `bound`.

    `judge` is accepted for symmetry with the other gates; judge items are the judge gate's, so the
    probes score the deterministic items only and spend no judge calls. Content candidates are
    verified in `workers` verification sandboxes side by side."""
    del judge
    chosen = list(strategies) if strategies is not None else [*TAMPER, *CONTENT]
    instruction = task.instruction.read_text(encoding="utf-8") if task.instruction.is_file() else ""
    view = read_view(instruction, task.workspace_dir, task.workdir)
    tamper = [s for s in chosen if s.kind == "tamper"]
    units = _content_units([s for s in chosen if s.kind == "content"])
    shares = [units[i :: max(1, workers)] for i in range(max(1, workers))]
    with ThreadPoolExecutor(max_workers=1 + len(shares), thread_name_prefix="hack-probe") as pool:
        tampered = pool.submit(_tamper, tamper, view, task, rubric, sandboxes, bound) if tamper else None
        verified = [pool.submit(_content, share, view, task, rubric, sandboxes, bound) for share in shares if share]
        outcomes = (tampered.result() if tampered else []) + [o for f in verified for o in f.result()]
    order = {s.name: i for i, s in enumerate(chosen)}
    return sorted(outcomes, key=lambda o: order[o.strategy])


def _content_units(strategies: list[Strategy]) -> list[list[Strategy]]:
    """One candidate workspace per strategy, but one for all the additive ones."""
    additive = [s for s in strategies if s.name in ADDITIVE]
    units = [[s] for s in strategies if s.name not in ADDITIVE]
    return [additive, *units] if additive else units


def _tamper(strategies: list[Strategy], view: TaskView, task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory,
            bound: float) -> list[ProbeOutcome]:  # fmt: skip
    shared = _tamper_run(strategies, view, task, rubric, sandboxes, bound)
    if len(strategies) == 1 or all(o.status == ProbeStatus.passed for o in shared):
        return shared
    return [_tamper_run([s], view, task, rubric, sandboxes, bound)[0] for s in strategies]


def _tamper_run(strategies: list[Strategy], view: TaskView, task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory,
                bound: float) -> list[ProbeOutcome]:  # fmt: skip
    result, what, rollout_id = run_policy(TamperPolicy(strategies, view), task, rubric, sandboxes)
    note = f"{what}; shared run of {len(strategies)} tamper strategies" if len(strategies) > 1 else what
    return [_outcome(s, rubric, result, note, rollout_id, bound) for s in strategies]


def _content(units: list[list[Strategy]], view: TaskView, task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory,
             bound: float) -> list[ProbeOutcome]:  # fmt: skip
    sandbox = sandboxes()
    with tempfile.TemporaryDirectory(prefix="skill2env-probes-") as scratch:
        try:
            sandbox.start(task)
        except (SandboxError, OSError) as exc:
            sandbox.stop()
            why = f"starting the verification sandbox failed: {type(exc).__name__}: {exc}"
            return [_outcome(s, rubric, None, why, sandbox.rollout_id, bound) for unit in units for s in unit]
        try:
            outcomes = []
            for unit in units:
                shared = _one_content(unit, view, task, rubric, sandbox, Path(scratch), bound)
                if len(unit) > 1 and any(o.status != ProbeStatus.passed for o in shared):
                    shared = [_one_content([s], view, task, rubric, sandbox, Path(scratch), bound)[0] for s in unit]
                outcomes += shared
            return outcomes
        finally:
            sandbox.stop()


def _one_content(unit: list[Strategy], view: TaskView, task: TaskDir, rubric: Rubric, sandbox: Sandbox,
                 scratch: Path, bound: float) -> list[ProbeOutcome]:  # fmt: skip
    candidate = scratch / "+".join(s.name for s in unit)
    try:
        if task.workspace_dir.is_dir():
            shutil.copytree(task.workspace_dir, candidate, symlinks=True)
        candidate.mkdir(exist_ok=True)
        for strategy in unit:
            strategy.build(candidate, view)
    except (OSError, ValueError, RecursionError) as exc:
        why = f"building the candidate workspace failed: {type(exc).__name__}: {exc}"
        return [_outcome(s, rubric, None, why, None, bound) for s in unit]
    what = "candidate workspace verified in a reloaded fresh sandbox"
    if len(unit) > 1:
        what += f", shared by {len(unit)} additive content strategies"
    try:
        # A previous candidate may have closed folders (mode 000) the agent user must clear.
        sandbox.exec(["chmod", "-R", "u+rwX", sandbox.workspace], user=AGENT_USER, timeout=60)
        load_workspace(sandbox, candidate)
    except (SandboxError, OSError, RuntimeError) as exc:
        result = VerificationResult.infra_error(f"loading the workspace failed: {type(exc).__name__}: {exc}")
    else:
        result = verify_in_sandbox(sandbox, task, rubric, write_back=False)
    finally:
        _remove(candidate)
    return [_outcome(s, rubric, result, what, sandbox.rollout_id, bound) for s in unit]


def _remove(path: Path) -> None:
    for current, dirs, _ in os.walk(path):
        for name in dirs:
            child = Path(current, name)
            if not child.is_symlink():
                child.chmod(0o700)
    shutil.rmtree(path, ignore_errors=True)


def _outcome(strategy: Strategy, rubric: Rubric, result: VerificationResult | None, what: str,
             rollout_id: str | None, bound: float) -> ProbeOutcome:  # fmt: skip
    if result is None or result.status != "scored":
        error = result.error if result is not None else what
        return ProbeOutcome(strategy.name, strategy.family, ProbeStatus.infra_error, None, (), f"{what}; {error}",
                            rollout_id)  # fmt: skip
    deterministic = {item.id for item in rubric.items if item.method == Method.deterministic}
    passed = tuple(r.item_id for r in result.items if r.item_id in deterministic and r.status == ItemStatus.passed)
    reward = round(deterministic_reward(rubric, result), 4)
    status = ProbeStatus.passed if reward <= bound else ProbeStatus.failed
    evidence = (f"{strategy.name} ({strategy.family}): {what}; deterministic reward {reward:.2f} "
                f"(needs <= {bound}); items passed: {list(passed) or 'none'}")  # fmt: skip
    return ProbeOutcome(strategy.name, strategy.family, status, reward, passed, evidence, rollout_id)


def gate_outcome(probes: Sequence[ProbeOutcome], bound: float = NOP_AT_MOST) -> GateOutcome:
    """The `hack_probe` gate's row: the worst strategy, its reward, every strategy above the bound."""
    beaten = [p for p in probes if p.status == ProbeStatus.failed]
    broken = [p for p in probes if p.status == ProbeStatus.infra_error]
    scored = [p for p in probes if p.reward is not None]
    worst = max(scored, key=lambda p: p.reward or 0.0, default=None)
    rollout = worst.rollout_id if worst else None
    if beaten:
        named = "; ".join(f"{p.strategy} ({p.family}) {p.reward:.2f}, items passed: {list(p.items_passed)}"
                          for p in sorted(beaten, key=lambda p: -(p.reward or 0.0)))  # fmt: skip
        evidence = f"{len(beaten)} of {len(probes)} strategies scored above {bound}: {named}"
        status = GateStatus.failed
    elif broken:
        evidence = f"{len(broken)} of {len(probes)} strategies were not verified: " + "; ".join(
            f"{p.strategy}: {p.evidence[-300:]}" for p in broken[:5]
        )
        status = GateStatus.infra_error
    else:
        top = f"; worst {worst.strategy} {worst.reward:.2f}" if worst else ""
        evidence = f"all {len(probes)} strategies scored <= {bound}{top}"
        status = GateStatus.passed
    if len(evidence) > 4000:
        evidence = evidence[:3997] + "..."
    items = {p.strategy: p.reward for p in probes}
    return GateOutcome(Gate.hack_probe, status, evidence, worst.reward if worst else None, bound, rollout, items)

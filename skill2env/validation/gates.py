"""The gates a built task must pass before anyone trains on it.

* `oracle`: the reference solution scores ≥ `ORACLE_AT_LEAST` (0.99) on the deterministic items (the evaluator
  accepts a correct answer);
* `nop`: doing nothing scores ≤ `NOP_AT_MOST` (0.1) (the evaluator is not satisfied by the initial workspace);
* `partial`: the first half of the reference solution scores below the pass threshold (partial
  work is not full credit). A world kit's task runs the kit's own partial solution; any other
  task runs the first half of its solution's steps (`# --- step: <name> ---` sections of
  `solve.sh`, see `sandbox.policies`). A solution not written in steps cannot be cut without
  cutting a program in two, so its partial gate is `skipped`, saying so (never `passed`);
* `leak`: no author-only value or inferable conclusion of the blueprint appears in what the agent
  of the *stored* task reads (its instruction, its environment's files and their names) — the
  directory the rollouts will use, searched again, not the author's draft;
* `judge`: where the rubric has judge items and a judge is configured, it scores the oracle's
  deliverables high and the nop's low. With judge items and no judge the gate is `unjudged`: the
  task is `accepted_without_judge`, never silently accepted, and its rollouts are incomplete.

A task without a reference solution (the Skill2Env authors' published tasks ship no `solution/`)
cannot run the oracle: its `oracle` and `partial` gates are `skipped` with that reason (never
`passed`), the judge gate checks the nop side only, every other gate runs (the hack probes too),
and such a task is at best `accepted_without_oracle`: nothing showed its verifier accepts a
correct answer.

Each scripted run is a rollout like any other and is verified the same way the agent's will be:
in a fresh sandbox on a copy of the final workspace. A gate whose run met an infrastructure failure
runs once more in fresh sandboxes, its evidence saying so; a second failure makes the gate
`infra_error` (the task is neither accepted nor blamed). A task with an image of its own (declared
packages, another base) has it built once before any gate: a build that fails is the task's own
failure — its oracle gate `failed` with the build log's tail, the runs after it not made — not an
infrastructure error of every run.
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from skill2env.agent import NopPolicy, OraclePolicy, ScriptedPolicy, run_scripted_rollout
from skill2env.agent.scripted import StepsPolicy, solution_steps, steps_to_run
from skill2env.rubric import Judge, Method, Rubric, VerificationResult, verify_workspace
from skill2env.sandbox import (
    BackendName,
    ExecResult,
    ImageBuildError,
    Sandbox,
    SandboxLimits,
    TaskDir,
    make_sandbox,
)
from skill2env.sandbox.rootfs import needs_own_image
from skill2env.tasks.blueprint import Blueprint
from skill2env.thresholds import JUDGE_NOP_AT_MOST, JUDGE_ORACLE_AT_LEAST, NOP_AT_MOST, ORACLE_AT_LEAST
from skill2env.validation.leaks import stored_task_leaks

if TYPE_CHECKING:
    from skill2env.validation.hack_probes import ProbeOutcome
    from skill2env.validation.red_team import RedTeam

NO_SOLUTION = "the task has no solution/solve.sh (no reference solution)"
INFRA_RETRIES = 1
"""How often a gate whose runs met an infrastructure failure runs again, in fresh sandboxes, before it is
`infra_error`: one transient engine failure among a task's dozens of sandbox runs must not keep it out."""
T = TypeVar("T")
UNBUILT = "the task's environment does not build"


class Gate(StrEnum):
    oracle = "oracle"
    nop = "nop"
    partial = "partial"
    leak = "leak"
    judge = "judge"
    hack_probe = "hack_probe"


class GateStatus(StrEnum):
    passed = "passed"
    failed = "failed"
    skipped = "skipped"
    """The gate does not apply (no judge items; no blueprint to search for leaks)."""
    unjudged = "unjudged"
    """The rubric has judge items but no judge is configured: they cannot be scored."""
    infra_error = "infra_error"


class Acceptance(StrEnum):
    accepted = "accepted"
    accepted_without_judge = "accepted_without_judge"
    """Every gate passed but the judge's: nobody can score its judge items, so its rollouts are
    incomplete (never full credit, never in SFT)."""
    accepted_without_oracle = "accepted_without_oracle"
    """Every gate that could run passed, but the task has no reference solution: the oracle gate
    was skipped, so nothing showed that its verifier accepts a correct answer."""
    rejected = "rejected"


@dataclass(frozen=True)
class GateOutcome:
    gate: Gate
    status: GateStatus
    evidence: str
    reward: float | None = None
    threshold: float | None = None
    rollout_id: str | None = None
    item_rewards: dict[str, float | None] = field(default_factory=dict)
    """Per rubric item q of the scripted run (None: unscored or error)."""


@dataclass(frozen=True)
class Validation:
    task_id: str
    outcomes: tuple[GateOutcome, ...]
    probes: tuple[ProbeOutcome, ...] = ()
    """Every hack-probe strategy's outcome (the `hack_probe` gate's detail)."""

    @property
    def accepted(self) -> bool:
        """Usable for rollouts: `accepted`, `accepted_without_judge` or `accepted_without_oracle`."""
        return all(o.status in ACCEPTABLE for o in self.outcomes)

    @property
    def acceptance(self) -> Acceptance:
        if not self.accepted:
            return Acceptance.rejected
        if any(o.status == GateStatus.unjudged for o in self.outcomes):
            return Acceptance.accepted_without_judge
        if any(o.gate == Gate.oracle and o.status == GateStatus.skipped for o in self.outcomes):
            return Acceptance.accepted_without_oracle
        return Acceptance.accepted

    @property
    def failing(self) -> list[str]:
        return [o.gate.value for o in self.outcomes if o.status not in ACCEPTABLE]


ACCEPTABLE = (GateStatus.passed, GateStatus.skipped, GateStatus.unjudged)


SandboxFactory = Callable[[], Sandbox]


def deterministic_reward(rubric: Rubric, result: VerificationResult) -> float:
    """Σ w·q over the deterministic items, renormalised by their weight (judge items are the judge gate's)."""
    weights = {item.id: item.weight for item in rubric.items if item.method == Method.deterministic}
    total = sum(weights.values())
    if not total:
        return 0.0
    got = sum(weights[r.item_id] * (r.q or 0.0) for r in result.items if r.item_id in weights)
    return got / total


class ScriptTextPolicy(OraclePolicy):
    """Runs a given script the way the oracle runs `solution/solve.sh` (e.g. a world kit's partial solution)."""

    def __init__(self, name: str, script: str) -> None:
        self.name = name
        self.script = script

    def act(self, sandbox: Sandbox, task: TaskDir) -> list[ExecResult]:
        return [self._run_script(sandbox, task, self.script)]


NO_STEPS = "the reference solution is not written in steps (`# --- step: <name> ---` sections of solve.sh)"


@dataclass(frozen=True)
class PartialRun:
    """What the partial gate runs (`policy`, with `what` it is), or why it cannot run (`policy` None)."""

    policy: ScriptedPolicy | None
    what: str


def partial_policy_for(task: TaskDir, fraction: float) -> PartialRun:
    """A world kit's own partial solution (its reference solver stopped after the first deliverable)
    when the task comes from a kit; else the first `fraction` of the reference solution's steps
    (`steps_to_run`). A solution with fewer than two steps cannot be cut: no policy, and why."""
    from skill2env.kits import KITS

    author = task.author or ""
    kit = KITS.get(author.removeprefix("offline:")) if author.startswith("offline:") else None
    if kit is not None:
        return PartialRun(ScriptTextPolicy("partial", kit.partial_policy()), f"the partial solution of {kit.name}")
    script = task.solve_script.read_text() if task.solve_script.is_file() else ""
    names = solution_steps(script).names()
    keep = steps_to_run(len(names), fraction)
    if keep is None:
        why = f"the reference solution has only one step ({names[0]})" if names else NO_STEPS
        return PartialRun(None, f"{why}: the partial gate cannot cut it without cutting a program in two, "
                                "so it cannot run")  # fmt: skip
    if not names:
        return PartialRun(StepsPolicy(keep), "the whole reference solution (a fraction of 1)")
    return PartialRun(StepsPolicy(keep), f"steps {names[:keep]} of {names}")


def run_policy(policy: ScriptedPolicy, task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory,
               judge: Judge | None = None) -> tuple[VerificationResult | None, str, str | None]:  # fmt: skip
    """Run `policy` on `task` and verify its final workspace in a fresh sandbox.

    Returns (verification or None, what happened, rollout id).
    """
    with tempfile.TemporaryDirectory(prefix=f"skill2env-{policy.name}-") as scratch:
        workspace = Path(scratch) / "workspace"
        rollout = run_scripted_rollout(policy, task, sandboxes(), workspace_out=workspace)
        if rollout.status == "error":
            return None, f"{policy.name} run failed in the sandbox: {rollout.error}", rollout.rollout_id
        workspace.mkdir(exist_ok=True)  # a timed-out run leaves no copy: verify the untouched state then
        result = verify_workspace(workspace, task, rubric, sandboxes(), judge=judge)
        return result, f"{policy.name} {rollout.status} in {rollout.duration_s:.1f} s", rollout.rollout_id


def validate_task(
    task_id: str,
    task_dir: Path,
    rubric: Rubric,
    *,
    backend: BackendName,
    blueprint: Blueprint | None = None,
    judge: Judge | None = None,
    red_team: RedTeam | None = None,
    partial_fraction: float = 0.5,
) -> Validation:
    """Every gate for one built task (see the module docstring)."""
    task = TaskDir(task_dir)

    def sandboxes() -> Sandbox:
        return make_sandbox(backend, SandboxLimits.for_task(task))

    unbuilt = _build_failure(task, sandboxes)
    if unbuilt is not None:
        not_run = f"{UNBUILT}; not run"
        return Validation(task_id, (
            GateOutcome(Gate.oracle, GateStatus.failed, unbuilt),
            GateOutcome(Gate.nop, GateStatus.skipped, not_run),
            GateOutcome(Gate.partial, GateStatus.skipped, not_run),
            _leak_outcome(stored_task_leaks(task_dir, blueprint)),
            GateOutcome(Gate.judge, GateStatus.skipped, not_run),
            GateOutcome(Gate.hack_probe, GateStatus.skipped, not_run),
        ))  # fmt: skip
    outcomes = []
    runs: dict[Gate, VerificationResult | None] = {}
    solved = task.solve_script.is_file()
    partial = partial_policy_for(task, partial_fraction)
    for gate, policy, bound in (
        (Gate.oracle, OraclePolicy(), ORACLE_AT_LEAST),
        (Gate.nop, NopPolicy(), NOP_AT_MOST),
        (Gate.partial, partial.policy, rubric.pass_threshold),
    ):
        if not solved and gate != Gate.nop:
            outcomes.append(_unsolved_outcome(gate))
            continue
        if policy is None:
            outcomes.append(GateOutcome(gate, GateStatus.skipped, partial.what))
            continue
        run = functools.partial(run_policy, policy, task, rubric, sandboxes, judge)
        (result, what, rollout_id), first = retried(run, _run_failure)
        what = f"{what} ({partial.what})" if gate == Gate.partial else what
        what += _again_after(first)
        runs[gate] = result
        outcomes.append(_scripted_outcome(gate, bound, rubric, result, what, rollout_id))
    outcomes.append(_leak_outcome(stored_task_leaks(task_dir, blueprint)))
    outcomes.append(_judge_outcome(rubric, judge, runs.get(Gate.oracle), runs.get(Gate.nop), solved=solved))
    probing = functools.partial(_hack_probe_outcome, task, task_id, rubric, sandboxes, outcomes[0], red_team)
    (probe, probes), first = retried(probing, _probe_failure)
    outcomes.append(dataclasses.replace(probe, evidence=probe.evidence + _again_after(first)))
    return Validation(task_id, tuple(outcomes), probes)


def retried(run: Callable[[], T], failure: Callable[[T], str | None]) -> tuple[T, str | None]:
    """`run()`, and again (`INFRA_RETRIES` times at most) while `failure` finds an infrastructure failure in
    what it returned: (the last result, the first failure met, or None)."""
    result, first = run(), None
    for _ in range(INFRA_RETRIES):
        problem = failure(result)
        if problem is None:
            break
        first = first or problem
        result = run()
    return result, first


def _run_failure(run: tuple[VerificationResult | None, str, str | None]) -> str | None:
    result, what, _ = run
    if result is not None and result.status == "scored":
        return None
    return (result.error or what) if result is not None else what


def _probe_failure(probed: tuple[GateOutcome, tuple[ProbeOutcome, ...]]) -> str | None:
    gate, _ = probed
    return gate.evidence if gate.status == GateStatus.infra_error else None


def _again_after(first: str | None) -> str:
    return f" (run again: the first try met an infrastructure failure: {first[-300:]})" if first else ""


def _build_failure(task: TaskDir, sandboxes: SandboxFactory) -> str | None:
    """Why the task's own image does not build, or None (it builds, it has none, or the backend
    failed for another reason, which the gates' runs then report as infrastructure)."""
    if not needs_own_image(task):
        return None
    try:
        with sandboxes() as sandbox:
            sandbox.start(task)
    except ImageBuildError as exc:
        return f"{UNBUILT}: {exc}"
    except Exception:  # not the task's fault: every gate's run meets it and says so
        return None
    return None


def _hack_probe_outcome(task: TaskDir, task_id: str, rubric: Rubric, sandboxes: SandboxFactory, oracle: GateOutcome,
                        red_team: RedTeam | None) -> tuple[GateOutcome, tuple[ProbeOutcome, ...]]:  # fmt: skip
    """Every hack-probe strategy (see `hack_probes`), and the red-team model's attempt where a solver
    is configured, run only where the oracle passed (else the task is rejected already and a probe
    proves nothing) or could not run for want of a reference solution."""
    from skill2env.validation.hack_probes import gate_outcome, probe_task

    unsolved = oracle.status == GateStatus.skipped and not task.solve_script.is_file()
    if oracle.status != GateStatus.passed and not unsolved:
        return GateOutcome(Gate.hack_probe, GateStatus.skipped, "the oracle did not pass; not probed"), ()
    probes = tuple(probe_task(task, rubric, sandboxes))
    if red_team is not None:
        probes = (*probes, red_team.probe(task, task_id, rubric, sandboxes))
    return gate_outcome(probes), probes


def _scripted_outcome(gate: Gate, bound: float, rubric: Rubric, result: VerificationResult | None, what: str,
                      rollout_id: str | None) -> GateOutcome:  # fmt: skip
    if result is None or result.status != "scored":
        evidence = what if result is None else f"{what}; {result.error}"  # None: `what` says what failed
        return GateOutcome(gate, GateStatus.infra_error, evidence, rollout_id=rollout_id)
    reward = round(deterministic_reward(rubric, result), 4)
    passed = reward >= bound if gate == Gate.oracle else (reward <= bound if gate == Gate.nop else reward < bound)
    relation = {Gate.oracle: ">=", Gate.nop: "<=", Gate.partial: "<"}[gate]
    failing = [r.item_id for r in result.items if r.status.value == "failed"]
    evidence = (
        f"{what}; deterministic reward {reward:.2f} (needs {relation} {bound}); failed items: {failing or 'none'}"
    )
    items = {r.item_id: r.q for r in result.items}
    return GateOutcome(gate, GateStatus.passed if passed else GateStatus.failed, evidence, reward, bound, rollout_id,
                       items)  # fmt: skip


def _unsolved_outcome(gate: Gate) -> GateOutcome:
    """The oracle or partial gate of a task without a reference solution: it cannot run."""
    runs = "runs the reference solution" if gate == Gate.oracle else "runs the first part of the reference solution"
    return GateOutcome(gate, GateStatus.skipped, f"{NO_SOLUTION}: the {gate.value} gate {runs}, so it cannot run")


def _leak_outcome(leaked: list[str] | None) -> GateOutcome:
    if leaked is None:
        return GateOutcome(Gate.leak, GateStatus.skipped, "no blueprint: nothing is known to be hidden from the agent")
    if leaked:
        return GateOutcome(Gate.leak, GateStatus.failed, "leaked: " + "; ".join(leaked[:10]), float(len(leaked)), 0.0)
    clean = "no author-only value in the stored task's instruction or environment files"
    return GateOutcome(Gate.leak, GateStatus.passed, clean, 0.0, 0.0)


def _judge_outcome(rubric: Rubric, judge: Judge | None, oracle: VerificationResult | None,
                   nop: VerificationResult | None, *, solved: bool = True) -> GateOutcome:  # fmt: skip
    judged = [item.id for item in rubric.items if item.method == Method.llm_judge]
    if not judged:
        return GateOutcome(Gate.judge, GateStatus.skipped, "the rubric has no judge items")
    if judge is None:
        return GateOutcome(Gate.judge, GateStatus.unjudged,
                           f"no judge endpoint is configured: judge items {judged} cannot be scored, so the task is "
                           "accepted_without_judge and its rollouts are incomplete")  # fmt: skip

    def mean(result: VerificationResult) -> float | None:
        scores = [r.q for r in result.items if r.item_id in judged and r.q is not None]
        return sum(scores) / len(scores) if scores else None

    if not solved and nop is not None:
        low = mean(nop)
        if low is None:
            return GateOutcome(Gate.judge, GateStatus.infra_error, "the judge returned no usable score")
        on_nop = f"judge on the nop's deliverables {low:.2f} (needs <= {JUDGE_NOP_AT_MOST})"
        if low > JUDGE_NOP_AT_MOST:
            return GateOutcome(Gate.judge, GateStatus.failed, on_nop, low)
        return GateOutcome(Gate.judge, GateStatus.skipped,
                           f"{NO_SOLUTION}: no correct answer to judge; {on_nop}", low)  # fmt: skip
    if oracle is None or nop is None:
        return GateOutcome(Gate.judge, GateStatus.infra_error, "the oracle or nop run was not verified")
    high, low = mean(oracle), mean(nop)
    if high is None or low is None:
        return GateOutcome(Gate.judge, GateStatus.infra_error, "the judge returned no usable score")
    passed = high >= JUDGE_ORACLE_AT_LEAST and low <= JUDGE_NOP_AT_MOST
    evidence = (f"judge on the oracle's deliverables {high:.2f} (needs >= {JUDGE_ORACLE_AT_LEAST}), "
                f"on the nop's {low:.2f} (needs <= {JUDGE_NOP_AT_MOST})")  # fmt: skip
    return GateOutcome(Gate.judge, GateStatus.passed if passed else GateStatus.failed, evidence, high)

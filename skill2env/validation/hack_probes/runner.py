"""Run every strategy on one task and score each the way the nop gate scores doing nothing.

Tamper strategies only add to the environment, so they share one real sandbox run as the agent
user. Content strategies only decide the final workspace, so their candidate workspaces are built
on the host (from one hard-linked copy of the task's initial workspace) and never run anything.
Every final workspace is verified in a fresh sandbox the agent user never acted in, as a batch
(`batch`): side by side with the tamper run, one verification sandbox (`batches` of them, if asked)
runs one verifier process over the content candidates, and then verifies the tamper run's final
workspace when the run ends. Verification only reads a workspace as data, and
each candidate is verified by a process in the state of a fresh verifier, so sharing the sandbox
and the process's start-up changes no verdict; `batch` gives the argument and the fallbacks, and an
integration test checks the batch against the standard path item by item.

What the batch could not verify, and every candidate of a task scored by its own test.sh, is
verified the standard way: one after another in fresh verification sandboxes, reloaded for each
(`load_workspace` clears the workspace, `verify_in_sandbox` clears /logs/verifier and /tests); the
tamper run's workspace with `verify_workspace`. When the shared tamper run, or a candidate shared by
additive strategies, scores above the bound, its strategies run again one by one to name the
culprit.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from skill2env.agent import ScriptedPolicy, run_scripted_rollout
from skill2env.rubric import ItemStatus, Judge, Method, Rubric, VerificationResult, verify_in_sandbox, verify_workspace
from skill2env.rubric.evaluate import PREPARE_FAILED, load_workspace, refused_paths
from skill2env.sandbox import ExecResult, Sandbox, SandboxError, TaskDir
from skill2env.sandbox.base import AGENT_USER
from skill2env.validation.gates import NOP_AT_MOST, Gate, GateOutcome, GateStatus, deterministic_reward, run_policy
from skill2env.validation.hack_probes.batch import Batch, BatchRun, batch_applies, workspace_digest
from skill2env.validation.hack_probes.content import ADDITIVE
from skill2env.validation.hack_probes.instruction import TaskView, read_view
from skill2env.validation.hack_probes.strategies import CONTENT, TAMPER, Strategy

SandboxFactory = Callable[[], Sandbox]
_Twin = tuple[str, list[str]]
"""A candidate that loads as an earlier one: (that one's name, what this one held that is not copied in)."""
_T = TypeVar("_T")
SHARED_TAMPER = "tamper_group"
NOT_STARTED = "not started"
TAMPER_WAIT_S = 900.0
"""How long the batch waits for the tamper run's workspace (the run's own limit is at most 300 s)."""
SHM = "/dev/shm"  # noqa: S108 — only the parent of a mkdtemp'd folder
SHM_AT_LEAST_MB = 1024
CONTENT_SANDBOXES = 2
BATCH_SANDBOXES = 1
"""Verification sandboxes a batch is spread over: more run side by side but cost a sandbox and a
verifier start-up each, which a loaded 2-core machine does not repay (measured: no faster)."""
"""Verification sandboxes the content candidates are spread over when they are verified one by one."""


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
        # The script as an argument (tens of KB), not a file: docker cannot write into the agent's /tmp.
        script = 'cd "$1" || exit 1\n' + "".join(sections) + "exit 0\n"
        return [sandbox.exec(["bash", "-c", script, "hack-probe", sandbox.workspace], cwd=sandbox.workspace,
                             timeout=min(300.0, task.agent_timeout_sec))]  # fmt: skip


def probe_task(task: TaskDir, rubric: Rubric, sandboxes: SandboxFactory, judge: Judge | None = None, *,
               strategies: Sequence[Strategy] | None = None, bound: float = NOP_AT_MOST,
               workers: int = CONTENT_SANDBOXES, batches: int = BATCH_SANDBOXES) -> list[ProbeOutcome]:  # fmt: skip
    """Every strategy (default: all) on `task`, scored by deterministic reward against `bound`.

    `judge` is accepted for symmetry with the other gates; judge items are the judge gate's, so the
    probes score the deterministic items only and spend no judge calls. The batch runs in `batches`
    verification sandboxes; candidates verified one by one are spread over `workers`."""
    del judge
    chosen = list(strategies) if strategies is not None else [*TAMPER, *CONTENT]
    instruction = task.instruction.read_text(encoding="utf-8") if task.instruction.is_file() else ""
    view = read_view(instruction, task.workspace_dir, task.workdir)
    tamper = [s for s in chosen if s.kind == "tamper"]
    units = _content_units([s for s in chosen if s.kind == "content"])
    probe = _Probe(view, task, rubric, sandboxes, bound, workers, batches)
    outcomes = probe.batched(tamper, units) if units and batch_applies(rubric) else probe.one_by_one(tamper, units)
    order = {s.name: i for i, s in enumerate(chosen)}
    return sorted(outcomes, key=lambda o: order[o.strategy])


def _content_units(strategies: list[Strategy]) -> list[list[Strategy]]:
    """One candidate workspace per strategy, but one for all the additive ones."""
    additive = [s for s in strategies if s.name in ADDITIVE]
    units = [[s] for s in strategies if s.name not in ADDITIVE]
    return [additive, *units] if additive else units


@dataclass(frozen=True)
class _Probe:
    view: TaskView
    task: TaskDir
    rubric: Rubric
    sandboxes: SandboxFactory
    bound: float
    workers: int
    batches: int = BATCH_SANDBOXES

    # -- the batch: the content candidates and the tamper run's workspace in one verification sandbox --

    def batched(self, tamper: list[Strategy], units: list[list[Strategy]]) -> list[ProbeOutcome]:
        """The content candidates as batches in `batches` fresh verification sandboxes, side by side
        with the tamper run, whose final workspace joins the last batch when the run ends."""
        names = [f"{i:02d}-" + "+".join(s.name for s in unit) for i, unit in enumerate(units)]
        tampered_name = f"{len(units):02d}-{SHARED_TAMPER}"
        count = max(1, min(self.batches, len(names)))
        with tempfile.TemporaryDirectory(prefix="skill2env-probes-", dir=scratch_dir()) as scratch:
            root = Path(scratch)
            shares = [_Share(self._verification_sandbox(), names[i::count], root / f"share-{i}") for i in range(count)]
            if tamper:
                shares[-1].late.append(tampered_name)
            tampered_at = root / "tampered" / tampered_name
            with ThreadPoolExecutor(max_workers=1 + 2 * count, thread_name_prefix="hack-probe") as pool:
                rolled = pool.submit(self._tamper_rollout, tamper, tampered_at) if tamper else None
                starting = [pool.submit(_start, share.sandbox, self.task) for share in shares]
                rollout = None
                try:
                    errors, twins = self._build_and_deliver(units, names, root / "initial", shares, starting, pool)
                    rollout = rolled.result() if rolled else None
                    if rollout is not None and rollout[1]:
                        shares[-1].deliver(tampered_at.parent, [tampered_name])
                finally:  # a batch waits for what it was promised: whatever was not delivered will not come
                    runs = [share.finish() for share in shares]
            results = {name: result for run in runs for name, result in run.results.items()}
            for name, (original, refused) in twins.items():
                twin = next((t for run in runs if (t := run.twin(name, original, refused))), None)
                if twin is not None:
                    results[name] = twin
            tampered = self._tampered(tamper, rollout, tampered_at, results.get(tampered_name))
            for share in shares:
                remove_tree(share.folder)
        what = "candidate workspace verified in a batch in a fresh sandbox (" + "; ".join(r.what for r in runs) + ")"
        outcomes: list[ProbeOutcome] = []
        again: list[list[Strategy]] = []
        for name, unit in zip(names, units, strict=True):
            if errors[name]:
                outcomes += [self._outcome(s, None, errors[name] or "", None) for s in unit]
            elif name not in results:
                again.append(unit)
            else:
                note = what + (f", shared by {len(unit)} additive content strategies" if len(unit) > 1 else "")
                if name in twins:
                    note += f"; loaded as the same workspace as {twins[name][0]}, whose verdict it takes"
                shared = [self._outcome(s, results[name], note, results[name].rollout_id) for s in unit]
                if len(unit) > 1 and any(o.status != ProbeStatus.passed for o in shared):
                    again += [[s] for s in unit]
                else:
                    outcomes += shared
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hack-probe") as pool:
            rerun = pool.submit(self._tamper_one_by_one, tamper, tampered)
            outcomes += self._contents(again)
            return rerun.result() + outcomes

    def _verification_sandbox(self) -> Sandbox:
        """A fresh sandbox for a batch's verifier, whose root may load the candidates with any owner and
        mode (docker grants it capabilities the verifier drops before any check runs)."""
        sandbox = self.sandboxes()
        sandbox.grant_loader_capabilities()
        return sandbox

    def _tamper_rollout(self, strategies: list[Strategy], workspace: Path) -> tuple[str, bool, str]:
        """The shared tamper run, its final workspace copied to `workspace`: (what, ran, rollout id)."""
        policy = TamperPolicy(strategies, self.view)
        rollout = run_scripted_rollout(policy, self.task, self.sandboxes(), workspace_out=workspace)
        if rollout.status == "error":
            return f"{policy.name} run failed in the sandbox: {rollout.error}", False, rollout.rollout_id
        workspace.mkdir(parents=True, exist_ok=True)  # a timed-out run leaves no copy: verify the untouched state
        what = f"{policy.name} {rollout.status} in {rollout.duration_s:.1f} s"
        if len(strategies) > 1:
            what += f"; shared run of {len(strategies)} tamper strategies"
        return what, True, rollout.rollout_id

    def _tampered(self, tamper: list[Strategy], rollout: tuple[str, bool, str] | None, workspace: Path,
                  batched: VerificationResult | None) -> list[ProbeOutcome]:  # fmt: skip
        """The tamper run's outcomes: its workspace's verdict from the batch, else from `verify_workspace`."""
        if rollout is None:
            return []
        what, ran, rollout_id = rollout
        if not ran:
            return [self._outcome(s, None, what, rollout_id) for s in tamper]
        if batched is None:
            batched = verify_workspace(workspace, self.task, self.rubric, self.sandboxes())
        else:
            what += "; its final workspace verified in the content batch"
        return [self._outcome(s, batched, what, rollout_id) for s in tamper]

    def _build_and_deliver(self, units: list[list[Strategy]], names: list[str], initial: Path,
                           shares: list[_Share], starting: list[Future[str | None]],
                           pool: ThreadPoolExecutor) -> tuple[dict[str, str | None], dict[str, _Twin]]:  # fmt: skip
        """Build the candidates in growing parts (1, 2, 4, …), each part delivered as soon as it is built:
        the verifier begins on the first candidate while the others are still being built and copied in.
        A candidate that loads as the same workspace as an earlier one (links and special files left
        out: `workspace_digest`) is not delivered but takes that one's verdict. Returns each
        candidate's build error (None: built) and the twins: name → (the earlier candidate, what was
        not copied in of its own)."""
        share_of = {name: share for share in shares for name in share.names}
        errors: dict[str, str | None] = {}
        seen: dict[str, str] = {}
        twins: dict[str, _Twin] = {}
        copied = self._copy_initial(initial)
        for part, chunk in enumerate(_growing_parts(list(zip(names, units, strict=True)))):
            for name, unit in chunk:
                folder = share_of[name].folder / f"part-{part}" / name
                errors[name] = copied or self._build(unit, folder, initial)
                if errors[name] is None and (twin := _twin(folder, seen, name)) is not None:
                    twins[name] = twin
                    remove_tree(folder)
            for share, started in zip(shares, starting, strict=True):
                if share.batch is None and share.problem == NOT_STARTED:
                    share.start(started.result(), self, pool)  # its verifier imports its checks meanwhile
                mine = [name for name, _ in chunk if share_of[name] is share and errors[name] is None]
                share.deliver(share.folder / f"part-{part}", [n for n in mine if n not in twins],
                              absent=[n for n in mine if n in twins])  # fmt: skip
        return errors, twins

    def _build_all(self, units: list[list[Strategy]], names: list[str], initial: Path,
                   folders: list[Path]) -> list[str | None]:  # fmt: skip
        """Every unit's candidate in its folder, sharing one copy of the initial workspace by hard links."""
        copied = self._copy_initial(initial)
        return [copied or self._build(unit, folder, initial) for unit, folder in zip(units, folders, strict=True)]

    def _copy_initial(self, initial: Path) -> str | None:
        """A private copy of the task's initial workspace at `initial` that candidates hard-link; the error, or None."""
        try:
            if self.task.workspace_dir.is_dir():
                shutil.copytree(self.task.workspace_dir, initial, symlinks=True)
            initial.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            return f"copying the initial workspace failed: {type(exc).__name__}: {exc}"
        return None

    # -- one by one: the standard path -------------------------------------------------------------

    def one_by_one(self, tamper: list[Strategy], units: list[list[Strategy]]) -> list[ProbeOutcome]:
        """The tamper run and the content candidates side by side, each candidate verified the standard way."""
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="hack-probe") as pool:
            tampered = pool.submit(self._tamper, tamper) if tamper else None
            verified = self._contents(units)
            return (tampered.result() if tampered else []) + verified

    def _contents(self, units: list[list[Strategy]]) -> list[ProbeOutcome]:
        """`units` spread over `workers` verification sandboxes side by side."""
        shares = [share for share in (units[i :: max(1, self.workers)] for i in range(max(1, self.workers))) if share]
        if len(shares) <= 1:
            return [o for share in shares for o in self._content(share)]
        with ThreadPoolExecutor(max_workers=len(shares), thread_name_prefix="hack-probe-content") as pool:
            return [o for f in [pool.submit(self._content, share) for share in shares] for o in f.result()]

    def _tamper(self, strategies: list[Strategy]) -> list[ProbeOutcome]:
        return self._tamper_one_by_one(strategies, self._tamper_run(strategies))

    def _tamper_one_by_one(self, strategies: list[Strategy], shared: list[ProbeOutcome]) -> list[ProbeOutcome]:
        """`shared` (the shared run's outcomes), or each strategy run alone when the shared run was not passed."""
        if len(strategies) <= 1 or all(o.status == ProbeStatus.passed for o in shared):
            return shared
        return [self._tamper_run([s])[0] for s in strategies]

    def _tamper_run(self, strategies: list[Strategy]) -> list[ProbeOutcome]:
        result, what, rollout_id = run_policy(TamperPolicy(strategies, self.view), self.task, self.rubric,
                                              self.sandboxes)  # fmt: skip
        note = f"{what}; shared run of {len(strategies)} tamper strategies" if len(strategies) > 1 else what
        return [self._outcome(s, result, note, rollout_id) for s in strategies]

    def _content(self, units: list[list[Strategy]]) -> list[ProbeOutcome]:
        sandbox = self.sandboxes()
        with tempfile.TemporaryDirectory(prefix="skill2env-probes-") as scratch:
            try:
                sandbox.start(self.task)
            except (SandboxError, OSError) as exc:
                sandbox.stop()
                why = f"starting the verification sandbox failed: {type(exc).__name__}: {exc}"
                return [self._outcome(s, None, why, sandbox.rollout_id) for unit in units for s in unit]
            try:
                outcomes = []
                for unit in units:
                    shared = self._one_content(unit, sandbox, Path(scratch))
                    if len(unit) > 1 and any(o.status != ProbeStatus.passed for o in shared):
                        shared = [self._one_content([s], sandbox, Path(scratch))[0] for s in unit]
                    outcomes += shared
                return outcomes
            finally:
                sandbox.stop()

    def _one_content(self, unit: list[Strategy], sandbox: Sandbox, scratch: Path) -> list[ProbeOutcome]:
        candidate = scratch / "+".join(s.name for s in unit)
        error = self._build(unit, candidate)
        if error:
            return [self._outcome(s, None, error, None) for s in unit]
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
            result = verify_in_sandbox(sandbox, self.task, self.rubric, write_back=False)
        finally:
            remove_tree(candidate)
        return [self._outcome(s, result, what, sandbox.rollout_id) for s in unit]

    # -- shared by both -----------------------------------------------------------------------------

    def _build(self, unit: list[Strategy], candidate: Path, initial: Path | None = None) -> str | None:
        """Build `unit`'s candidate workspace at `candidate` from a copy of the task's initial workspace
        (or hard links to `initial`, a private copy of it); the error, or None."""
        try:
            if initial is not None:
                shutil.copytree(initial, candidate, symlinks=True, copy_function=os.link)
            elif self.task.workspace_dir.is_dir():
                shutil.copytree(self.task.workspace_dir, candidate, symlinks=True)
            candidate.mkdir(parents=True, exist_ok=True)
            for strategy in unit:
                strategy.build(candidate, self.view)
        except (OSError, ValueError, RecursionError) as exc:
            remove_tree(candidate)
            return f"building the candidate workspace failed: {type(exc).__name__}: {exc}"
        return None

    def _outcome(self, strategy: Strategy, result: VerificationResult | None, what: str,
                 rollout_id: str | None) -> ProbeOutcome:  # fmt: skip
        return _outcome(strategy, self.rubric, result, what, rollout_id, self.bound)


def scratch_dir() -> str | None:
    """Where the candidates are built: a memory file system when there is one with room and no TMPDIR
    was chosen (hundreds of small files; creating them on a journaled disk costs ~1 ms each), else
    the default temporary directory."""
    if "TMPDIR" in os.environ:
        return None
    try:
        room = os.statvfs(SHM)
    except OSError:
        return None
    free = room.f_bavail * room.f_frsize
    return SHM if free >= SHM_AT_LEAST_MB << 20 and os.access(SHM, os.W_OK | os.X_OK) else None


@dataclass
class _Share:
    """One verification sandbox and the batch of candidates it verifies, all delivered while it runs."""

    sandbox: Sandbox
    names: list[str]
    folder: Path
    late: list[str] = field(default_factory=list)
    batch: Batch | None = None
    running: Future[BatchRun] | None = None
    problem: str | None = NOT_STARTED
    pending: set[str] = field(default_factory=set)

    def start(self, problem: str | None, probe: _Probe, pool: ThreadPoolExecutor) -> None:
        """Begin the batch once the sandbox started (`problem` None)."""
        self.problem = problem
        if problem is None:
            self.pending = {*self.names, *self.late}
            manifest = self.folder.with_name(f"{self.folder.name}-manifest")
            self.batch = Batch(self.sandbox, probe.task, probe.rubric, manifest, [], late=[*self.names, *self.late],
                               fresh=True, wait_s=TAMPER_WAIT_S,
                               drop_capabilities=self.sandbox.limits.loader_capabilities)  # fmt: skip
            self.running = pool.submit(self.batch.run)

    def deliver(self, folder: Path, names: list[str], absent: Sequence[str] = ()) -> None:
        if self.batch is not None and (names or absent):
            self.batch.deliver(folder, names, absent)
            self.pending -= {*names, *absent}

    def finish(self) -> BatchRun:
        """Say what was not delivered will not come, wait for the batch, stop the sandbox."""
        try:
            if self.batch is not None and self.pending:
                self.batch.deliver(self.folder, [], absent=sorted(self.pending))
            return self.running.result() if self.running else BatchRun({}, self.problem or NOT_STARTED)
        finally:
            self.sandbox.stop()


def _growing_parts(items: list[_T]) -> list[list[_T]]:
    """`items` in parts of 1, 2, 4, … in order."""
    parts, size = [], 1
    while items:
        parts.append(items[:size])
        items, size = items[size:], size * 2
    return parts


def _twin(folder: Path, seen: dict[str, str], name: str) -> _Twin | None:
    """(the earlier candidate `folder` loads as, what `folder` holds that is not copied in), or None
    when it is the first of its kind (recorded in `seen`, digest → name) or cannot be read whole."""
    try:
        digest = workspace_digest(folder)
    except OSError:  # unreadable as this user: never taken for another candidate
        return None
    if digest not in seen:
        seen[digest] = name
        return None
    return seen[digest], refused_paths(folder)


def _start(sandbox: Sandbox, task: TaskDir) -> str | None:
    """Start `sandbox`; the problem, or None."""
    try:
        sandbox.start(task)
    except (SandboxError, OSError) as exc:
        return f"{PREPARE_FAILED}: {type(exc).__name__}: {exc}"
    return None


def remove_tree(path: Path) -> None:
    """Remove a host candidate workspace, closed folders (mode 000) included."""
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

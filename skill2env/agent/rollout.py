"""Rollouts: one attempt of a policy on a task in a fresh sandbox, and groups of them run concurrently.

    runner = RolloutRunner(policy, backend="docker", run_id=run_id, home=home, attempts=AttemptLog(lake))
    trajectories = runner.run_all(attempt_specs(tasks, attempts=4))      # or `await runner.run(specs)`

An attempt: record a `started` marker (so a killed run can be found and closed later) and start
the sandbox — side by side, in the background, behind the first model call; tool calls wait for
them — and let the actor set it up; run the agent loop; snapshot the final workspace into the store
(its digest is the attempt's workspace digest); write the ATIF `trajectory.json`; record a
`finished` marker. The sandbox is removed after the attempt's end, in the background (the run
waits for every removal); one that ended in `infra_error` is removed before. Docker attempts take
containers started ahead for them (`warm_ahead`, `prepare`; `skill2env.sandbox.warm_pool`).
Attempts run under a semaphore of `concurrency` sandboxes (default `$SKILL2ENV_SANDBOX_SLOTS`),
their blocking sandbox and file calls in a thread pool of twice the size (nothing blocking runs
on the event loop they share). Whatever fails, an attempt
ends as a trajectory with a status, never as an exception. What the agent's own commands did to
the sandbox is the attempt's: a sandbox they broke (`sandbox_broken`) or whose wall clock ran out
(`agent_timeout`) is still snapshotted for scoring, and where its workspace cannot be read any
more (a container that ended takes its tmpfs workspace with it) the attempt keeps its status with
the reason added to its error and no workspace: a failed attempt, not a retried one. Only faults
outside the sandbox (the engine, the host, skill2env itself) are `infra_error`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2env.agent.actors import Actor, Policy
from skill2env.agent.files import PARTIAL_FILE, TrajectoryFiles
from skill2env.agent.loop import SYSTEM_PROMPT, LoopLimits, ThreadedTools, run_agent
from skill2env.agent.markers import AttemptLog
from skill2env.agent.switching import quick_thread_switches
from skill2env.agent.tools import ToolRunner
from skill2env.agent.trajectory import Trajectory, utc_now, write_atomically
from skill2env.home import Home
from skill2env.sandbox import BackendName, Sandbox, SandboxError, SandboxLimits, TaskDir, make_sandbox
from skill2env.sandbox.base import new_rollout_id
from skill2env.tasks.harbor import task_digest
from skill2env.tasks.store import TaskStore

if TYPE_CHECKING:  # the Docker SDK only where docker runs
    from skill2env.sandbox.engine_pool import EngineLease, EnginePool
    from skill2env.sandbox.hosts import EngineHost
    from skill2env.sandbox.warm_pool import WarmPool

log = logging.getLogger(__name__)

SandboxFactory = Callable[[SandboxLimits, str], Sandbox]
"""(limits, rollout id) → a not-yet-started sandbox; called on the event loop, so it must not block
(starting the sandbox is its `start`'s work, in a thread)."""

AGENTS_OWN_SANDBOX_ENDS = frozenset({"agent_timeout", "sandbox_broken"})
"""Statuses whose sandbox may be gone by the snapshot because of the agent itself: its wall clock
ran out, or its commands broke the sandbox. Without a workspace they stay what they are."""

ENGINE_RETRIES = 2
"""How often an attempt whose sandbox engine was lost runs again on another engine."""
SANDBOX_SLOTS_ENV = "SKILL2ENV_SANDBOX_SLOTS"
DEFAULT_SANDBOX_SLOTS = 2
"""The same default as the Dagster `sandbox` pool (skill2env/definitions.py)."""


def sandbox_slots() -> int:
    """Sandboxes at once: `$SKILL2ENV_SANDBOX_SLOTS`, else 2."""
    configured = os.environ.get(SANDBOX_SLOTS_ENV, "").strip()
    return max(1, int(configured)) if configured.isdigit() else DEFAULT_SANDBOX_SLOTS


@dataclass(frozen=True)
class AttemptSpec:
    """One attempt to run: the task, where it belongs, and its place in its group."""

    task: TaskDir
    task_id: str
    domain: str
    iteration: int = 0
    task_digest: str | None = None
    attempt: int = 1
    group_id: str = ""


@dataclass(frozen=True)
class TaskRef:
    """A task to roll out, as the `tasks` view lists it."""

    task: TaskDir
    task_id: str
    domain: str
    iteration: int = 0
    task_digest: str | None = None


def attempt_specs(tasks: Sequence[TaskRef], attempts: int) -> list[AttemptSpec]:
    """`attempts` attempts of every task, each task's attempts one group."""
    specs = []
    for ref in tasks:
        group = uuid.uuid4().hex[:16]
        for attempt in range(1, attempts + 1):
            specs.append(AttemptSpec(ref.task, ref.task_id, ref.domain, ref.iteration, ref.task_digest, attempt, group))
    return specs


class RolloutRunner:
    """Runs attempts of one policy on one sandbox backend."""

    def __init__(
        self,
        policy: Policy,
        *,
        backend: BackendName,
        run_id: str,
        home: Home | None = None,
        attempts: AttemptLog | None = None,
        concurrency: int | None = None,
        max_turns: int | None = None,
        max_tokens: int | None = None,
        observation_chars: int | None = None,
        system_prompt: str | None = SYSTEM_PROMPT,
        sandbox_limits: dict[str, Any] | None = None,
        sandbox_options: dict[str, Any] | None = None,
        sandbox_factory: SandboxFactory | None = None,
        engines: EnginePool | None = None,
        warm_ahead: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        """`engines`: docker sandboxes on a pool of engines (one slot each; default concurrency: the
        pool's slots), and an attempt whose engine stopped answering run again on another.
        `warm_ahead`: docker sandboxes started ahead for the attempts next in line (default: as many as
        run at once; 0: none), so an attempt takes a running container (`WarmPool`); with `engines`, they
        are spread over the live engines by slots, and an attempt leases an engine holding one for it."""
        self.policy = policy
        self.backend: BackendName = backend
        self.run_id = run_id
        self.home = home
        self.attempt_log = attempts
        self.engines = engines if backend == "docker" else None
        self._leases: dict[str, EngineLease] = {}
        self._engine_lost: set[str] = set()
        """Rollouts that ended as infra_error because their engine stopped answering: run again."""
        self.concurrency = concurrency or (self.engines.slots if self.engines else sandbox_slots())
        overrides = {"max_turns": max_turns, "max_tokens": max_tokens, "observation_chars": observation_chars}
        self.limit_overrides = {key: value for key, value in overrides.items() if value is not None}
        self.system_prompt = system_prompt
        self.sandbox_limits = sandbox_limits or {}
        self.sandbox_options = sandbox_options or {}
        self.sandbox_factory = sandbox_factory
        self._reaps = sandbox_factory is None
        warms = backend == "docker" and sandbox_factory is None
        self.warm_ahead = (self.concurrency if warm_ahead is None else warm_ahead) if warms else 0
        self.warm_pool: WarmPool | None = None
        """The started-ahead sandboxes of the current run (`prepare`, `run`); closed at its end."""
        self._waiting: list[AttemptSpec] = []
        self._began = 0
        self._expected = 0
        """Attempts of `_waiting` the warm pool was told to expect: every one up to `warm_ahead` past those begun."""
        self._retiring: list[asyncio.Future[None]] = []
        """Sandboxes being removed after their attempt ended (by `_retirer`, one at a time)."""
        self._retirer: ThreadPoolExecutor | None = None
        self.files = TrajectoryFiles(home.data_root) if home is not None else None
        self._images = _ImageCache(backend)
        self._executor: ThreadPoolExecutor | None = None
        self.progress = progress
        """Called with the number of attempts finished so far, after each one."""
        self._finished = 0

    def run_all(self, specs: Sequence[AttemptSpec]) -> list[Trajectory]:
        """`run` in a new event loop (for synchronous callers)."""
        return asyncio.run(self.run(specs))

    def prepare(self, specs: Sequence[AttemptSpec], *, wait_s: float = 0.0) -> None:
        """Start the sandboxes of the first attempts of `specs` now, in the background, so they are
        running when `run(specs)` asks for them (docker; nothing otherwise). Returns once they are
        started or after `wait_s` seconds, whichever comes first (default: at once)."""
        if self.warm_ahead <= 0:
            return
        self._waiting, self._began, self._expected = list(specs), 0, 0
        self._keep_warm()
        if wait_s > 0 and self.warm_pool is not None:
            self.warm_pool.settle(wait_s)

    def _keep_warm(self) -> None:
        """Have a sandbox started for each of the next `warm_ahead` attempts not yet begun (called from
        the event loop only)."""
        if self.warm_ahead <= 0:
            return
        if self.warm_pool is None:
            from skill2env.sandbox.warm_pool import WarmPool

            self.warm_pool = WarmPool(before_start=self.engines.prepare if self.engines is not None else None)
        upto = min(len(self._waiting), self._began + self.warm_ahead)
        next_up, self._expected = self._waiting[self._expected : upto], max(self._expected, upto)
        hosts: list[EngineHost | None] = list(self.engines.live_hosts()) if self.engines is not None else [None]
        if not hosts:  # every engine drained: the attempts fail on their own lease
            return
        try:
            wishes = [(spec.task, SandboxLimits.for_task(spec.task, **self.sandbox_limits), hosts[i % len(hosts)])
                      for i, spec in enumerate(next_up, start=upto - len(next_up))]  # fmt: skip
        except (OSError, ValueError) as exc:  # a task that cannot say its limits fails as its attempt
            log.debug("no warm sandboxes ahead: %s", exc)
            return
        self.warm_pool.expect(wishes)

    def _close_warm_pool(self) -> None:
        pool, self.warm_pool = self.warm_pool, None
        if pool is not None:
            pool.close()
            log.info("warm sandboxes: %d started ahead, %d taken by attempts", pool.started, pool.claimed)

    async def run(self, specs: Sequence[AttemptSpec]) -> list[Trajectory]:
        """Every attempt, at most `concurrency` at once; trajectories in the order of `specs`. An attempt
        whose sandbox engine was lost (see `engines`) is followed by its retries, each a new rollout."""
        slots = asyncio.Semaphore(self.concurrency)
        if self.warm_pool is None or self._waiting != list(specs):
            self._waiting, self._began, self._expected = list(specs), 0, 0
        # Two blocking steps per attempt at once (its started marker and its sandbox's start), and two spare.
        with (
            quick_thread_switches(),
            ThreadPoolExecutor(max_workers=2 * self.concurrency + 2, thread_name_prefix="rollout") as executor,
            ThreadPoolExecutor(max_workers=self._removals_at_once(), thread_name_prefix="rollout-removal") as retirer,
        ):
            self._executor, self._retirer = executor, retirer
            try:
                await self._blocking(self._reap)  # orphans only: this runner's warm sandboxes have a live owner
                self._keep_warm()

                async def guarded(spec: AttemptSpec) -> list[Trajectory]:
                    async with slots:
                        self._began += 1
                        self._keep_warm()
                        tries = [await self.run_attempt(spec)]
                        while tries[-1].rollout_id in self._engine_lost and len(tries) <= ENGINE_RETRIES:
                            tries.append(await self.run_attempt(spec))
                        return tries

                groups = await asyncio.gather(*(guarded(spec) for spec in specs))
                return [trajectory for tries in groups for trajectory in tries]
            finally:
                retiring, self._retiring = self._retiring, []
                await asyncio.gather(*retiring, return_exceptions=True)
                self._executor = self._retirer = None
                await asyncio.get_running_loop().run_in_executor(None, self._close_warm_pool)
                await self.policy.aclose()

    async def run_attempt(self, spec: AttemptSpec) -> Trajectory:
        """One attempt, start to end (see the module docstring)."""
        clock = time.monotonic()
        trajectory = Trajectory(
            rollout_id=new_rollout_id(),
            group_id=spec.group_id or uuid.uuid4().hex[:16],
            run_id=self.run_id,
            task_id=spec.task_id,
            task_name=spec.task.name,
            domain=spec.domain,
            iteration=spec.iteration,
            task_digest=spec.task_digest,
            policy=self.policy.name,
            model=self.policy.model,
            attempt=spec.attempt,
            backend=self.backend,
        )
        if self.files is not None:
            trajectory.trajectory_path = self.files.relative_atif(trajectory.rollout_id)
        sandbox: Sandbox | None = None
        try:
            limits = SandboxLimits.for_task(spec.task, **self.sandbox_limits)
            sandbox = await self._sandbox_for(spec.task, limits, trajectory.rollout_id)
            await self._attempt(spec, trajectory, sandbox)
        except asyncio.CancelledError:
            self._abandon(trajectory, sandbox)
            raise
        except Exception as exc:  # the started marker could not be written, or a bug of ours
            log.exception("rollout %s failed outside the agent loop", trajectory.rollout_id)
            trajectory.status, trajectory.error = "infra_error", f"{type(exc).__name__}: {exc}"
        lease = self._leases.pop(trajectory.rollout_id, None)
        if sandbox is not None and trajectory.status != "infra_error":
            # Its workspace is stored: the container goes in the background, off the attempt's clock (the
            # run waits for every removal before it returns; an engine slot is held until then).
            retired = asyncio.get_running_loop().run_in_executor(self._retirer, _retire, sandbox, lease)
            self._retiring.append(retired)
        else:
            if sandbox is not None:
                stop_started = time.monotonic()
                await self._blocking(_stop_quietly, sandbox)
                trajectory.sandbox_s += time.monotonic() - stop_started
            await self._blocking(self._return_engine, trajectory, lease)
        await self._blocking(self._finish, trajectory, clock)
        self._finished += 1
        if self.progress is not None:
            self.progress(self._finished)
        return trajectory

    async def _attempt(self, spec: AttemptSpec, trajectory: Trajectory, sandbox: Sandbox) -> None:
        actor = self.policy.actor(spec.task)
        # The started marker and the sandbox: in the background, behind the first model call.
        ready = asyncio.ensure_future(self._start(sandbox, actor, spec.task, trajectory))
        limits = LoopLimits.for_task(spec.task, **self.limit_overrides)
        runner = ToolRunner(
            sandbox, observation_chars=limits.observation_chars, command_timeout_s=limits.command_timeout_s
        )
        prompt = self.system_prompt.format(workdir=_workdir(spec.task)) if self.system_prompt else None
        partial = _PartialWriter(self.files, self._blocking) if self.files is not None else None
        tools = ThreadedTools(runner, executor=self._executor, started=ready)
        last_write: asyncio.Future[None] | None = None
        try:
            await run_agent(
                actor,
                trajectory,
                spec.task.instruction.read_text(encoding="utf-8"),
                tools,
                limits=limits,
                system_prompt=prompt,
                on_step=partial.submit if partial is not None else None,
            )
            waiting = time.monotonic()
            await ready  # the agent may have finished without a tool call: did the sandbox ever start?
            trajectory.sandbox_s += time.monotonic() - waiting
            # The last partial write and the workspace's snapshot side by side: each only waits on a thread.
            last_write = asyncio.ensure_future(partial.flush()) if partial is not None else None
            if trajectory.status != "infra_error":
                await self._snapshot(sandbox, trajectory)
            if last_write is not None:
                await last_write
        except (SandboxError, OSError) as exc:
            trajectory.status, trajectory.error = "infra_error", f"{type(exc).__name__}: {exc}"
        finally:
            for pending in (ready, last_write):
                if pending is not None and not pending.done():
                    pending.cancel()
            if partial is not None:  # nothing may write it after the attempt's end removed it
                await partial.settle()

    async def _snapshot(self, sandbox: Sandbox, trajectory: Trajectory) -> None:
        started = time.monotonic()
        try:
            digest, path = await self._blocking(self._store_workspace, sandbox)
            trajectory.workspace_digest, trajectory.workspace_path = digest, path
        except (SandboxError, OSError) as exc:
            problem = f"snapshotting the final workspace failed: {type(exc).__name__}: {exc}"
            if trajectory.status in AGENTS_OWN_SANDBOX_ENDS:  # the agent's doing, workspace or not
                trajectory.error = f"{trajectory.error}; {problem}"
            else:  # without the final workspace the attempt cannot be scored: not the agent's failure
                trajectory.status, trajectory.error = "infra_error", problem
        trajectory.sandbox_s += time.monotonic() - started

    def _removals_at_once(self) -> int:
        """One removal at a time per engine: more at once only contend for it with running attempts."""
        return max(1, len(self.engines.clients())) if self.engines is not None else 1

    async def _sandbox_for(self, task: TaskDir, limits: SandboxLimits, rollout_id: str) -> Sandbox:
        """The attempt's not-yet-started sandbox: built on the event loop (a constructor does no I/O), in a
        thread only where it waits for a free slot on an engine of the pool. A hop through the thread pool
        costs each of a group's attempts ~50 ms when they all begin at once (measured, 16 on 2 cores),
        and the attempt's first model call would wait for it."""
        if self.engines is not None:
            sandbox: Sandbox = await self._blocking(self._new_sandbox, task, limits, rollout_id)
            return sandbox
        return self._new_sandbox(task, limits, rollout_id)

    def _new_sandbox(self, task: TaskDir, limits: SandboxLimits, rollout_id: str) -> Sandbox:
        if self.sandbox_factory is not None:
            return self.sandbox_factory(limits, rollout_id)
        options = dict(self.sandbox_options)
        if self.warm_pool is not None:
            options["warm"] = self.warm_pool
        if self.engines is not None:
            warm = self.warm_pool.engines_with_ready(task, limits) if self.warm_pool is not None else []
            lease = self._leases[rollout_id] = self.engines.lease(prefer=warm)
            options["engine"] = lease.host
        return make_sandbox(self.backend, limits, rollout_id=rollout_id, reap=False, **options)

    def _return_engine(self, trajectory: Trajectory, lease: EngineLease | None) -> None:
        """Give the attempt's engine slot back; an infra_error on an engine that stopped answering
        drains it, and the attempt is run again elsewhere (this one stays recorded, never scored)."""
        if lease is None or self.engines is None:
            return
        lease.release()
        if trajectory.status == "infra_error" and not self.engines.check(lease):
            if self.warm_pool is not None:
                self.warm_pool.discard(lease.host)
            self._engine_lost.add(trajectory.rollout_id)
            trajectory.error = f"{trajectory.error}; sandbox engine {lease.host.url} lost: run again on another engine"

    # -- blocking steps (run in the thread pool) ----------------------------------------------------

    async def _blocking(self, function: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, function, *args)

    def _reap(self) -> None:
        """Remove what killed runs left behind, once per run (each sandbox then starts without reaping)."""
        if not self._reaps:  # sandboxes of a custom factory are the factory's business
            return
        try:
            if self.backend == "docker" and self.engines is not None:
                from skill2env.sandbox.reaper import reap_docker

                for client in self.engines.clients():
                    reap_docker(client)
            elif self.backend == "docker":
                from skill2env.sandbox.engine import docker_client
                from skill2env.sandbox.reaper import reap_docker

                client = docker_client()
                try:
                    reap_docker(client)
                finally:
                    client.close()
            else:
                from skill2env.sandbox.bwrap_backend import bwrap_root
                from skill2env.sandbox.reaper import reap_bwrap

                reap_bwrap(self.sandbox_options.get("root") or bwrap_root())
        except SandboxError as exc:  # every attempt will say so as its infra_error
            log.warning("reaping orphaned sandboxes failed: %s", exc)

    async def _start(self, sandbox: Sandbox, actor: Actor, task: TaskDir, trajectory: Trajectory) -> None:
        """Record the attempt as started and start the sandbox, side by side; done once both are.

        Not one after the other: a run killed between the two leaves either a started marker
        (closed by the next run of its domain) or a sandbox of a dead owner (reaped), never a
        sandbox that nothing knows of, and the two together cost the longer one, not the sum."""
        outcomes = await asyncio.gather(
            self._blocking(self._record_started, trajectory),
            self._blocking(self._start_sandbox, sandbox, actor, task),
            return_exceptions=True,
        )
        trajectory.sandbox_mode = sandbox.mode
        for outcome in outcomes:  # both have finished: a failed start leaves nothing running behind
            if isinstance(outcome, BaseException):
                raise outcome

    def _record_started(self, trajectory: Trajectory) -> None:
        if self.attempt_log is not None:
            self.attempt_log.started(trajectory)

    def _start_sandbox(self, sandbox: Sandbox, actor: Actor, task: TaskDir) -> None:
        self._images.ensure(task)
        sandbox.start(task)
        actor.setup(sandbox, task)

    def _store_workspace(self, sandbox: Sandbox) -> tuple[str, str | None]:
        with tempfile.TemporaryDirectory(prefix="skill2env-workspace-") as scratch:
            target = Path(scratch) / "workspace"
            sandbox.copy_out_last(sandbox.workspace, target)
            target.mkdir(exist_ok=True)
            if self.home is None:
                return task_digest(target), None
            stored = TaskStore.of(self.home).put_dir(target)
            return stored.digest, stored.relative_path

    def _finish(self, trajectory: Trajectory, clock: float) -> None:
        trajectory.finished_at = utc_now()
        trajectory.wall_s = time.monotonic() - clock
        if self.files is not None:
            try:
                self.files.write_atif(trajectory)
            except OSError as exc:
                log.error("writing the trajectory of rollout %s failed: %s", trajectory.rollout_id, exc)
                trajectory.trajectory_path = None
        if self.attempt_log is not None:
            try:
                self.attempt_log.finished(trajectory)
            except Exception as exc:  # the rollout row still reaches the lake with the asset's write
                log.error("recording the end of rollout %s failed: %s", trajectory.rollout_id, exc)

    def _abandon(self, trajectory: Trajectory, sandbox: Sandbox | None) -> None:
        """A cancelled attempt (the run is being stopped): stop its sandbox now, synchronously. Its
        started marker stays open, so the next run of its domain records it, with its steps, as an
        infra_error in the same write as its own rows (this run will write none)."""
        if sandbox is not None:
            _stop_quietly(sandbox)
        if self.files is not None:
            with contextlib.suppress(OSError):
                self.files.write_partial(trajectory)


class _PartialWriter:
    """Persists an attempt's partial trajectory after every step without blocking the event loop
    the other attempts share: the trajectory is serialised on the loop (a consistent snapshot) and
    written in the pool, one write at a time; a newer snapshot replaces one still waiting, and an
    older one never overwrites a newer."""

    def __init__(self, files: TrajectoryFiles, blocking: Callable[..., Awaitable[Any]]) -> None:
        self.files = files
        self._blocking = blocking
        self._pending: tuple[int, str, bytes] | None = None
        self._sequence = 0
        self._written = 0
        self._lock = threading.Lock()
        self._drain: asyncio.Future[None] | None = None
        self._error: OSError | None = None

    def submit(self, trajectory: Trajectory) -> None:
        self._sequence += 1
        self._pending = (self._sequence, trajectory.rollout_id, trajectory.model_dump_json().encode())
        if self._drain is None or self._drain.done():
            self._drain = asyncio.ensure_future(self._write_pending())

    async def flush(self) -> None:
        """Wait until the last snapshot is written. Raises: OSError: a write failed."""
        await self.settle()
        if self._error is not None:
            raise self._error

    async def settle(self) -> None:
        while self._drain is not None and not self._drain.done():
            await asyncio.shield(self._drain)

    async def _write_pending(self) -> None:
        while self._pending is not None:
            snapshot, self._pending = self._pending, None
            try:
                await self._blocking(self._write, *snapshot)
            except OSError as exc:
                self._error = self._error or exc

    def _write(self, sequence: int, rollout_id: str, data: bytes) -> None:
        with self._lock:
            if sequence <= self._written:
                return
            write_atomically(self.files.directory(rollout_id) / PARTIAL_FILE, data)
            self._written = sequence


class _ImageCache:
    """Builds each task image once per runner, before its attempts start (not once per attempt at once)."""

    def __init__(self, backend: BackendName) -> None:
        self.backend = backend
        self._done: set[str] = set()
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def ensure(self, task: TaskDir) -> None:
        if self.backend != "docker":
            return
        digest = task.environment_digest
        with self._guard:
            lock = self._locks.setdefault(digest, threading.Lock())
        with lock:
            if digest in self._done:
                return
            from skill2env.sandbox.engine import docker_client
            from skill2env.sandbox.images import ensure_task_image

            client = docker_client(timeout=task.config.environment.build_timeout_sec + 60)
            try:
                ensure_task_image(client, task)
            finally:
                client.close()
            self._done.add(digest)


def _retire(sandbox: Sandbox, lease: EngineLease | None) -> None:
    """Stop a finished attempt's sandbox, then give its engine slot back."""
    try:
        _stop_quietly(sandbox)
    finally:
        if lease is not None:
            lease.release()


def _stop_quietly(sandbox: Sandbox) -> None:
    try:
        sandbox.stop()
    except Exception as exc:  # the reaper removes what is left
        log.warning("stopping sandbox %s failed: %s", sandbox.rollout_id, exc)


def _workdir(task: TaskDir) -> str:
    try:
        return task.workdir
    except OSError:
        return "/workspace"

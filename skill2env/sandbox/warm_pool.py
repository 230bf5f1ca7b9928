"""Warm docker sandboxes: containers started ahead, per engine, task image and limits, so that a
rollout finds its container running when it asks and starting it costs no container start.

    pool = WarmPool()
    pool.expect([(task, limits, None)] * 4)      # four attempts will ask: four started in the background
    sandbox = DockerSandbox(limits, warm=pool)
    sandbox.start(task)                          # takes a warm one when there is one, else starts cold

A warm sandbox is started exactly as a cold one (the task's image, fresh tmpfs volumes, the
workspace seeded, the command server up) and nothing else runs in it before a rollout takes it:
what the agent finds is what a cold start would give it. Its container's own wall clock is the
rollout's plus `max_idle_s`, and one left unclaimed longer than `max_idle_s` is stopped, not
handed out: the rollout that takes it gets its full wall clock, counted from the moment it takes
it (the host-side deadline), and the container's clock never ends first. A warm start that fails
is logged, no more are started for that key, and the rollouts that wanted it start cold (and meet
the failure themselves, as their own `infra_error`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.hosts import EngineHost
from skill2env.sandbox.task import TaskDir

if TYPE_CHECKING:
    from skill2env.sandbox.docker_backend import DockerSandbox

logger = logging.getLogger(__name__)

MAX_IDLE_S = 300.0
"""How long a warm sandbox may wait for a rollout; past it, it is stopped instead of handed out."""
STARTS_AT_ONCE = 2
"""Warm starts in flight at once: more only queue in the engine (each start is CPU-bound there)."""
CLAIM_WAIT_S = 120.0
"""How long a rollout waits for a warm start already under way for it before starting cold."""
CLOCK_MARGIN_S = 30.0
"""Added to a warm container's clock for the time between its start and its being ready."""

WarmWish = tuple[TaskDir, SandboxLimits, EngineHost | None]
"""A sandbox wanted soon: its task, its limits and its engine (None: `$DOCKER_HOST`'s)."""


@dataclass(frozen=True)
class WarmKey:
    engine: EngineHost | None
    environment: str
    """The task's environment digest: its image and workspace seed."""
    limits: str


@dataclass
class _Shelf:
    """The warm sandboxes of one key: started ones, the number still starting, the attempts expected to
    ask that have not asked yet, and whether starting failed."""

    ready: deque[tuple[float, DockerSandbox]] = field(default_factory=deque)
    starting: int = 0
    expected: int = 0
    failed: str | None = None


class WarmPool:
    """Started docker sandboxes, ready before rollouts ask; thread-safe. Close it to stop the unclaimed ones."""

    def __init__(
        self,
        *,
        max_idle_s: float = MAX_IDLE_S,
        starts_at_once: int = STARTS_AT_ONCE,
        before_start: Callable[[EngineHost | None], None] | None = None,
    ) -> None:
        """`before_start`: called with the engine before each warm start there (an engine pool's
        `prepare`: the base image reaches an engine before the first sandbox starts on it)."""
        self.max_idle_s = max_idle_s
        self._before_start = before_start
        self._shelves: dict[WarmKey, _Shelf] = {}
        self._changed = threading.Condition()
        self._starter = ThreadPoolExecutor(max_workers=starts_at_once, thread_name_prefix="warm-sandbox")
        self._closed = False
        self.started = 0
        """Warm sandboxes started so far."""
        self.claimed = 0
        """Warm sandboxes rollouts took."""

    def expect(self, wishes: Sequence[WarmWish]) -> None:
        """One more attempt will ask (`claim`) for each wish: have a started (or starting) sandbox for
        every attempt expected and not yet asked, starting those missing in the background."""
        wanted = Counter(_key(task, limits, engine) for task, limits, engine in wishes)
        examples = {_key(task, limits, engine): (task, limits, engine) for task, limits, engine in wishes}
        expired = []
        with self._changed:
            if self._closed:
                return
            for key, count in wanted.items():
                shelf = self._shelves.setdefault(key, _Shelf())
                shelf.expected += count
                expired += self._expire(shelf)
                if shelf.failed is not None:
                    continue
                for _ in range(shelf.expected - len(shelf.ready) - shelf.starting):
                    shelf.starting += 1
                    self._starter.submit(self._start_one, key, *examples[key])
        _stop_all(expired)

    def claim(self, task: TaskDir, limits: SandboxLimits, engine: EngineHost | None) -> DockerSandbox | None:
        """A started sandbox for `task` with `limits` on `engine`, taken out of the pool; waits for one
        already starting (up to `CLAIM_WAIT_S`); None when there is none."""
        key = _key(task, limits, engine)
        expired: list[DockerSandbox] = []
        try:
            with self._changed:
                shelf = self._shelves.get(key)
                if shelf is not None:
                    shelf.expected = max(0, shelf.expected - 1)
                deadline = time.monotonic() + CLAIM_WAIT_S
                while shelf is not None:
                    expired += self._expire(shelf)
                    if shelf.ready:
                        self.claimed += 1
                        return shelf.ready.popleft()[1]
                    if shelf.failed is not None or not shelf.starting or self._closed:
                        return None
                    if not self._changed.wait(deadline - time.monotonic()):
                        return None
                return None
        finally:
            _stop_all(expired)

    def settle(self, timeout: float | None = None) -> bool:
        """Wait until no warm start is under way; whether that happened within `timeout` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: not any(s.starting for s in self._shelves.values()), timeout)

    def engines_with_ready(self, task: TaskDir, limits: SandboxLimits) -> list[EngineHost | None]:
        """The engines holding a started (or starting) sandbox for `task` with `limits`, most first."""
        environment, fingerprint = task.environment_digest, limits.model_dump_json()
        with self._changed:
            held = {key.engine: len(shelf.ready) + shelf.starting for key, shelf in self._shelves.items()
                    if key.environment == environment and key.limits == fingerprint}  # fmt: skip
        return sorted((engine for engine, count in held.items() if count), key=lambda e: -held[e])

    def discard(self, engine: EngineHost | None) -> None:
        """Forget the sandboxes on `engine`, which stopped answering, and start no more there; those
        waiting for one start cold (elsewhere). Its containers are left to the reaper of that engine."""
        with self._changed:
            for key, shelf in self._shelves.items():
                if key.engine == engine:
                    shelf.ready.clear()
                    shelf.failed = shelf.failed or f"engine {engine.url if engine else 'local'} stopped answering"
            self._changed.notify_all()

    def close(self) -> None:
        """Stop every unclaimed sandbox (and those still starting, once started)."""
        with self._changed:
            self._closed = True
            leftovers = [sandbox for shelf in self._shelves.values() for _, sandbox in shelf.ready]
            for shelf in self._shelves.values():
                shelf.ready.clear()
            self._changed.notify_all()
        self._starter.shutdown(wait=True, cancel_futures=True)
        _stop_all(leftovers)

    def __enter__(self) -> WarmPool:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _start_one(self, key: WarmKey, task: TaskDir, limits: SandboxLimits, engine: EngineHost | None) -> None:
        from skill2env.sandbox.docker_backend import DockerSandbox

        sandbox = DockerSandbox(limits, engine=engine, reap=False, idle_allowance_s=self.max_idle_s + CLOCK_MARGIN_S)
        failure: str | None = None
        try:
            if self._before_start is not None:
                self._before_start(engine)
            sandbox.start(task)
        except Exception as exc:  # the rollouts that wanted it start cold and meet it themselves
            failure = f"{type(exc).__name__}: {exc}"
            logger.warning("starting a warm sandbox for %s failed; its rollouts start cold: %s", task.name, failure)
        with self._changed:
            shelf = self._shelves[key]
            shelf.starting -= 1
            keep = failure is None and not self._closed and shelf.failed is None
            if keep:
                shelf.ready.append((time.monotonic(), sandbox))
                self.started += 1
            shelf.failed = shelf.failed or failure
            self._changed.notify_all()
        if failure is None and not keep:
            _stop_all([sandbox])

    def _expire(self, shelf: _Shelf) -> list[DockerSandbox]:
        """Take out the sandboxes that waited past `max_idle_s` (the caller stops them, outside the lock)."""
        now, expired = time.monotonic(), []
        while shelf.ready and now - shelf.ready[0][0] > self.max_idle_s:
            expired.append(shelf.ready.popleft()[1])
            shelf.expected = max(0, shelf.expected - 1)  # an attempt that did not come so long comes no more
        return expired


def _key(task: TaskDir, limits: SandboxLimits, engine: EngineHost | None) -> WarmKey:
    return WarmKey(engine, task.environment_digest, limits.model_dump_json())


def _stop_all(sandboxes: Sequence[DockerSandbox]) -> None:
    for sandbox in sandboxes:
        try:
            sandbox.stop()
        except Exception as exc:  # the reaper removes what is left
            logger.warning("stopping warm sandbox %s failed: %s", sandbox.rollout_id, exc)

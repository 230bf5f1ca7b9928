"""The warm pool's bookkeeping, with a stand-in for docker sandboxes (the docker tests run real ones)."""

from __future__ import annotations

import threading
import time
from typing import ClassVar

import pytest
from harbor_tasks import CSV_AGGREGATION, fixture_task

from skill2env.sandbox import docker_backend
from skill2env.sandbox.base import SandboxLimits
from skill2env.sandbox.hosts import EngineHost
from skill2env.sandbox.task import TaskDir
from skill2env.sandbox.warm_pool import CLOCK_MARGIN_S, WarmPool

LIMITS = SandboxLimits(storage_mb=64)


class FakeDockerSandbox:
    """Records what the pool does with it; `fail` makes every start raise."""

    made: ClassVar[list[FakeDockerSandbox]] = []
    fail = False
    gate = threading.Event()

    def __init__(self, limits: SandboxLimits, *, engine: EngineHost | None, reap: bool, idle_allowance_s: float):
        self.limits, self.engine, self.idle_allowance_s = limits, engine, idle_allowance_s
        self.rollout_id = f"warm-{len(self.made)}"
        self.started_for: TaskDir | None = None
        self.stopped = False
        self.made.append(self)

    def start(self, task: TaskDir) -> None:
        self.gate.wait(10)
        if self.fail:
            raise RuntimeError("the engine refused")
        self.started_for = task

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture(autouse=True)
def fake_sandboxes(monkeypatch: pytest.MonkeyPatch) -> None:
    FakeDockerSandbox.made, FakeDockerSandbox.fail = [], False
    FakeDockerSandbox.gate.set()
    monkeypatch.setattr(docker_backend, "DockerSandbox", FakeDockerSandbox)


@pytest.fixture
def task() -> TaskDir:
    return fixture_task(CSV_AGGREGATION)


def test_expect_starts_one_per_wish_and_claims_take_them(task: TaskDir) -> None:
    with WarmPool(max_idle_s=60) as pool:
        pool.expect([(task, LIMITS, None)] * 3)
        assert pool.settle(10)

        taken = [pool.claim(task, LIMITS, None) for _ in range(4)]

    assert [s is not None for s in taken] == [True, True, True, False]
    assert all(s.started_for is task and s.idle_allowance_s == 60 + CLOCK_MARGIN_S for s in taken if s)
    assert (pool.started, pool.claimed) == (3, 3)
    assert not any(s.stopped for s in taken if s)  # a claimed sandbox is the rollout's to stop


def test_each_expected_attempt_gets_one_and_an_asking_attempt_is_no_longer_expected(task: TaskDir) -> None:
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, None)] * 2)
        pool.settle(10)
        assert len(FakeDockerSandbox.made) == 2
        pool.claim(task, LIMITS, None)
        pool.expect([(task, LIMITS, None)])  # one expected still waits on the shelf; one more is new
        pool.settle(10)
        assert len(FakeDockerSandbox.made) == 3
        assert pool.claim(task, LIMITS, None) and pool.claim(task, LIMITS, None)
        pool.expect([(task, LIMITS, None)])
        pool.settle(10)
        assert len(FakeDockerSandbox.made) == 4


def test_a_claim_matches_engine_and_limits(task: TaskDir) -> None:
    other = EngineHost("tcp://127.0.0.1:2376")
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, other)])
        pool.settle(10)

        assert pool.claim(task, LIMITS, None) is None
        assert pool.claim(task, LIMITS.model_copy(update={"memory_mb": 512}), other) is None
        assert pool.engines_with_ready(task, LIMITS) == [other]
        claimed = pool.claim(task, LIMITS, other)

    assert claimed is not None and claimed.engine == other


def test_a_claim_waits_for_a_start_under_way(task: TaskDir) -> None:
    FakeDockerSandbox.gate.clear()
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, None)])
        threading.Timer(0.3, FakeDockerSandbox.gate.set).start()
        started = time.monotonic()

        claimed = pool.claim(task, LIMITS, None)

    assert claimed is not None and time.monotonic() - started >= 0.25


def test_a_sandbox_idle_past_max_idle_is_stopped_not_handed_out(task: TaskDir) -> None:
    with WarmPool(max_idle_s=0.2) as pool:
        pool.expect([(task, LIMITS, None)])
        pool.settle(10)
        time.sleep(0.4)

        assert pool.claim(task, LIMITS, None) is None

    assert FakeDockerSandbox.made[0].stopped


def test_a_failed_warm_start_stops_warming_that_key_and_claims_get_none(task: TaskDir) -> None:
    FakeDockerSandbox.fail = True
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, None)] * 2)
        pool.settle(10)
        made = len(FakeDockerSandbox.made)
        pool.expect([(task, LIMITS, None)] * 2)
        pool.settle(10)

        assert pool.claim(task, LIMITS, None) is None
    assert len(FakeDockerSandbox.made) == made  # no retries for a key whose start failed
    assert pool.started == 0


def test_close_stops_every_unclaimed_sandbox(task: TaskDir) -> None:
    pool = WarmPool()
    pool.expect([(task, LIMITS, None)] * 3)
    pool.settle(10)
    kept = pool.claim(task, LIMITS, None)

    pool.close()
    pool.expect([(task, LIMITS, None)])  # a closed pool starts nothing

    assert [s.stopped for s in FakeDockerSandbox.made if s is not kept] == [True, True]
    assert kept is not None and not kept.stopped
    assert len(FakeDockerSandbox.made) == 3


def test_the_engine_is_prepared_before_each_warm_start_there_and_a_failure_stops_warming_it(task: TaskDir) -> None:
    ready, lost = EngineHost("tcp://127.0.0.1:2376"), EngineHost("tcp://127.0.0.1:2377")
    prepared: list[EngineHost | None] = []

    def prepare(engine: EngineHost | None) -> None:
        prepared.append(engine)
        if engine == lost:
            raise RuntimeError("could not receive the base image")

    with WarmPool(before_start=prepare) as pool:
        pool.expect([(task, LIMITS, ready), (task, LIMITS, lost)])
        pool.settle(10)

        assert sorted(str(e) for e in prepared) == sorted(str(e) for e in (ready, lost))
        assert pool.claim(task, LIMITS, ready) is not None
        assert pool.claim(task, LIMITS, lost) is None
    assert [s.engine for s in FakeDockerSandbox.made if s.started_for is not None] == [ready]


def test_a_discarded_engine_hands_out_nothing_more_and_starts_nothing_more(task: TaskDir) -> None:
    lost, other = EngineHost("tcp://127.0.0.1:2376"), EngineHost("tcp://127.0.0.1:2377")
    with WarmPool() as pool:
        pool.expect([(task, LIMITS, lost), (task, LIMITS, lost), (task, LIMITS, other)])
        pool.settle(10)

        pool.discard(lost)
        pool.expect([(task, LIMITS, lost)])
        pool.settle(10)

        assert pool.claim(task, LIMITS, lost) is None
        assert pool.engines_with_ready(task, LIMITS) == [other]
        assert pool.claim(task, LIMITS, other) is not None
    assert len(FakeDockerSandbox.made) == 3  # nothing started on the discarded engine after it
    # Its containers are not stopped through an engine that no longer answers: its reaper removes them.
    assert [s.stopped for s in FakeDockerSandbox.made if s.engine == lost] == [False, False]

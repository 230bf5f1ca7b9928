"""The engine pool's bookkeeping, on stand-in clients: where a lease goes, waiting for a slot, draining."""

from __future__ import annotations

import threading
import time

import pytest

from skill2env.sandbox.engine_pool import EnginePool
from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.hosts import EngineHost


class Engine:
    """Answers a ping until it is lost."""

    def __init__(self) -> None:
        self.lost = False
        self.closed = False

    def ping(self) -> bool:
        if self.lost:
            raise OSError("connection refused")
        return True

    def close(self) -> None:
        self.closed = True


A, B = EngineHost("tcp://a:2376", 2), EngineHost("tcp://b:2376", 1)


def pool_of(*hosts: EngineHost) -> tuple[EnginePool, dict[str, Engine]]:
    engines = {host.url: Engine() for host in hosts}
    # No base image source: the transfer is the integration test's, on real engines.
    pool = EnginePool(hosts, client_factory=lambda host: engines[host.url], base_source=None)  # type: ignore[arg-type,return-value]
    return pool, engines


def test_leases_go_to_the_engine_with_the_most_free_slots_and_come_back() -> None:
    pool, _ = pool_of(A, B)

    leases = [pool.lease() for _ in range(3)]

    assert [lease.host.url for lease in leases] == ["tcp://a:2376", "tcp://a:2376", "tcp://b:2376"]
    with pytest.raises(SandboxUnavailable, match="no free slot"):
        pool.lease(timeout=0.05)
    leases[2].release()
    leases[2].release()  # twice is once
    assert pool.lease(timeout=0.05).host == B


def test_a_lease_waits_for_a_slot_to_free() -> None:
    pool, _ = pool_of(B)
    held = pool.lease()
    threading.Timer(0.2, held.release).start()

    started = time.monotonic()
    assert pool.lease(timeout=5).host == B
    assert time.monotonic() - started >= 0.15


def test_an_engine_that_stops_answering_is_drained_and_gets_no_more_rollouts() -> None:
    pool, engines = pool_of(A, B)
    on_a = pool.lease()
    assert pool.check(on_a)  # answers: a lost sandbox, not a lost engine

    engines["tcp://a:2376"].lost = True
    assert not pool.check(on_a)

    assert set(pool.drained()) == {"tcp://a:2376"} and pool.slots == 1
    assert pool.lease(timeout=0.05).host == B
    pool.drain(B, "gone too")
    with pytest.raises(SandboxUnavailable, match="every Docker engine of the pool is drained"):
        pool.lease(timeout=0.05)
    pool.close()
    assert all(engine.closed for engine in engines.values())


def test_a_lease_prefers_an_engine_holding_a_warm_sandbox_while_it_has_a_free_slot() -> None:
    pool, _ = pool_of(A, B)

    first, second = pool.lease(prefer=[B]), pool.lease(prefer=[B, A])

    assert (first.host, second.host) == (B, A)  # B's one slot is taken: the next preference
    assert pool.lease(prefer=[B]).host == A  # none preferred is free: the most free slots


def test_live_hosts_interleave_the_engines_by_slots_and_leave_out_the_drained() -> None:
    pool, _ = pool_of(A, B)
    assert [host.url for host in pool.live_hosts()] == ["tcp://a:2376", "tcp://b:2376", "tcp://a:2376"]

    pool.drain(A, "gone")

    assert pool.live_hosts() == [B]

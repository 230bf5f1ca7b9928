"""Map a pure function over chunks of work in worker processes, in order, with bounded memory."""

from __future__ import annotations

import atexit
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

IN_FLIGHT_PER_WORKER = 4
"""Chunks queued per worker: enough to keep workers busy, few enough to bound memory."""


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


def map_chunks(
    function: Callable[[Item], Result],
    chunks: Iterable[Item],
    *,
    workers: int,
    on_result: Callable[[Result], None] | None = None,
) -> Iterator[Result]:
    """`function(chunk)` for every chunk, in order; in-process when `workers` <= 1.

    `function` must be importable by name (a module-level function): workers are spawned, not
    forked, because the caller may be a threaded process (Dagster) where forking can deadlock.
    """
    if workers <= 1:
        for chunk in chunks:
            result = function(chunk)
            if on_result:
                on_result(result)
            yield result
        return
    pool = _pool(workers)
    in_flight: deque[Future[Result]] = deque()
    try:
        for chunk in chunks:
            in_flight.append(pool.submit(function, chunk))
            if len(in_flight) >= workers * IN_FLIGHT_PER_WORKER:
                yield _take(in_flight, on_result)
        while in_flight:
            yield _take(in_flight, on_result)
    except BaseException:
        for future in in_flight:
            future.cancel()
        _discard(workers)  # a worker may be mid-chunk or dead: the next map starts a fresh pool
        raise


_pools: dict[int, ProcessPoolExecutor] = {}
"""Worker pools by size, kept for the life of the process: steps that run one after another in one
process (the CLI's in-process runs: catalog, then curation) pay for spawning workers once."""


def _pool(workers: int) -> ProcessPoolExecutor:
    pool = _pools.get(workers)
    if pool is None:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        _pools[workers] = pool
    return pool


def _discard(workers: int) -> None:
    pool = _pools.pop(workers, None)
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


@atexit.register
def shutdown_pools() -> None:
    """Stop every kept worker pool (also at interpreter exit)."""
    for workers in list(_pools):
        pool = _pools.pop(workers)
        pool.shutdown(wait=True, cancel_futures=True)


def _take(in_flight: deque[Future[Result]], on_result: Callable[[Result], None] | None) -> Result:
    result = in_flight.popleft().result()
    if on_result:
        on_result(result)
    return result

"""Progress of long steps in the run log, at most every few seconds."""

import time
from collections.abc import Callable, Iterator

import dagster as dg

PROGRESS_EVERY_SECONDS = 5.0


def progress_logger(context: dg.AssetExecutionContext, what: str, total: int | None = None) -> Callable[[int], None]:
    """A callback that logs `"{what}: {done} of {total}"`, throttled."""
    last = time.monotonic()

    def report(done: int) -> None:
        nonlocal last
        if time.monotonic() - last >= PROGRESS_EVERY_SECONDS:
            last = time.monotonic()
            context.log.info(f"{what}: {done}" + (f" of {total}" if total is not None else ""))

    return report


def start_logger(context: dg.AssetExecutionContext, what: str) -> Callable[[int, int, str], None]:
    """A callback that logs `"{what} {name} ({i} of {n})"` as an item starts, when nothing was
    logged by it for a few seconds: every item of a slow step (a model authoring), few of a fast one."""
    last = time.monotonic()

    def report(index: int, total: int, name: str) -> None:
        nonlocal last
        if time.monotonic() - last >= PROGRESS_EVERY_SECONDS:
            context.log.info(f"{what} {name} ({index} of {total})")
        last = time.monotonic()

    return report


PARTITION_PREFIX = "partition "
"""Lines that mark a partition's start and end (the CLI prints them as stage lines)."""


def each_partition(context: dg.AssetExecutionContext) -> Iterator[str]:
    """The run's partition keys, logging `partition <key> started (i of n)` before each and
    `partition <key> finished in s` after the caller is done with it."""
    keys = list(context.partition_keys)
    for index, key in enumerate(keys, 1):
        started = time.monotonic()
        context.log.info(f"{PARTITION_PREFIX}{key} started ({index} of {len(keys)})")
        yield key
        context.log.info(f"{PARTITION_PREFIX}{key} finished in {time.monotonic() - started:.1f} s")

"""Progress of long steps in the run log, at most every few seconds."""

import time
from collections.abc import Callable

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

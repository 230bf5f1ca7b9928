"""Quicker thread switches while rollouts run in this process.

Each tool call of a rollout passes between threads several times: from the event loop to a pool
thread, to the command client's reader thread when the reply comes, and back to the loop. Every
pass waits for the GIL, and a thread that holds it while computing (a model reply being parsed, a
trajectory being serialised) keeps it for up to the switch interval, 5 ms by default. With 16
rollouts at once on 2 cores those waits were most of a docker tool call's time (measured: 15–24 ms
per call at 5 ms against ~7 ms inside the sandbox). A 1 ms interval costs CPU-bound threads a few
more switches; the rollouts' threads mostly wait.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

ROLLOUT_SWITCH_INTERVAL_S = 0.001

_lock = threading.Lock()
_holders = 0
_saved = 0.0


@contextmanager
def quick_thread_switches(interval_s: float = ROLLOUT_SWITCH_INTERVAL_S) -> Iterator[None]:
    """The process's switch interval at most `interval_s` while any holder is inside; the interval
    it had before the first holder came back once the last one leaves."""
    global _holders, _saved
    with _lock:
        if _holders == 0:
            _saved = sys.getswitchinterval()
            sys.setswitchinterval(min(interval_s, _saved))
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                sys.setswitchinterval(_saved)

"""The rollout runner's quicker thread switches: on while any run is inside, the old interval after."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest

from skill2env.agent.switching import ROLLOUT_SWITCH_INTERVAL_S, quick_thread_switches


@pytest.fixture(autouse=True)
def default_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)
    yield
    sys.setswitchinterval(before)


def test_inside_the_interval_is_short_and_afterwards_what_it_was() -> None:
    with quick_thread_switches():
        assert sys.getswitchinterval() == pytest.approx(ROLLOUT_SWITCH_INTERVAL_S)
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_overlapping_runs_in_threads_restore_it_only_when_the_last_one_leaves() -> None:
    first_inside, second_inside, first_may_leave = threading.Event(), threading.Event(), threading.Event()
    seen: list[float] = []

    def first() -> None:
        with quick_thread_switches():
            first_inside.set()
            first_may_leave.wait(10)

    def second() -> None:
        first_inside.wait(10)
        with quick_thread_switches():
            second_inside.set()
        seen.append(sys.getswitchinterval())  # the first is still inside

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    second_inside.wait(10)
    threads[1].join(10)
    first_may_leave.set()
    threads[0].join(10)

    assert seen == [pytest.approx(ROLLOUT_SWITCH_INTERVAL_S)]
    assert sys.getswitchinterval() == pytest.approx(0.005)


def test_an_interval_already_shorter_is_kept() -> None:
    sys.setswitchinterval(0.0002)
    with quick_thread_switches():
        assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)
    assert sys.getswitchinterval() == pytest.approx(0.0002, abs=2e-6)


def test_an_exception_inside_still_restores_it() -> None:
    with pytest.raises(RuntimeError), quick_thread_switches():
        raise RuntimeError("the run failed")
    assert sys.getswitchinterval() == pytest.approx(0.005)

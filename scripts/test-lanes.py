"""The whole test suite as five pytest processes, at most three at a time (`make pytest` calls this).

Why lanes: on a small machine the integration tests mostly wait (image builds, container starts,
subprocess runs: about a third of two cores busy), while the unit tests are pure CPU. Run one after
the other, the suite takes twice as long as it needs to. The lanes split it so that:

* `docker`: every test marked `docker`, one at a time. They share one engine, and some assert on its
  state as a whole (no sandbox container left behind, a second engine beside it), so no other lane
  starts containers of ours.
* `pipelines`: the other asset and integration tests (bwrap, the CLI, the UI).
* `units`: the unit and SQL tests.
* `model`: the small real model's tests, once `units` has ended: its decoding slows several times
  beside CPU-bound work, and its run is held to the time a user is promised.
* `alone`: tests marked `alone`, once every other lane has ended: the cluster test runs the main
  job twice beside its own services and compares the outcomes, which a machine loaded several times
  over has been seen to change.

Three lanes at once, no more: with more (xdist workers, more Harbor trials at once) the machine was
loaded six to nine times over, and tests that hold a real program to a time limit (the UI's pages,
the local model's run) failed for that alone.

Each lane has its own temporary root (`--basetemp`), so one lane's clean-up never touches another's
folders. Every line a lane prints is echoed as it comes, prefixed with the lane's name; at the end a
summary gives each lane's result. The exit status is the first failing lane's, or 0 when every lane
passed; a lane that collects no test (pytest's exit 5) fails the run.

    .venv/bin/python scripts/test-lanes.py            # what `make pytest` runs
    .venv/bin/python scripts/test-lanes.py -x -k cli  # extra arguments go to every lane
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
OTHERS = "not docker and not local_model and not alone"


@dataclass(frozen=True)
class LaneSpec:
    arguments: list[str]
    after: tuple[str, ...] = ()
    """The lanes that must have ended before this one starts."""


LANES: dict[str, LaneSpec] = {
    "docker": LaneSpec(["-m", "docker and not alone", "tests"]),
    "pipelines": LaneSpec(["-m", OTHERS, "tests/assets", "tests/integration"]),
    "units": LaneSpec(["-m", OTHERS, "tests/unit", "tests/sql"]),
    "model": LaneSpec(["-m", "local_model and not docker and not alone", "tests"], after=("units",)),
    "alone": LaneSpec(["-m", "alone", "tests"], after=("docker", "pipelines", "units", "model")),
}
NO_TESTS = 5
"""pytest's exit status when it collected nothing: a lane that tests nothing is a broken lane."""
FAILURE_PREFIXES = ("FAILED ", "ERROR ")
"""How pytest's short summary (`-ra`) starts the line of each failed test; the lanes' summary repeats them."""


@dataclass
class Lane:
    name: str
    spec: LaneSpec
    process: subprocess.Popen[str] | None = None
    started: float = 0.0
    seconds: float = 0.0
    last_line: str = ""
    failures: list[str] = field(default_factory=list)
    ended: threading.Event = field(default_factory=threading.Event)
    cancelled: bool = False


class Lanes:
    def __init__(self, extra: list[str]) -> None:
        self.extra = extra
        self.temp_root = Path(tempfile.mkdtemp(prefix="skill2env-tests-"))
        self.lanes = {name: Lane(name, spec) for name, spec in LANES.items()}
        self.width = max(map(len, LANES))
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def run(self, lane: Lane) -> None:
        try:
            for before in lane.spec.after:
                self.lanes[before].ended.wait()
            if self.stopping.is_set():
                lane.cancelled = True
                return
            self.say(lane, f"started: pytest {' '.join(lane.spec.arguments)}")
            lane.started = time.monotonic()
            command = [sys.executable, "-m", "pytest", *lane.spec.arguments, f"--basetemp={self.temp_root / lane.name}",
                       "-p", "no:cacheprovider", *self.extra]  # fmt: skip
            with self.lock:  # `stop` sees every process that has started
                lane.process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                text=True, bufsize=1, start_new_session=True)  # fmt: skip
            assert lane.process.stdout is not None
            for line in lane.process.stdout:
                text = line.rstrip("\n")
                if text.strip():
                    lane.last_line = text
                if text.startswith(FAILURE_PREFIXES):
                    lane.failures.append(text)
                self.say(lane, text)
            lane.process.wait()
            lane.seconds = time.monotonic() - lane.started
        finally:
            lane.ended.set()

    def say(self, lane: Lane, text: str) -> None:
        with self.lock:
            print(f"[{lane.name:<{self.width}}] {text}", flush=True)

    def stop(self, _signum: int, _frame: FrameType | None) -> None:
        self.stopping.set()
        with self.lock:
            for lane in self.lanes.values():  # pytest prints what it has on SIGINT, then stops
                if lane.process is not None and lane.process.poll() is None:
                    os.killpg(lane.process.pid, signal.SIGINT)

    def verdict(self, lane: Lane) -> str:
        if lane.cancelled or lane.process is None:
            return "not run (stopped)"
        code = lane.process.returncode
        outcome = "passed" if code == 0 else ("collected no tests" if code == NO_TESTS else f"FAILED (exit {code})")
        return f"{outcome} in {lane.seconds:.0f} s: {lane.last_line.strip('= ')}"

    def status(self) -> int:
        codes = [1 if lane.process is None else lane.process.returncode for lane in self.lanes.values()]
        return next((code for code in codes if code != 0), 0)


def main(extra: list[str]) -> int:
    lanes = Lanes(extra)
    signal.signal(signal.SIGTERM, lanes.stop)
    signal.signal(signal.SIGINT, lanes.stop)
    threads = [threading.Thread(target=lanes.run, args=(lane,), daemon=True) for lane in lanes.lanes.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        while thread.is_alive():  # a bounded join keeps the main thread free to take signals
            thread.join(timeout=1)
    print("\nlanes:")
    for lane in lanes.lanes.values():
        print(f"  {lane.name:<{lanes.width}}  {lanes.verdict(lane)}")
        for failure in lane.failures:
            print(f"  {'':<{lanes.width}}    {failure}")
    status = lanes.status()
    if status == 0:
        shutil.rmtree(lanes.temp_root, ignore_errors=True)
    else:
        print(f"the lanes' temporary folders are kept in {lanes.temp_root}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

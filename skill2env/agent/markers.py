"""Start and end markers of rollout attempts (`rollout_attempts`), and closing the ones a killed run left open.

As an attempt starts (side by side with its sandbox, before any tool call can run), a `started`
row names it and the process running it; when it ends, a `finished` row gives its status. If
the process is killed (`kill -9`, a lost machine) the `started` row stays alone. The next run of
the domain finds such attempts whose process is gone, turns each into an `infra_error`
trajectory — with the steps its partial trajectory file kept — to be written with its own
rollouts, then closes them with a `finished` row, so an interrupted attempt is recorded, never
lost and never scored.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from concurrent.futures import Future
from datetime import datetime

import polars as pl

from skill2env.agent.files import TrajectoryFiles
from skill2env.agent.tables import attempt_event_frame
from skill2env.agent.trajectory import Trajectory, utc_now
from skill2env.lake.ports import AppendLog
from skill2env.sandbox.base import owner_is_alive, owner_token

ATTEMPTS_TABLE = "rollout_attempts"


class AttemptLog:
    """Appends attempt markers to `rollout_attempts` (any `AppendLog`: the lake); each call returns once its
    marker is committed.

    Concurrent calls share transactions (group commit): the first caller writes every marker
    waiting, then the ones that arrived meanwhile, until none is left, so sixteen attempts
    starting at once cost two lake transactions, not sixteen in a row. Thread-safe.
    """

    def __init__(self, log: AppendLog) -> None:
        self.log = log
        self.owner = owner_token()
        self._pending: list[tuple[pl.DataFrame, Future[None]]] = []
        self._lock = threading.Lock()
        self._writing = False

    def started(self, trajectory: Trajectory) -> None:
        self._record(attempt_event_frame("started", trajectory, self.owner))

    def finished(self, trajectory: Trajectory) -> None:
        self._record(attempt_event_frame("finished", trajectory, self.owner))

    def _record(self, frame: pl.DataFrame) -> None:
        done: Future[None] = Future()
        with self._lock:
            self._pending.append((frame, done))
            leader = not self._writing
            self._writing = True
        if leader:
            self._write_pending()
        done.result()

    def _write_pending(self) -> None:
        while True:
            with self._lock:
                batch, self._pending = self._pending, []
                if not batch:
                    self._writing = False
                    return
            try:
                self.log.append(ATTEMPTS_TABLE, pl.concat([frame for frame, _ in batch]))
            except BaseException as exc:
                for _, done in batch:
                    done.set_exception(exc)
            else:
                for _, done in batch:
                    done.set_result(None)


def interrupted_attempts(opened: pl.DataFrame, files: TrajectoryFiles | None) -> list[Trajectory]:
    """The attempts of `opened` (a domain's attempts that started and never finished: the rows of
    `queries/open_rollout_attempts_of_domain`) whose process is gone, as `infra_error` trajectories
    (with the steps their partial file kept). Attempts of live processes (another run now) are left
    alone."""
    recovered = []
    for row in opened.iter_rows(named=True):
        if owner_is_alive(row["owner"]):
            continue
        partial = files.read_partial(row["rollout_id"]) if files is not None else None
        trajectory = partial or _from_marker(row)
        trajectory.status = "infra_error"
        trajectory.error = (
            f"interrupted: the process running the attempt ({row['owner']}) died before it finished; "
            f"{len(trajectory.steps)} steps were kept"
        )
        trajectory.finished_at = trajectory.finished_at or utc_now()
        if files is not None:
            trajectory.trajectory_path = files.relative_atif(trajectory.rollout_id)
            files.write_atif(trajectory)
        recovered.append(trajectory)
    return recovered


def close_attempts(log: AppendLog, trajectories: Sequence[Trajectory]) -> None:
    """Record `finished` for recovered attempts (after their rows reached the rollouts table)."""
    markers = AttemptLog(log)
    for trajectory in trajectories:
        markers.finished(trajectory)


def _from_marker(row: dict[str, object]) -> Trajectory:
    started_at = row["recorded_at"]
    return Trajectory(
        rollout_id=str(row["rollout_id"]),
        group_id=str(row["group_id"]),
        run_id=str(row["run_id"]),
        task_id=str(row["task_id"]),
        task_name=str(row["task_name"]),
        domain=str(row["domain"]),
        iteration=int(str(row["iteration"])),
        task_digest=_optional(row["task_digest"]),
        policy=str(row["policy"]),
        model=_optional(row["model"]),
        attempt=int(str(row["attempt"])),
        backend=str(row["backend"]),
        started_at=started_at if isinstance(started_at, datetime) else utc_now(),
    )


def _optional(value: object) -> str | None:
    return None if value is None else str(value)

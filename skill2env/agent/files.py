"""Trajectory files under the skill2env home: `trajectories/<rollout_id>/`.

* `trajectory.json` — the ATIF export, written when the attempt ends;
* `partial.json` — the canonical `Trajectory` so far, rewritten after every step while the
  attempt runs (and removed at its end), so an attempt whose process was killed keeps the
  steps it had made.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from skill2env.agent.trajectory import Trajectory, atif_json, write_atomically

TRAJECTORIES_DIR = "trajectories"
ATIF_FILE = "trajectory.json"
PARTIAL_FILE = "partial.json"


class TrajectoryFiles:
    def __init__(self, home_root: Path) -> None:
        self.home_root = home_root

    def directory(self, rollout_id: str) -> Path:
        return self.home_root / TRAJECTORIES_DIR / rollout_id

    def relative_atif(self, rollout_id: str) -> str:
        """The ATIF file's path relative to the home (what the lake records)."""
        return f"{TRAJECTORIES_DIR}/{rollout_id}/{ATIF_FILE}"

    def atif_path(self, rollout_id: str) -> Path:
        return self.directory(rollout_id) / ATIF_FILE

    def write_partial(self, trajectory: Trajectory) -> None:
        # After every step: pydantic's own serializer, no pretty-printing (the Python JSON encoder
        # with an indent costs milliseconds per write once a trajectory has a few steps).
        write_atomically(self.directory(trajectory.rollout_id) / PARTIAL_FILE, trajectory.model_dump_json().encode())

    def read_partial(self, rollout_id: str) -> Trajectory | None:
        """The trajectory as far as it got, or None when there is no readable partial file."""
        path = self.directory(rollout_id) / PARTIAL_FILE
        try:
            return Trajectory.model_validate_json(path.read_bytes())
        except (OSError, ValidationError):
            return None

    def write_atif(self, trajectory: Trajectory) -> Path:
        """Write `trajectory.json` and drop the partial file; returns the ATIF file's path."""
        path = self.atif_path(trajectory.rollout_id)
        write_atomically(path, atif_json(trajectory))
        (path.parent / PARTIAL_FILE).unlink(missing_ok=True)
        return path

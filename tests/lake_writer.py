"""A separate writer process for the concurrency test: `python lake_writer.py LAKE NAME WRITES`."""

from __future__ import annotations

import sys
from pathlib import Path

from rows import skill_row, skills_frame

from skill2env.lake.lake import Lake, TableWrite

ROWS_PER_WRITE = 50


def main(lake_path: str, name: str, writes: int) -> None:
    lake = Lake(Path(lake_path), lock_timeout=120)
    for i in range(writes):
        frame = skills_frame(*(skill_row(f"{name}/skill-{i}-{j}") for j in range(ROWS_PER_WRITE)))
        lake.write([TableWrite("skills", frame)], run_id=f"{name}-{i}", code_version="v1")
        lake.query("SELECT count(*) FROM skills")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

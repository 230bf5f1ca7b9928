"""A separate writer process for the concurrency test: `python lake_writer.py LAKE NAME WRITES` (LAKE as
`lake_backends.lake_argument` gives it)."""

from __future__ import annotations

import sys

from lake_backends import lake_from_argument
from rows import skill_row, skills_frame

from skill2env.lake.lake import TableWrite

ROWS_PER_WRITE = 50


def main(lake_argument: str, name: str, writes: int) -> None:
    lake = lake_from_argument(lake_argument, lock_timeout=120)
    for i in range(writes):
        frame = skills_frame(*(skill_row(f"{name}/skill-{i}-{j}") for j in range(ROWS_PER_WRITE)))
        lake.write([TableWrite("skills", frame)], run_id=f"{name}-{i}", code_version="v1")
        lake.query("SELECT count(*) FROM skills")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))

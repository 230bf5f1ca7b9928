"""A writer process for the partition concurrency test: `python lake_partition_writer.py LAKE DOMAIN WRITES ROWS
[MARKER]`, LAKE as `lake_backends.lake_argument` gives it. Each write is a new version of the `curated_skills`
partition DOMAIN with ROWS rows. With MARKER, the process stops in the middle of its one write, after more
than a row group of rows went in (so DuckDB has written some of them to the file, or DuckLake to a data
file, already), touches MARKER and waits there to be killed."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lake_backends import lake_from_argument
from rows import curated_frame, curated_row

import skill2env.lake.lake as lake_module
from skill2env.lake.lake import TableWrite

ROW_GROUP = 122_880
"""DuckDB's rows per row group: beyond them an open transaction writes to the file."""


def stalled(marker: Path) -> Any:
    incoming = lake_module._incoming_slices

    def slices(con: Any, frame: Any) -> Iterator[None]:
        inserted = 0
        for _ in incoming(con, frame):
            yield
            inserted += lake_module.INSERT_SLICE_ROWS
            if inserted > ROW_GROUP:
                marker.touch()
                time.sleep(3600)

    return slices


def main(lake_argument: str, domain: str, writes: int, rows: int, marker: str | None) -> None:
    if marker is not None:
        lake_module._incoming_slices = stalled(Path(marker))
    lake = lake_from_argument(lake_argument)
    for i in range(writes):
        frame = curated_frame(*(curated_row(f"{domain}/skill-{i}-{j}", domain=domain) for j in range(rows)))
        lake.write([TableWrite("curated_skills", frame, partition_key=domain)], run_id=f"{domain}-{i}",
                   code_version="v1")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)

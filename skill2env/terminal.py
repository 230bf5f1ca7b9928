"""The command line's console on standard error, as that was when the command started.

A job the command line runs in this process has Dagster capture file descriptors 1 and 2 into its
compute logs (the UI's step logs) and copy them back to the terminal through a `tail -F` that it
kills when the capture ends, losing whatever that tail had not copied yet (dagster-io/dagster#23336):
on a loaded machine, the closing line of a run's last stage. The console writes to a copy of
descriptor 2 taken before any capture, so every line it prints arrives; where something else has
been put in `sys.stderr` (a test's runner capturing the output), it writes there, as Rich does.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import IO

from rich.console import Console


def _stderr_at_start() -> IO[str] | None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        return os.fdopen(
            os.dup(sys.__stderr__.fileno()),  # type: ignore[union-attr]
            "w",
            buffering=1,
            encoding=sys.__stderr__.encoding,  # type: ignore[union-attr]
            errors="backslashreplace",
        )
    return None


_STDERR_AT_START = _stderr_at_start()


class StartingStderrConsole(Console):
    """A Rich console on standard error that Dagster's output capture does not reach."""

    def __init__(self) -> None:
        super().__init__(stderr=True)

    @property
    def file(self) -> IO[str]:
        current = getattr(sys.stderr, "rich_proxied_file", sys.stderr)  # Rich's own proxy while a status shows
        if self._file is None and current is sys.__stderr__ and _STDERR_AT_START is not None:
            return _STDERR_AT_START
        return super().file

    @file.setter
    def file(self, new_file: IO[str]) -> None:
        self._file = new_file

"""Content-addressed response cache: an identical request is answered from disk, spending no tokens.

The key is the sha256 of the full request body (model, messages, tools, response format,
sampling parameters, seed); see `skill2env.llm.wire.ChatRequest.key`. One file per entry under
`<home>/llm-cache/<key[:2]>/<key>`: a one-line JSON header (`{"status": 200}`, or a rejection
status) and the endpoint's response body, byte for byte.

Writes go to a temporary file in the same folder and are renamed into place, so a crash never
leaves a partial entry under a key; an entry that cannot be read back (a truncated file after a
power loss) is a miss, and the next answer replaces it.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class CacheMode(StrEnum):
    read_write = "read-write"
    """Serve hits, store new answers (the default)."""
    read_only = "read-only"
    """Serve hits, store nothing."""
    off = "off"
    """Neither read nor write."""
    replay_only = "replay-only"
    """Serve hits; a miss is an error (`ModelCacheMiss`) and the endpoint is never contacted."""

    @property
    def reads(self) -> bool:
        return self is not CacheMode.off

    @property
    def writes(self) -> bool:
        return self is CacheMode.read_write


@dataclass(frozen=True)
class CacheEntry:
    status: int
    """200 for a completion (body: the response); 400 / 413 / 422 for a rejected request (body: its message)."""
    body: bytes


class ResponseCache:
    """Cache entries under `root`, read and written according to `mode`."""

    def __init__(self, root: Path, mode: CacheMode = CacheMode.read_write) -> None:
        self.root = root
        self.mode = mode

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> CacheEntry | None:
        """The entry under `key`, or None (a miss, an unreadable entry, or a mode that does not read)."""
        if not self.mode.reads:
            return None
        try:
            data = self._path(key).read_bytes()
        except OSError:
            return None
        header, newline, body = data.partition(b"\n")
        try:
            status = int(json.loads(header)["status"])
        except (ValueError, KeyError, TypeError):
            return None
        if not newline or (status == 200 and not body):
            return None
        return CacheEntry(status, body)

    def put(self, key: str, entry: CacheEntry) -> None:
        """Store `entry` atomically (write a temporary file, rename it into place); no-op unless read-write."""
        if not self.mode.writes:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(json.dumps({"status": entry.status}).encode() + b"\n" + entry.body)
            Path(temporary).replace(path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

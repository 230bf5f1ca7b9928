"""A `.git` directory written with the standard library: loose objects, refs, packed tags and an index.

Loose objects are `zlib("<type> <size>\\0<content>")` under `objects/<2 hex>/<38 hex>`; the index (version
2, zeroed stat data, which git refreshes on its first `status`) makes the working tree read as clean.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

MODE_FILE = "100644"
MODE_EXEC = "100755"


@dataclass(frozen=True)
class Person:
    name: str
    email: str

    def stamp(self, when: int, zone: str) -> str:
        return f"{self.name} <{self.email}> {when} {zone}"


def object_id(kind: str, content: bytes) -> str:
    return hashlib.sha1(f"{kind} {len(content)}\0".encode() + content, usedforsecurity=False).hexdigest()


class ObjectStore:
    """Objects by id (kind, content), in the order they were first written."""

    def __init__(self) -> None:
        self.objects: dict[str, tuple[str, bytes]] = {}

    def put(self, kind: str, content: bytes) -> str:
        oid = object_id(kind, content)
        self.objects.setdefault(oid, (kind, content))
        return oid

    def tree(self, files: Mapping[str, bytes], executable: frozenset[str] = frozenset()) -> str:
        """The root tree of `files` (path → content), subtrees written first."""
        return self._tree("", files, executable)

    def _tree(self, prefix: str, files: Mapping[str, bytes], executable: frozenset[str]) -> str:
        entries: list[tuple[str, str, str]] = []
        folders: dict[str, dict[str, bytes]] = {}
        for path, data in files.items():
            head, _, rest = path.partition("/")
            if rest:
                folders.setdefault(head, {})[rest] = data
            else:
                mode = MODE_EXEC if prefix + path in executable else MODE_FILE
                entries.append((path, mode, self.put("blob", data)))
        for name, inner in folders.items():
            entries.append((name + "/", "40000", self._tree(prefix + name + "/", inner, executable)))
        # git sorts entries by name, a folder as if its name ended in '/'
        entries.sort(key=lambda e: e[0].encode())
        body = b"".join(
            f"{mode} {name.rstrip('/')}".encode() + b"\0" + bytes.fromhex(oid) for name, mode, oid in entries
        )
        return self.put("tree", body)

    def commit(
        self, tree: str, parents: list[str], author: str, committer: str, message: str
    ) -> str:  # fmt: skip
        lines = [f"tree {tree}", *(f"parent {p}" for p in parents), f"author {author}", f"committer {committer}"]
        return self.put("commit", ("\n".join(lines) + "\n\n" + message.rstrip("\n") + "\n").encode())

    def loose(self) -> dict[str, bytes]:
        """`objects/..` paths → compressed bytes."""
        return {
            f"objects/{oid[:2]}/{oid[2:]}": zlib.compress(f"{kind} {len(content)}\0".encode() + content, 6)
            for oid, (kind, content) in self.objects.items()
        }


def index_file(files: Mapping[str, bytes], executable: frozenset[str] = frozenset()) -> bytes:
    """A version-2 index of `files` with zeroed stat data."""
    body = b"DIRC" + struct.pack(">II", 2, len(files))
    for path in sorted(files, key=lambda p: p.encode()):
        data = files[path]
        mode = 0o100755 if path in executable else 0o100644
        name = path.encode()
        entry = struct.pack(">10I", 0, 0, 0, 0, 0, 0, mode, 0, 0, len(data))
        entry += bytes.fromhex(object_id("blob", data)) + struct.pack(">H", min(len(name), 0xFFF)) + name
        entry += b"\0" * (8 - (len(entry) % 8))
        body += entry
    return body + hashlib.sha1(body, usedforsecurity=False).digest()


def git_dir(
    store: ObjectStore,
    branch: str,
    head: str,
    tags: Mapping[str, str],
    worktree: Mapping[str, bytes],
    executable: frozenset[str] = frozenset(),
) -> dict[str, bytes]:
    """The files of a `.git` directory (paths relative to it)."""
    files = {
        "HEAD": f"ref: refs/heads/{branch}\n".encode(),
        "config": b"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n",
        "description": b"Unnamed repository; edit this file 'description' to name the repository.\n",
        f"refs/heads/{branch}": f"{head}\n".encode(),
        "packed-refs": (
            "# pack-refs with: peeled fully-peeled sorted \n"
            + "".join(f"{oid} refs/tags/{name}\n" for name, oid in sorted(tags.items()))
        ).encode(),
        "index": index_file(worktree, executable),
    }
    return {**files, **store.loose()}

"""What copying a folder out of a sandbox takes, on every backend.

An attempt whose final workspace cannot be stored ends as an infrastructure error, which is never
scored; so nothing an agent can leave in its workspace may make that copy fail, or a failing agent
could dodge its reward (a named pipe made `shutil.copytree` fail; a tree 1,400 folders deep made
both backends' copies exceed Python's recursion limit). The copy takes regular files, folders and
links (which the store never follows out of the tree: `tasks.harbor.iter_files`) down to
`MAX_DEPTH` levels and `MAX_PATH_CHARS` characters, and leaves out the rest: pipes, sockets,
devices, and anything deeper or longer, which no task's verifier reads.

It also writes at most the sandbox's storage limit of file content (in whole pages, as a tmpfs
stores it: the fresh sandbox that verifies the copy has the same limit and must hold it) and
`MAX_ENTRIES` entries (`CopyBudget`). A workspace's files can add up to far more than the space they take: sparse files
(`truncate -s 60M` allocates nothing) and hard links (every name copies the data again). Without
the bound, 40 sparse files in a 64 MiB workspace wrote 2.4 GB to the host in 3 s, and enough of
them would fill the host's disk (every rollout's store then fails: the agent's infra_error,
unscored). And a workspace's tmpfs holds millions of empty files, where copying and storing
100,000 already took a minute. What is past the budget is left out, in name order within each
folder.
"""

from __future__ import annotations

import logging
import os
import stat
import tarfile
from pathlib import Path

logger = logging.getLogger(__name__)

MAX_DEPTH = 64
"""Folder levels below the copied folder whose entries are copied."""
MAX_PATH_CHARS = 1024
"""The longest path, relative to the copied folder, that is copied (the host adds its own prefix)."""
MAX_ENTRIES = 100_000
"""Files, folders and links one copy takes: copying and storing 100,000 empty files took a minute."""
PAGE_BYTES = 4096
"""A tmpfs stores a file in whole pages: a 1-byte file takes 4 KiB of the storage limit."""
STREAM_FACTOR = 2
"""A tar stream whose files add up to this many times the budget is read no further (`CopyBudget.spent`)."""
TAR_KINDS = frozenset({tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE})
TAR_CLEARED_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH
"""The mode bits tar's safety filter clears (`tarfile.tar_filter`)."""


def within_bounds(relative: str) -> bool:
    """Whether an entry at `relative` (below the copied folder, `/`-separated) is shallow and short enough."""
    return relative.count("/") < MAX_DEPTH and len(relative) <= MAX_PATH_CHARS


def copied_kind(mode: int) -> bool:
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)


class CopyBudget:
    """The file content and the entries one copy out of a sandbox may write (see the module's docstring)."""

    def __init__(self, limit_bytes: int, max_entries: int = MAX_ENTRIES) -> None:
        self.limit_bytes = limit_bytes
        self.max_entries = max_entries
        self.left = limit_bytes
        self.entries_left = max_entries
        self.seen = 0
        """The pages of every regular file offered, taken or not."""
        self.offered = 0
        self.taken: dict[str, int] = {}
        """The size of each regular tar member taken: a hard link to it costs as much (every name is
        read again wherever the tree is read), and one to a member left out is left out too."""

    @classmethod
    def of_storage(cls, storage_mb: int) -> CopyBudget:
        return cls(storage_mb << 20)

    @property
    def spent(self) -> bool:
        """Whether the files offered so far add up to more than `STREAM_FACTOR` times the limit: a tar
        stream that carries them all costs time even where they are left out, so the copy stops."""
        return self.seen > STREAM_FACTOR * self.limit_bytes or self.offered > STREAM_FACTOR * self.max_entries

    def take(self, size: int = 0) -> bool:
        """Whether an entry (a file of `size` bytes; a folder or a link has none) is copied; charges it
        when it is, in whole pages: what the copy takes in a sandbox's tmpfs (the fresh sandbox that
        verifies it has the same storage limit), so a copy of it always fits there."""
        pages = -(-size // PAGE_BYTES) * PAGE_BYTES
        self.seen += pages
        self.offered += 1
        if pages > self.left or self.entries_left <= 0:
            return False
        self.left -= pages
        self.entries_left -= 1
        return True


def left_out_of_copy(top: str, folder: str, names: list[str], budget: CopyBudget | None = None) -> list[str]:
    """`shutil.copytree`'s `ignore` for copying `top`: the names in `folder` that the copy leaves out."""
    base = os.path.relpath(folder, top)
    skipped = []
    for name in sorted(names):
        relative = name if base == "." else f"{base}/{name}"
        try:
            info = (Path(folder) / name).lstat()
        except OSError:
            skipped.append(name)
            continue
        copied = copied_kind(info.st_mode) and within_bounds(relative)
        size = info.st_size if stat.S_ISREG(info.st_mode) else 0
        if not copied or (budget is not None and not budget.take(size)):
            skipped.append(name)
    if skipped:
        logger.info("copying %s out of a sandbox leaves out %d entries of %s: %s", top, len(skipped), base,
                    ", ".join(skipped[:5]))  # fmt: skip
    return skipped


def clear_mode_bits(root: Path) -> None:
    """Clear in a copied tree what tar's safety filter clears on extraction (setuid, setgid, sticky,
    group and other write), so a file copy gives the same modes as the tar path. Links keep theirs."""
    paths = [root]
    for folder, dirs, names in os.walk(root):
        paths += [Path(folder) / name for name in (*dirs, *names)]
    for path in paths:
        mode = path.lstat().st_mode
        if not stat.S_ISLNK(mode) and mode & TAR_CLEARED_BITS:
            path.chmod(stat.S_IMODE(mode) & ~TAR_CLEARED_BITS)


def tar_member_copied(member: tarfile.TarInfo, budget: CopyBudget | None = None) -> bool:
    """Whether a member of a tar of the copied folder (named `<folder name>/<relative path>`) is copied."""
    relative = member.name.partition("/")[2]
    if not (member.type in TAR_KINDS and within_bounds(relative)):
        return False
    if budget is None:
        return True
    if member.islnk():  # extracting a link to a member left out would read that member's data
        return member.linkname in budget.taken and budget.take(budget.taken[member.linkname])
    if not budget.take(member.size if member.isreg() else 0):
        return False
    if member.isreg():
        budget.taken[member.name] = member.size
    return True

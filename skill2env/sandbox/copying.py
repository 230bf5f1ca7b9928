"""What copying a folder out of a sandbox takes, on every backend.

An attempt whose final workspace cannot be stored ends as an infrastructure error, which is never
scored; so nothing an agent can leave in its workspace may make that copy fail, or a failing agent
could dodge its reward (a named pipe made `shutil.copytree` fail; a tree 1,400 folders deep made
both backends' copies exceed Python's recursion limit). The copy takes regular files, folders and
links (which the store never follows out of the tree: `tasks.harbor.iter_files`) down to
`MAX_DEPTH` levels and `MAX_PATH_CHARS` characters, and leaves out the rest: pipes, sockets,
devices, and anything deeper or longer, which no task's verifier reads.
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
TAR_KINDS = frozenset({tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE})
TAR_CLEARED_BITS = stat.S_ISUID | stat.S_ISGID | stat.S_ISVTX | stat.S_IWGRP | stat.S_IWOTH
"""The mode bits tar's safety filter clears (`tarfile.tar_filter`)."""


def within_bounds(relative: str) -> bool:
    """Whether an entry at `relative` (below the copied folder, `/`-separated) is shallow and short enough."""
    return relative.count("/") < MAX_DEPTH and len(relative) <= MAX_PATH_CHARS


def copied_kind(mode: int) -> bool:
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)


def left_out_of_copy(top: str, folder: str, names: list[str]) -> list[str]:
    """`shutil.copytree`'s `ignore` for copying `top`: the names in `folder` that the copy leaves out."""
    base = os.path.relpath(folder, top)
    skipped = []
    for name in names:
        relative = name if base == "." else f"{base}/{name}"
        try:
            mode = (Path(folder) / name).lstat().st_mode
        except OSError:
            skipped.append(name)
            continue
        if not (copied_kind(mode) and within_bounds(relative)):
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


def tar_member_copied(member: tarfile.TarInfo) -> bool:
    """Whether a member of a tar of the copied folder (named `<folder name>/<relative path>`) is copied."""
    relative = member.name.partition("/")[2]
    return member.type in TAR_KINDS and within_bounds(relative)

"""What a copy out of a sandbox takes: regular files, folders and links, shallow and short enough."""

from __future__ import annotations

import os
import stat
import tarfile
from pathlib import Path

import pytest

from skill2env.sandbox.copying import (
    MAX_DEPTH,
    MAX_PATH_CHARS,
    clear_mode_bits,
    left_out_of_copy,
    tar_member_copied,
    within_bounds,
)


def test_depth_and_length_bound_what_is_copied() -> None:
    assert within_bounds("output/result.txt")
    assert within_bounds("/".join(["d"] * MAX_DEPTH))
    assert not within_bounds("/".join(["d"] * (MAX_DEPTH + 1)))
    assert within_bounds("x" * MAX_PATH_CHARS) and not within_bounds("x" * (MAX_PATH_CHARS + 1))


def test_copytree_leaves_out_pipes_and_what_lies_too_deep(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to("file")
    os.mkfifo(tmp_path / "pipe")
    deep = tmp_path.joinpath(*["d"] * MAX_DEPTH)
    deep.mkdir(parents=True)
    (deep / "f").write_text("x")

    assert left_out_of_copy(str(tmp_path), str(tmp_path), ["file", "link", "pipe", "d", "gone"]) == ["pipe", "gone"]
    assert left_out_of_copy(str(tmp_path), str(deep.parent), ["d"]) == []
    assert left_out_of_copy(str(tmp_path), str(deep), ["f"]) == ["f"]


@pytest.mark.parametrize(
    ("name", "kind", "copied"),
    [
        ("workspace/out.txt", tarfile.REGTYPE, True),
        ("workspace/out", tarfile.DIRTYPE, True),
        ("workspace/link", tarfile.SYMTYPE, True),
        ("workspace/hard", tarfile.LNKTYPE, True),
        ("workspace/pipe", tarfile.FIFOTYPE, False),
        ("workspace/tty", tarfile.CHRTYPE, False),
        ("workspace/" + "d/" * MAX_DEPTH + "f", tarfile.REGTYPE, False),
    ],
)
def test_tar_members_follow_the_same_rules(name: str, kind: bytes, copied: bool) -> None:
    member = tarfile.TarInfo(name)
    member.type = kind
    assert tar_member_copied(member) is copied


def test_a_file_copy_clears_the_mode_bits_tars_filter_clears(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir(mode=0o777)
    (tmp_path / "dir").chmod(0o3777)
    (tmp_path / "dir" / "tool").write_text("x")
    (tmp_path / "dir" / "tool").chmod(0o4775)
    (tmp_path / "link").symlink_to("dir/tool")

    clear_mode_bits(tmp_path)

    assert stat.S_IMODE((tmp_path / "dir").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "dir" / "tool").stat().st_mode) == 0o755

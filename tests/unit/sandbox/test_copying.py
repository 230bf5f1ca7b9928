"""What a copy out of a sandbox takes: regular files, folders and links, shallow and short enough."""

from __future__ import annotations

import functools
import io
import os
import shutil
import stat
import tarfile
from pathlib import Path

import pytest

from skill2env.sandbox.copying import (
    MAX_DEPTH,
    MAX_PATH_CHARS,
    PAGE_BYTES,
    STREAM_FACTOR,
    CopyBudget,
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

    assert left_out_of_copy(str(tmp_path), str(tmp_path), ["file", "link", "pipe", "d", "gone"]) == ["gone", "pipe"]
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


def test_a_copytree_writes_at_most_the_budget_of_file_content_in_whole_pages(tmp_path: Path) -> None:
    source = tmp_path / "workspace"
    (source / "output").mkdir(parents=True)
    (source / "output" / "result.txt").write_text("total\n")
    (source / "dense").write_bytes(b"x" * 600)
    for index in range(20):
        with (source / f"sparse{index:02}").open("wb") as handle:
            handle.truncate(1 << 30)  # a GiB each, nothing allocated
        os.link(source / "dense", source / f"link{index:02}")
    budget = CopyBudget(3 * PAGE_BYTES)

    shutil.copytree(source, tmp_path / "copy", symlinks=True,
                    ignore=functools.partial(left_out_of_copy, str(source), budget=budget))  # fmt: skip

    copied = {p.relative_to(tmp_path / "copy").as_posix(): p.stat().st_size for p in (tmp_path / "copy").rglob("*")}
    # what fits, in name order (a folder's files before what is in its subfolders): 600 bytes take a page
    assert copied == {"dense": 600, "link00": 600, "link01": 600, "output": copied["output"]}
    assert budget.left == 0


def _tar(members: list[tuple[str, bytes | str]]) -> tarfile.TarFile:
    """A tar read as a stream, as an engine sends one: (name, data) files and (name, target) hard links."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, content in members:
            info = tarfile.TarInfo(name)
            if isinstance(content, str):
                info.type, info.linkname = tarfile.LNKTYPE, content
                archive.addfile(info)
            else:
                info.size = len(content)
                archive.addfile(info, io.BytesIO(content))
    buffer.seek(0)
    return tarfile.open(fileobj=buffer, mode="r|")


def test_tar_members_past_the_budget_and_links_to_them_are_left_out() -> None:
    budget = CopyBudget(3 * PAGE_BYTES)
    archive = _tar([("ws/a", b"a" * 4000), ("ws/b", b"b" * 9000), ("ws/to-a", "ws/a"), ("ws/to-b", "ws/b"),
                    ("ws/c", b"c"), ("ws/again-a", "ws/a")])  # fmt: skip

    kept = [member.name for member in archive if tar_member_copied(member, budget)]

    # a link costs its target's pages; one to a member left out is left out
    assert kept == ["ws/a", "ws/to-a", "ws/c"]
    assert budget.left == 0


def test_a_budget_is_spent_once_the_files_offered_pass_the_stream_factor() -> None:
    budget = CopyBudget(PAGE_BYTES)
    budget.take(STREAM_FACTOR * PAGE_BYTES)
    assert not budget.spent
    budget.take(1)
    assert budget.spent


def test_a_copy_takes_at_most_its_entries(tmp_path: Path) -> None:
    source = tmp_path / "workspace"
    (source / "a").mkdir(parents=True)
    for name in ("a/x", "b", "c", "d"):
        (source / name).write_text("1")
    budget = CopyBudget(1 << 20, max_entries=3)

    shutil.copytree(source, tmp_path / "copy", ignore=functools.partial(left_out_of_copy, str(source), budget=budget))

    assert sorted(p.relative_to(tmp_path / "copy").as_posix() for p in (tmp_path / "copy").rglob("*")) == [
        "a",
        "b",
        "c",
    ]  # the folder counts; its file came after the budget was spent
    archive = _tar([("ws/a", b"1"), ("ws/b", b"2"), ("ws/c", "ws/a"), ("ws/d", b"3")])
    tar_budget = CopyBudget(1 << 20, max_entries=3)
    assert [m.name for m in archive if tar_member_copied(m, tar_budget)] == ["ws/a", "ws/b", "ws/c"]

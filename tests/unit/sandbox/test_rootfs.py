"""Unpacked image file systems under the machine-wide cache: several processes may unpack the same
image at once, and the copy another already runs over must never be replaced under it."""

from __future__ import annotations

from pathlib import Path

from skill2env.sandbox.rootfs import COMPLETE_MARKER, _move_into_place


def unpacked(folder: Path, content: str, *, complete: bool = True) -> Path:
    folder.mkdir(parents=True)
    (folder / "etc").mkdir()
    (folder / "etc" / "os-release").write_text(content)
    if complete:
        (folder / COMPLETE_MARKER).write_text("image\n")
    return folder


def test_the_first_copy_becomes_the_target(tmp_path: Path) -> None:
    scratch = unpacked(tmp_path / ".abc-1", "first")
    _move_into_place(scratch, tmp_path / "abc")
    assert (tmp_path / "abc" / "etc" / "os-release").read_text() == "first"
    assert not scratch.exists()


def test_a_copy_finished_second_is_dropped_and_the_first_stays_in_place(tmp_path: Path) -> None:
    target = unpacked(tmp_path / "abc", "in use")
    in_use = (target / "etc" / "os-release").stat().st_ino
    scratch = unpacked(tmp_path / ".abc-2", "late")
    _move_into_place(scratch, target)
    assert (target / "etc" / "os-release").read_text() == "in use"
    assert (target / "etc" / "os-release").stat().st_ino == in_use
    assert not scratch.exists()


def test_an_incomplete_copy_left_by_an_older_version_is_replaced(tmp_path: Path) -> None:
    target = unpacked(tmp_path / "abc", "half", complete=False)
    scratch = unpacked(tmp_path / ".abc-3", "whole")
    _move_into_place(scratch, target)
    assert (target / "etc" / "os-release").read_text() == "whole"
    assert (target / COMPLETE_MARKER).is_file()
    assert not scratch.exists()

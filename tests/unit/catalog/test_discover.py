"""Discovery: which folders are skills, what their listings hold, and that the root is never left."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from skill2env.catalog import discover
from skill2env.catalog.discover import discover_skills, points_outside, preferred_skill_md


def write(path: Path, text: str = "x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_every_case_variant_of_skill_md_marks_a_skill(tmp_path: Path) -> None:
    for name, md in [
        ("a", "SKILL.md"),
        ("b", "skill.md"),
        ("c", "Skill.md"),
        ("d", "SKILLS.md"),
        ("e", "Skills.md"),
    ]:
        write(tmp_path / "src" / name / md)
    write(tmp_path / "src" / "not-a-skill" / "README.md")

    found = {f.relpath: f.skill_md_file for f in discover_skills(tmp_path)}

    assert found == {"src/a": "SKILL.md", "src/b": "skill.md", "src/c": "Skill.md", "src/d": "SKILLS.md",
                     "src/e": "Skills.md"}  # fmt: skip


def test_exact_spelling_wins_when_a_folder_has_several() -> None:
    assert preferred_skill_md(["skill.md", "SKILL.md", "notes.md"]) == "SKILL.md"
    assert preferred_skill_md(["Skill.md", "skill.md"]) == "Skill.md"
    assert preferred_skill_md(["README.md"]) is None


def test_nested_skills_are_their_own_skills_and_not_counted_twice(tmp_path: Path) -> None:
    write(tmp_path / "pack" / "SKILL.md")
    write(tmp_path / "pack" / "notes.md")
    write(tmp_path / "pack" / "child" / "SKILL.md")
    write(tmp_path / "pack" / "child" / "scripts" / "run.py")

    found = {f.relpath: f for f in discover_skills(tmp_path)}

    assert set(found) == {"pack", "pack/child"}
    assert found["pack/child"].nested_in == "pack"
    assert sorted(f.relpath for f in found["pack"].files) == ["SKILL.md", "notes.md"]
    assert sorted(f.relpath for f in found["pack/child"].files) == ["SKILL.md", "scripts/run.py"]


def test_symlinks_are_listed_never_followed(tmp_path: Path) -> None:
    outside = write(tmp_path / "outside" / "secret.txt", "secret")
    write(tmp_path / "root" / "s" / "SKILL.md")
    os.symlink(outside, tmp_path / "root" / "s" / "leak.txt")
    os.symlink(tmp_path / "outside", tmp_path / "root" / "s" / "leakdir")
    os.symlink(tmp_path / "outside", tmp_path / "root" / "linked-skills")

    (found,) = discover_skills(tmp_path / "root")

    listing = {f.relpath: f for f in found.files}
    assert listing["leak.txt"].is_symlink and listing["leak.txt"].symlink_target == str(outside)
    assert listing["leakdir"].is_symlink
    assert points_outside(tmp_path / "root", tmp_path / "root" / "s" / "leak.txt", str(outside))
    assert not points_outside(tmp_path / "root", tmp_path / "root" / "s" / "x", "SKILL.md")


def test_thousands_of_files_are_counted_but_the_listing_is_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discover, "MAX_FILES_PER_SKILL", 10)
    write(tmp_path / "big" / "SKILL.md")
    for i in range(30):
        write(tmp_path / "big" / "data" / f"f{i:02d}.csv", "a,b\n")

    (found,) = discover_skills(tmp_path)

    assert found.n_files == 31
    assert len(found.files) == 10


def test_vcs_and_dependency_folders_are_skipped(tmp_path: Path) -> None:
    write(tmp_path / "s" / "SKILL.md")
    write(tmp_path / "s" / "node_modules" / "x" / "SKILL.md")
    write(tmp_path / "s" / ".git" / "config")

    found = list(discover_skills(tmp_path))

    assert [f.relpath for f in found] == ["s"]
    assert [f.relpath for f in found[0].files] == ["SKILL.md"]


def test_the_root_itself_can_be_a_skill(tmp_path: Path) -> None:
    write(tmp_path / "SKILL.md")
    (found,) = discover_skills(tmp_path)
    assert found.relpath == "."

"""Cataloging a tree end to end: every odd case becomes a row with a status and a reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from skill_trees import GOOD, small_tree, write_skill

from skill2env.catalog import catalog as catalog_module
from skill2env.catalog import profile
from skill2env.catalog.catalog import SkillsRootError, catalog_skills
from skill2env.catalog.models import SkillRecord


def rows_by_path(root: Path) -> dict[str, dict[str, object]]:
    return {row["path"]: row for row in catalog_skills(root, workers=1).skills.iter_rows(named=True)}


def test_a_good_skill_is_fully_profiled(tmp_path: Path) -> None:
    write_skill(tmp_path, "team/csv-report", GOOD, {"scripts/profile.py": "#!/usr/bin/env python3\nimport pandas\n"})
    catalog = catalog_skills(tmp_path, workers=1)
    (row,) = catalog.skills.to_dicts()
    assert (row["status"], row["name"], row["source"], row["skill_md_file"]) == ("ok", "csv-report", "team", "SKILL.md")
    assert row["languages"] == ["python"]
    assert {"ecosystem": "pip", "name": "pandas"}.items() <= {**row["dependencies"][0]}.items()
    assert row["domain"] and len(row["skill_id"]) == 16
    assert row["root"] == str(tmp_path.resolve())  # later stages find the folder without being told the root again
    assert sorted(catalog.skill_files["path"].to_list()) == ["SKILL.md", "scripts/profile.py"]
    assert set(catalog.skill_files["kind"].to_list()) == {"skill_md", "script"}


def test_odd_skill_md_files_become_statuses(tmp_path: Path) -> None:
    write_skill(tmp_path, "s/no-frontmatter", "# Title\n\nDo things with `jq`.\n")
    write_skill(tmp_path, "s/broken-yaml", "---\nname: x\ndescription: [unclosed\n---\nbody\n")
    write_skill(tmp_path, "s/not-mapping", "---\n- a\n- b\n---\nbody\n")
    write_skill(tmp_path, "s/empty", "")
    (tmp_path / "s" / "binary").mkdir()
    (tmp_path / "s" / "binary" / "SKILL.md").write_bytes(b"\x00\x01\x02PK")
    (tmp_path / "s" / "latin1").mkdir()
    (tmp_path / "s" / "latin1" / "SKILL.md").write_bytes("---\nname: café\ndescription: ok\n---\n".encode("latin-1"))

    rows = rows_by_path(tmp_path)

    assert rows["s/no-frontmatter"]["status"] == "no_frontmatter"
    assert rows["s/broken-yaml"]["status"] == "frontmatter_error"
    assert rows["s/not-mapping"]["status"] == "frontmatter_error"
    assert rows["s/empty"]["status"] == "no_frontmatter"
    assert rows["s/binary"]["status"] == "unreadable"
    assert rows["s/latin1"]["text_encoding"] == "utf-8-replaced"
    assert rows["s/latin1"]["name"] == "caf\ufffd"


def test_a_symlinked_skill_md_is_never_followed(tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("---\nname: secret\ndescription: leaked\n---\n")
    (tmp_path / "root" / "s").mkdir(parents=True)
    os.symlink(secret, tmp_path / "root" / "s" / "SKILL.md")
    (tmp_path / "root" / "t").mkdir()
    (tmp_path / "root" / "t" / "SKILL.md").write_text(GOOD)
    os.symlink(secret, tmp_path / "root" / "t" / "notes.md")

    catalog = catalog_skills(tmp_path / "root", workers=1)

    linked = catalog.skills.filter(catalog.skills["path"] == "s").row(0, named=True)
    assert linked["status"] == "unreadable"
    assert "not followed" in linked["reason"]
    notes = catalog.skill_files.filter(catalog.skill_files["path"] == "notes.md").row(0, named=True)
    assert notes["is_symlink"] and notes["status"] == "skipped"
    assert "outside the skills root" in notes["reason"]
    assert "leaked" not in str(catalog.skills.to_dicts())


def test_identical_content_gets_the_same_id_and_different_content_does_not(tmp_path: Path) -> None:
    write_skill(tmp_path, "a/one", GOOD)
    write_skill(tmp_path, "b/one", GOOD)
    write_skill(tmp_path, "c/one", GOOD + "\nMore.\n")
    ids = {path: row["skill_id"] for path, row in rows_by_path(tmp_path).items()}
    assert ids["a/one"] == ids["b/one"] != ids["c/one"]


def test_worker_processes_give_the_same_rows_as_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(catalog_module, "INLINE_BELOW", 0)
    monkeypatch.setattr(catalog_module, "CHUNK_SIZE", 2)
    root = small_tree(tmp_path)
    seen: list[int] = []

    parallel = catalog_skills(root, workers=2, progress=seen.append)
    inline = catalog_skills(root, workers=1)

    assert parallel.skills.equals(inline.skills)
    assert parallel.skill_files.equals(inline.skill_files)
    assert seen == [2, 4]


def test_a_missing_root_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SkillsRootError, match="does not exist"):
        catalog_skills(tmp_path / "nope")


def test_a_folder_that_breaks_an_extractor_becomes_an_error_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_skill(tmp_path, "team/fine", GOOD)
    write_skill(tmp_path, "team/poison", GOOD.replace("csv-report", "poison"))
    real = profile.classify_domain

    def classify(record: SkillRecord) -> str:
        if record.path == "team/poison":
            raise RuntimeError("extractor bug")
        return real(record)

    monkeypatch.setattr(profile, "classify_domain", classify)
    rows = rows_by_path(tmp_path)

    assert rows["team/fine"]["status"] == "ok"
    assert rows["team/poison"]["status"] == "error"
    assert rows["team/poison"]["reason"] == "RuntimeError: extractor bug"

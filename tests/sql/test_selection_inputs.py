"""`selection_inputs_of_domain`: the profile kit matching and pattern selection read. A file that only
packages the skill (a registry record, a package manifest) adds no extension: a skill is not a JSON
skill because it ships `_meta.json` and `package.json`."""

from __future__ import annotations

from pathlib import Path

from skill_trees import GOOD, curate_tree, small_tree, write_skill

from skill2env.catalog.catalog import catalog_skills
from skill2env.lake.lake import Lake, TableWrite
from skill2env.lake.sqlfiles import load_sql


def test_packaging_files_add_no_extension_but_keep_their_kind(lake: Lake, tmp_path: Path) -> None:
    root = small_tree(tmp_path / "skills")
    write_skill(
        root,
        "team/csv-report",
        GOOD,
        {
            "scripts/profile.py": "import csv\n",
            "_meta.json": '{"owner": "team", "slug": "csv-report"}\n',
            "package.json": '{"name": "csv-report"}\n',
            "data/sample.csv": "a,b\n1,2\n",
        },
    )
    curate_tree(lake, root)
    files = catalog_skills(root, workers=1).skill_files
    lake.write([TableWrite("skill_files", files)], run_id="catalog-files", code_version="test")

    domain = lake.query("SELECT domain FROM skills WHERE path = 'team/csv-report'").item()
    row = lake.query(load_sql("queries/selection_inputs_of_domain"), {"domain": domain}).row(0, named=True)
    assert row["path"] == "team/csv-report"
    assert sorted(row["extensions"]) == ["csv", "md", "py"]
    assert "config" in row["file_kinds"]


def test_the_author_reads_the_same_profile_kit_matching_was_selected_on(lake: Lake, tmp_path: Path) -> None:
    """Offline authoring matches a skill to a kit from the row `authoring_skills_of_domain` gives it:
    the dependency names, extensions and file kinds must be there, as selection saw them."""
    from skill2env.patterns.pool import seed_pool
    from skill2env.patterns.selection import select_patterns
    from skill2env.patterns.tables import selections_frame
    from skill2env.patterns.traits import SkillProfile

    root = small_tree(tmp_path / "skills")
    write_skill(root, "team/csv-report", GOOD, {"scripts/profile.py": "import pandas\n", "_meta.json": "{}\n",
                                                 "data/sample.csv": "a,b\n1,2\n"})  # fmt: skip
    curate_tree(lake, root)
    lake.write([TableWrite("skill_files", catalog_skills(root, workers=1).skill_files)], run_id="f", code_version="t")
    domain = lake.query("SELECT domain FROM skills WHERE path = 'team/csv-report'").item()
    selected = lake.query(load_sql("queries/selection_inputs_of_domain"), {"domain": domain}).row(0, named=True)
    pool = seed_pool()
    frame = selections_frame([select_patterns(SkillProfile.from_row(selected), pool)], pool.digest)
    lake.write([TableWrite("pattern_selections", frame, partition_key=domain)], run_id="s", code_version="t")

    authored = lake.query(load_sql("queries/authoring_skills_of_domain"), {"domain": domain}).row(0, named=True)
    for column in ("dependency_names", "file_kinds"):
        assert sorted(authored[column]) == sorted(selected[column]), column
    assert sorted(authored["extensions"]) == sorted(e for e in selected["extensions"] if e) == ["csv", "md", "py"]
    assert SkillProfile.from_row(authored) == SkillProfile.from_row(selected)

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

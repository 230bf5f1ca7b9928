"""`curated_skills.verdict` and the funnel: kept, rejected and undecided told apart; undecided never rejected."""

from __future__ import annotations

import json
from pathlib import Path

from lake_backends import LakeMaker, raw_connection
from rows import curated_frame, curated_row, skill_row, skills_frame
from skill_trees import curate_tree, small_tree, write_skill

from skill2env.lake.lake import Lake, TableWrite

# A long essay: no steps, commands or scripts, nothing promotional or persona-like. The rules can
# neither call it a workflow nor a stub, so it stays undecided.
ESSAY = """---
name: naming-essay
description: Thoughts on naming things in large codebases.
---

# On naming

""" + "\n\n".join(
    "Names carry intent across years of maintenance, and a codebase that names its concepts consistently "
    f"is easier to read than one that does not; this is observation number {i} about that."
    for i in range(12)
)


def test_undecided_skills_are_counted_apart_and_never_curated(lake: Lake, tmp_path: Path) -> None:
    root = small_tree(tmp_path / "skills")
    write_skill(root, "team/naming-essay", ESSAY)
    curate_tree(lake, root)

    verdicts = dict(lake.query("SELECT path, verdict FROM curated_skills").iter_rows())
    assert verdicts == {
        "team/csv-report": "kept",
        "team/naming-essay": "undecided",
        "team/notes-export": "rejected",
        "others/fast-setup": "rejected",
        "others/draft": "rejected",
    }
    essay = lake.query("SELECT * FROM curated_skills WHERE path = 'team/naming-essay'").row(0, named=True)
    assert essay["curated"] is False and essay["practical"] == "undecided"
    assert "fail" not in (essay["compatible"], essay["feasible"], essay["safe"])
    assert lake.query("SELECT count(*) FROM curated_skills WHERE curated <> (verdict = 'kept')").item() == 0
    funnel = lake.query("SELECT * FROM curation_funnel WHERE domain = '*'").row(0, named=True)
    assert (funnel["found"], funnel["curated"], funnel["undecided"], funnel["rejected"]) == (5, 1, 1, 3)
    # later stages see the kept skill only
    assert lake.query("SELECT value FROM catalog_stats WHERE scope = 'curated' AND statistic = 'skills'").item() == 1


def test_a_lake_made_before_the_verdict_column_gains_it_and_reads_old_rows(
    make_lake: LakeMaker, tmp_path: Path
) -> None:
    lake = make_lake(tmp_path / "lake.duckdb")
    lake.ensure_schema()
    with raw_connection(lake) as con:
        con.execute("DROP VIEW IF EXISTS curated_skills")  # rebuilt with the schema
        con.execute("ALTER TABLE curated_skills_versions DROP COLUMN verdict")
        con.execute("DELETE FROM lake_schema")  # as an older version left it
    lake = make_lake(tmp_path / "lake.duckdb")
    lake.write([TableWrite("skills", skills_frame(skill_row("a/kept"), skill_row("a/open"), skill_row("a/bad")))],
               run_id="r0", code_version="v1")  # fmt: skip
    with raw_connection(lake) as con:
        columns = [row[0] for row in con.execute("DESCRIBE curated_skills_versions").fetchall()]
    assert "verdict" in columns  # the upgrade added it
    # rows as an older version wrote them: no verdict
    rows = curated_frame(
        curated_row("a/kept"),
        curated_row("a/open", False, safe="pass", safe_reasons=[], practical="undecided", reasons=["workflow:unclear"]),
        curated_row("a/bad", False),
    ).drop("verdict")

    lake.write([TableWrite("curated_skills", rows, partition_key="data-analytics")], run_id="r1", code_version="v1")

    assert dict(lake.query("SELECT path, verdict FROM curated_skills").iter_rows()) == {
        "a/kept": "kept",
        "a/open": "undecided",
        "a/bad": "rejected",
    }
    # rows written with the column keep what was written
    lake.write([TableWrite("curated_skills", curated_frame(curated_row("a/kept", verdict="kept")),
                           partition_key="data-analytics")], run_id="r2", code_version="v1")  # fmt: skip
    assert lake.query("SELECT verdict FROM curated_skills_versions WHERE run_id = 'r2'").item() == "kept"


NO_EVIDENCE = """
SELECT count(*) FROM curated_skills
WHERE curated AND (
    coalesce(json_array_length(verdicts -> '$.practical.evidence'), 0) = 0
    OR coalesce(json_array_length(verdicts -> '$.compatible.evidence'), 0) = 0
    OR coalesce(json_array_length(verdicts -> '$.feasible.evidence'), 0) = 0
    OR coalesce(json_array_length(verdicts -> '$.safe.evidence'), 0) = 0
)
"""


def test_every_kept_skill_has_evidence_for_all_four_criteria(lake: Lake, tmp_path: Path) -> None:
    curate_tree(lake, small_tree(tmp_path / "skills"))

    assert lake.query("SELECT count(*) FROM curated_skills WHERE curated").item() == 1
    assert lake.query(NO_EVIDENCE).item() == 0
    evidence = json.loads(lake.query("SELECT verdicts FROM curated_skills WHERE curated").item())
    practical = " ".join(evidence["practical"]["evidence"])
    assert "SKILL.md:13:" in practical and "scripts/profile.py" in practical and "data.csv" in practical
    compatible = " ".join(evidence["compatible"]["evidence"])
    assert "head, python3" in compatible and "in the base image" in compatible
    assert "no required account, API key" in evidence["feasible"]["evidence"][0]
    assert "2 files" in evidence["safe"]["evidence"][0]


def test_every_kept_skill_of_the_corpus_has_evidence(lake: Lake, corpus: Path) -> None:
    curate_tree(lake, corpus)

    assert lake.query("SELECT count(*) FROM curated_skills WHERE curated").item() > 20
    assert lake.query(NO_EVIDENCE).item() == 0

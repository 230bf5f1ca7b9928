"""Curating one domain partition from `skills` rows: parse failures, duplicates, row shape."""

from __future__ import annotations

import json

import pytest
from rows import skill_row, skills_frame
from skill_trees import GOOD

from skill2env.catalog.tables import skill_record_from_row
from skill2env.curation import partition, tables
from skill2env.curation.curate import curate_skill
from skill2env.curation.partition import FrameSource, curate_partition, curate_partitions


def good(path: str, **overrides: object) -> dict[str, object]:
    fields: dict[str, object] = {
        "skill_md_text": GOOD,
        "body_chars": len(GOOD),
        "name": "csv-report",
        "description": "Summarise a CSV file into a Markdown report.",
        "frontmatter": json.dumps({"name": "csv-report"}),
    }
    return skill_row(path, **{**fields, **overrides})


def test_a_good_skill_is_curated_with_every_verdict_recorded() -> None:
    (row,) = curate_partition(skills_frame(good("team/csv-report")), "data-analytics").to_dicts()
    assert row["curated"] is True and row["parsed"] is True and row["verdict"] == "kept"
    assert (row["practical"], row["compatible"], row["feasible"], row["safe"]) == ("pass",) * 4
    assert set(json.loads(row["verdicts"])) == {"practical", "compatible", "feasible", "safe"}
    assert row["domain"] == "data-analytics"


def test_recorded_verdicts_are_the_models_json_dump() -> None:
    (record,) = curate_partition(skills_frame(good("team/csv-report")), "data-analytics").to_dicts()
    curation = curate_skill(skill_record_from_row(good("team/csv-report")), domain="data-analytics")
    curation.safe.decided_by = "curator:scripted"
    verdicts = {name: getattr(curation, name) for name in ("practical", "compatible", "feasible", "safe")}
    for verdict in verdicts.values():
        assert tables._verdict_json(verdict) == verdict.model_dump(mode="json")
        assert verdict.evidence  # a kept skill's evidence is in what is written
    assert json.loads(record["verdicts"])["practical"] == verdicts["practical"].model_dump(mode="json")


def test_broken_frontmatter_is_not_parsed_and_never_curated() -> None:
    frame = skills_frame(good("team/broken", status="frontmatter_error"), good("team/nameless", name=None))
    rows = {r["path"]: r for r in curate_partition(frame, "data-analytics").to_dicts()}
    assert rows["team/broken"]["parsed"] is False
    assert rows["team/broken"]["curated"] is False
    assert rows["team/broken"]["verdict"] == rows["team/nameless"]["verdict"] == "rejected"
    assert rows["team/broken"]["reasons"][0] == "unparsed:frontmatter_error"
    assert rows["team/nameless"]["reasons"][0] == "unparsed:missing-name-or-description"


def test_only_the_first_copy_of_identical_content_is_curated() -> None:
    frame = skills_frame(good("b/copy", skill_id="same"), good("a/original", skill_id="same"))
    rows = {r["path"]: r for r in curate_partition(frame, "data-analytics").to_dicts()}
    assert rows["a/original"]["curated"] is True
    assert rows["b/copy"]["curated"] is False
    assert rows["b/copy"]["verdict"] == "rejected"
    assert rows["b/copy"]["practical_reasons"] == ["duplicate:content-of:a/original"]


def test_worker_processes_give_the_same_rows_as_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(partition, "INLINE_BELOW", 0)
    monkeypatch.setattr(partition, "CHUNK_SIZE", 3)
    by_domain = {
        "data-analytics": skills_frame(*(good(f"a/s{i}") for i in range(7))),
        "security": skills_frame(good("b/one", skill_id="x"), good("b/two", skill_id="x")),
        "empty": skills_frame(),
    }
    seen: list[int] = []

    sizes = {domain: frame.height for domain, frame in by_domain.items()}
    parallel = curate_partitions(sizes, FrameSource(by_domain), workers=2, progress=seen.append)
    inline = curate_partitions(sizes, FrameSource(by_domain), workers=1)

    assert {d: f.to_dicts() for d, f in parallel.items()} == {d: f.to_dicts() for d, f in inline.items()}
    assert parallel["data-analytics"].height == 7 and parallel["empty"].height == 0
    assert parallel["security"]["curated"].to_list() == [True, False]
    assert seen[-1] == 9

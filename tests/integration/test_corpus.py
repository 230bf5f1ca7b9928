"""The 324-skill development corpus, cataloged and curated as a user would, through the CLI path."""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest
from corpus import CORPUS

from skill2env.definitions import run_catalog
from skill2env.home import Home
from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.integration, pytest.mark.slow]

MUST_REJECT = {
    "openclaw-skills/fobonacci404--evilcalc": ("safe", "malicious:"),
    "openclaw-skills/steipete--imsg": ("compatible", "needs:macos"),
    "openclaw-skills/tyler6204--apple-photos": ("compatible", "needs:macos"),
    "openclaw-skills/steipete--openhue": ("compatible", "needs:hardware"),
    "openclaw-skills/steipete--camsnap": ("compatible", "needs:hardware"),
    "openclaw-skills/0xterrybit--binance": ("feasible", "needs:"),
    "openclaw-skills/rdosec--tmux-2": ("practical", "stub:"),
    "openclaw-skills/trungtin--tin-test": ("practical", "stub:"),
}


@pytest.fixture(scope="module")
def cataloged(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> tuple[Path, Lake]:
    corpus = request.getfixturevalue("corpus_root")
    home = Home(tmp_path_factory.mktemp("home"))
    run_catalog(home, corpus, workers=2)
    return corpus, Lake(home.lake_path)


@pytest.fixture(scope="module")
def corpus_root() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"development corpus not found at {CORPUS}")
    return CORPUS


def manifest_paths(corpus: Path) -> set[str]:
    with (corpus / "MANIFEST.tsv").open(newline="") as handle:
        return {row["skill_path"] for row in csv.DictReader(handle, delimiter="\t")}


def test_no_skill_is_lost(cataloged: tuple[Path, Lake]) -> None:
    corpus, lake = cataloged
    top_level = set(lake.query("SELECT path FROM skills WHERE nested_in IS NULL").to_series().to_list())
    assert top_level == manifest_paths(corpus)
    nested = lake.query("SELECT path, nested_in FROM skills WHERE nested_in IS NOT NULL")
    assert set(nested.get_column("nested_in")) == {"openclaw-skills/arisylafeta--clawlist"}


def test_odd_files_become_statuses_not_errors(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    status = dict(lake.query("SELECT path, status FROM skills").rows())
    assert status["openclaw-skills/baanish--pihole"] == "no_frontmatter"
    assert status["openclaw-skills/steipete--discord"] == "frontmatter_error"
    names = dict(lake.query("SELECT path, skill_md_file FROM skills").rows())
    assert names["openclaw-skills/buddyh--todoist-cli"] == "skill.md"
    assert names["openclaw-skills/nsampre--hevycli"] == "Skill.md"
    assert names["openclaw-skills/theishangoswami--web-search-exa"] == "SKILLS.md"


def test_every_skill_is_judged_and_the_must_reject_cases_are_rejected(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    curated = lake.query("SELECT * FROM curated_skills")
    assert curated.height == lake.query("SELECT count(*) FROM skills").item()
    by_path = {row["path"]: row for row in curated.iter_rows(named=True)}
    for path, (criterion, prefix) in MUST_REJECT.items():
        row = by_path[path]
        assert row["curated"] is False, path
        assert any(r.startswith(prefix) for r in row[f"{criterion}_reasons"]), (
            path,
            row[f"{criterion}_reasons"],
        )


def test_funnel_is_monotone_and_some_skills_survive(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    total = lake.query("SELECT * FROM curation_funnel WHERE domain = '*'").row(0, named=True)
    stages = [total[s] for s in ("found", "parsed", "practical", "compatible", "feasible", "safe", "curated")]
    assert stages == sorted(stages, reverse=True)
    assert total["found"] == 329
    assert 0 < total["curated"] < total["found"]


def test_catalog_stats_answer_the_papers_questions(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    stats = lake.query("SELECT statistic, value FROM catalog_stats WHERE scope = 'all'")
    values = dict(stats.rows())
    assert values["skills"] == 329
    assert values["languages"] >= 2
    assert values["programs"] >= 20
    assert values["ecosystems"] >= 3
    assert values["dependencies"] >= 20
    assert values["cli_tools"] >= values["programs"] / 2
    reasons = lake.query("SELECT family, sum(skills) AS n FROM curation_reasons GROUP BY family")
    assert {"needs", "malicious"} <= set(pl.Series(reasons.get_column("family")).to_list())


def test_every_curated_skill_gets_patterns_or_a_reason(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    curated = set(lake.query("SELECT skill_id FROM curated_skills WHERE curated").to_series().to_list())
    selections = lake.query("SELECT * FROM pattern_selections")
    assert set(selections.get_column("skill_id").to_list()) == curated
    chosen = selections.filter(pl.col("pattern_id").is_not_null())
    assert chosen.get_column("rationale").null_count() == 0
    explained = selections.filter(pl.col("pattern_id").is_null())
    assert explained.get_column("reason").null_count() == 0
    per_skill = chosen.group_by("skill_id").agg(pl.col("capability").n_unique().alias("capabilities"))
    assert per_skill.get_column("capabilities").min() >= 2  # type: ignore[operator]
    distinct_sets = chosen.group_by("skill_id").agg(pl.col("pattern_id").sort()).get_column("pattern_id")
    assert distinct_sets.n_unique() >= 0.5 * len(curated)


def test_pattern_library_counts_per_capability(cataloged: tuple[Path, Lake]) -> None:
    _, lake = cataloged
    counts = dict(lake.query("SELECT capability, count(*) FROM pattern_library GROUP BY 1").iter_rows())
    assert len(counts) == 5 and sum(counts.values()) >= 100 and min(counts.values()) >= 15

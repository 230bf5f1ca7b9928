"""The seed pool: size, capabilities, the paper's named patterns, validation, distinctness."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from skill2env.patterns.models import Capability
from skill2env.patterns.pool import POOL_DIR, PatternPoolError, load_pattern_file, load_pool, seed_pool
from skill2env.patterns.similarity import pattern_text, pool_index

NAMED = [
    # the paper's named patterns
    "distributed_evidence", "implicit_constraint", "state_dependency", "resource_budget", "authority_resolution",
    # the worked example's hardening moves, generalised
    "scope_distractor", "duplicate_claim_across_periods", "source_arithmetic_error", "partial_payment_vs_billed",
    "scanned_evidence_without_text_layer", "date_dependent_rates", "claim_without_receipt", "cap_across_tiers",
    # error recovery, long-horizon consistency, skill use
    "misleading_tool_error", "corrupted_input_repair", "idempotent_resume", "wrong_default_in_skill_script",
    "cross_deliverable_agreement", "running_totals", "rename_propagation",
    "decisive_tool_flag", "skill_script_gotcha", "choose_between_documented_tools",
]  # fmt: skip
DISTINCT_BELOW = 0.35
"""TF-IDF cosine of two patterns' texts; a paraphrase of one pattern scores about 0.65."""


def test_the_pool_has_a_hundred_patterns_fifteen_per_capability() -> None:
    pool = seed_pool()
    per_capability = Counter(p.capability for p in pool)
    assert len(pool) >= 100
    assert set(per_capability) == set(Capability)
    assert min(per_capability.values()) >= 15


@pytest.mark.parametrize("pattern_id", NAMED)
def test_named_patterns_are_present(pattern_id: str) -> None:
    assert pattern_id in seed_pool()


def test_no_two_patterns_are_near_duplicates() -> None:
    pool = seed_pool()
    close = pool_index(list(pool)).pairs_above(DISTINCT_BELOW)
    assert close == [], f"near-duplicate patterns: {close}"


def test_a_paraphrase_is_recognised_as_the_same_pattern() -> None:
    pool = seed_pool()
    text = pattern_text(pool["running_totals"])
    paraphrase = text.replace("balance", "stock level").replace("register", "ledger")
    nearest, similarity = pool_index(list(pool)).most_similar(paraphrase)
    assert nearest == "running_totals" and similarity > DISTINCT_BELOW


def test_every_pattern_is_constructible_from_concrete_artifacts() -> None:
    for pattern in seed_pool():
        named_files = [item for item in pattern.construction.workspace if "." in item.split(":")[0] or "/" in item]
        assert named_files, f"{pattern.id}: construction names no concrete file"
        assert pattern.information_boundary.author_only, pattern.id
        assert [level.level for level in pattern.intensity] == [1, 2, 3]


def test_conflicts_are_symmetric_in_the_pool() -> None:
    pool = seed_pool()
    for pattern in pool:
        for other in pattern.conflicts:
            assert pattern.id in pool.conflicts(other)


def _write(tmp_path: Path, data: object, name: str = "planning.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _one_pattern() -> dict:
    data = yaml.safe_load((POOL_DIR / "planning.yaml").read_text(encoding="utf-8"))
    return {"capability": "planning", "patterns": [data["patterns"][0]]}


def test_a_malformed_pattern_names_the_file_the_pattern_and_the_field(tmp_path: Path) -> None:
    data = _one_pattern()
    pattern_id = data["patterns"][0]["id"]
    del data["patterns"][0]["evidence"]["shortcut"]
    with pytest.raises(PatternPoolError, match=rf"planning.yaml: pattern {pattern_id}: field evidence.shortcut"):
        load_pattern_file(_write(tmp_path, data))


def test_a_wrong_intensity_ladder_is_rejected(tmp_path: Path) -> None:
    data = _one_pattern()
    data["patterns"][0]["intensity"] = data["patterns"][0]["intensity"][::-1]
    with pytest.raises(PatternPoolError, match="intensity"):
        load_pattern_file(_write(tmp_path, data))


def test_broken_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "skill_use.yaml"
    path.write_text("capability: skill_use\npatterns: [\n", encoding="utf-8")
    with pytest.raises(PatternPoolError, match=r"skill_use\.yaml: cannot read YAML"):
        load_pattern_file(path)


def test_duplicate_ids_across_files_are_rejected(tmp_path: Path) -> None:
    _write(tmp_path, _one_pattern(), "a.yaml")
    _write(tmp_path, _one_pattern(), "b.yaml")
    with pytest.raises(PatternPoolError, match="duplicate pattern ids"):
        load_pool(tmp_path)


def test_a_conflict_with_an_unknown_pattern_is_rejected(tmp_path: Path) -> None:
    data = _one_pattern()
    data["patterns"][0]["conflicts"] = ["no_such_pattern"]
    _write(tmp_path, data)
    with pytest.raises(PatternPoolError, match="no_such_pattern"):
        load_pool(tmp_path)


def test_a_pattern_filed_under_the_wrong_capability_is_rejected(tmp_path: Path) -> None:
    data = _one_pattern()
    data["capability"] = "skill_use"
    with pytest.raises(PatternPoolError, match="capability"):
        load_pattern_file(_write(tmp_path, data))

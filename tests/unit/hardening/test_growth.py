"""Pool growth from hardening diagnoses: new patterns added, variants merged, duplicates rejected."""

from __future__ import annotations

from pattern_samples import NEW

from skill2env.hardening.growth import GrowthAction, grow_pool
from skill2env.patterns.pool import seed_pool


def test_a_new_challenge_is_added_with_lineage() -> None:
    pool = seed_pool()
    growth = grow_pool(pool, NEW, diagnosis="diag-42", parent="corrupted_input_repair")
    assert growth.action == GrowthAction.added
    added = growth.pool["checksum_manifest_mismatch"]
    assert added.origin.kind == "hardening"
    assert added.origin.parent == "corrupted_input_repair" and added.origin.diagnosis == "diag-42"
    assert len(growth.pool) == len(pool) + 1
    assert growth.pool.sources["checksum_manifest_mismatch"] == "diagnosis:diag-42"


def test_a_restated_pattern_is_rejected_as_a_duplicate() -> None:
    pool = seed_pool()
    copy = pool["running_totals"].model_copy(update={"id": "cumulative_balance_drift"})
    growth = grow_pool(pool, copy, diagnosis="diag-7")
    assert growth.action == GrowthAction.rejected
    assert growth.nearest == "running_totals"
    assert growth.pool is pool


def test_a_close_variant_is_merged_and_versioned() -> None:
    pool = seed_pool()
    base = pool["running_totals"]
    # Same challenge and evidence as running_totals, built from other artifacts: a variant, not a new pattern.
    variant = NEW.model_copy(update={"id": "running_totals_variant", "description": base.description,
                                     "evidence": base.evidence})  # fmt: skip
    growth = grow_pool(pool, variant, diagnosis="diag-9", parent="running_totals")
    assert growth.action == GrowthAction.merged, growth.reason
    assert growth.nearest == "running_totals"
    merged = growth.pool["running_totals"]
    assert merged.version == base.version + 1
    assert set(NEW.construction.workspace) <= set(merged.construction.workspace)
    assert "running_totals_variant" not in growth.pool


def test_an_id_already_in_the_pool_is_rejected() -> None:
    pool = seed_pool()
    growth = grow_pool(pool, NEW.model_copy(update={"id": "running_totals"}), diagnosis="diag-1")
    assert growth.action == GrowthAction.rejected

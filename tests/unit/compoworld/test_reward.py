"""The group reward, on groups computed by hand."""

from __future__ import annotations

import pytest

from skill2env.compoworld.reward import group_reward, pass_rates


def test_pass_rates_are_item_means() -> None:
    group = [{"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 1.0}, {"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 0.0}]
    assert pass_rates(group) == {"a": 0.75, "b": 0.25}


def test_low_pass_rate_items_weigh_more() -> None:
    # a passes in 3 of 4 attempts, b in 1 of 4; equal base weights, floor 0.1, power 1:
    # e_a = 0.5 · (1 − 0.75 + 0.1) = 0.175, e_b = 0.5 · (1 − 0.25 + 0.1) = 0.425, Σ = 0.6
    # ŵ_a = 0.175 / 0.6 = 0.291666…, ŵ_b = 0.425 / 0.6 = 0.708333…
    group = [{"a": 1.0, "b": 0.0}, {"a": 1.0, "b": 1.0}, {"a": 0.0, "b": 0.0}, {"a": 1.0, "b": 0.0}]
    result = group_reward(group, {"a": 0.5, "b": 0.5})
    assert result.weights == pytest.approx({"a": 0.175 / 0.6, "b": 0.425 / 0.6})
    assert result.rewards == pytest.approx([0.175 / 0.6, 1.0, 0.0, 0.175 / 0.6])
    # the attempt that solved the hard item gains most; mean 0.395833…, population std 0.355…
    mean = (2 * 0.175 / 0.6 + 1.0) / 4
    std = (sum((r - mean) ** 2 for r in result.rewards) / 4) ** 0.5
    assert result.advantages == pytest.approx([(r - mean) / std for r in result.rewards])
    assert result.advantages[1] == max(result.advantages)


def test_base_weights_still_count() -> None:
    # Same pass rates (0.5 each) → ŵ = the base weights, reward = the rubric score.
    group = [{"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 1.0}]
    result = group_reward(group, {"a": 0.8, "b": 0.2})
    assert result.weights == pytest.approx({"a": 0.8, "b": 0.2})
    assert result.rewards == pytest.approx([0.8, 0.2])


def test_items_every_attempt_passes_keep_a_floor() -> None:
    # e_a = 1 · (0 + 0.1) = 0.1, e_b = 1 · (1 − 0.5 + 0.1) = 0.6 → ŵ_a = 1/7, ŵ_b = 6/7
    group = [{"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 0.0}]
    result = group_reward(group)
    assert result.weights == pytest.approx({"a": 1 / 7, "b": 6 / 7})
    assert result.rewards == pytest.approx([1.0, 1 / 7])


def test_power_sharpens_and_fractional_scores_count() -> None:
    # p_a = 0.9, p_b = 0.1; power 2: e_a = (0.2)² = 0.04, e_b = (1.0)² = 1.0 → ŵ_b = 1 / 1.04
    group = [{"a": 0.9, "b": 0.2}, {"a": 0.9, "b": 0.0}]
    result = group_reward(group, power=2.0)
    assert result.weights["b"] == pytest.approx(1 / 1.04)
    assert result.rewards[0] == pytest.approx(0.04 / 1.04 * 0.9 + 1 / 1.04 * 0.2)


def test_a_uniform_group_has_no_advantage() -> None:
    result = group_reward([{"a": 1.0}, {"a": 1.0}, {"a": 1.0}])
    assert result.rewards == [1.0, 1.0, 1.0] and result.advantages == [0.0, 0.0, 0.0]


def test_malformed_groups_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        group_reward([])
    with pytest.raises(ValueError, match="different items"):
        group_reward([{"a": 1.0}, {"b": 1.0}])
    with pytest.raises(ValueError, match="outside"):
        group_reward([{"a": 1.5}])
    with pytest.raises(ValueError, match="different items"):
        group_reward([{"a": 1.0}], {"a": 0.5, "b": 0.5})

"""Value comparison: numbers in their many spellings, tolerances, dates, case and whitespace."""

from __future__ import annotations

import math

import pytest

from skill2env.rubric.checks.base import CheckSpecError
from skill2env.rubric.checks.values import Comparison, as_date, as_number, comparison_from, values_equal


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("42", 42.0),
        ("-3.5", -3.5),
        ("1,425.00", 1425.0),
        ("$12.50", 12.5),
        ("-$7", -7.0),
        ("(30)", -30.0),
        ("7%", 7.0),
        ("1e3", 1000.0),
        (" 27.50 ", 27.5),
        (".5", 0.5),
    ],
)
def test_numeric_spellings_are_read(text: str, number: float) -> None:
    assert as_number(text) == number


@pytest.mark.parametrize("text", ["", "abc", "1,2,3", "12,34", "1.2.3", "--1", "true"])
def test_non_numbers_are_not_read_as_numbers(text: str) -> None:
    assert as_number(text) is None


def test_booleans_are_not_numbers() -> None:
    assert as_number(True) is None
    assert not values_equal(True, 1, Comparison())
    assert values_equal(True, "true", Comparison())


def test_tolerances() -> None:
    assert values_equal("27.5", "27.50", Comparison())
    assert not values_equal(27.5, 27.51, Comparison())
    assert values_equal(27.5, 27.51, Comparison(abs_tolerance=0.01))
    assert values_equal(1000, 1009, Comparison(rel_tolerance=0.01))
    assert not values_equal(1000, 1011, Comparison(rel_tolerance=0.01))
    assert not values_equal(math.nan, math.nan, Comparison())


def test_numbers_off_compares_text() -> None:
    assert not values_equal("27.5", "27.50", Comparison(numbers=False))


def test_dates_in_common_spellings_normalise_to_iso() -> None:
    comparison = Comparison(dates=True)
    assert values_equal("2025-01-03", "01/03/2025", comparison)
    assert values_equal("2025-01-03", "3 Jan 2025", comparison)
    assert values_equal("2025-01-03", "January 3, 2025", comparison)
    assert not values_equal("2025-01-03", "2025-01-04", comparison)
    assert as_date("2025-01-03T10:00:00", ("%Y-%m-%dT%H:%M:%S",)) == "2025-01-03T10:00:00"
    day_first = Comparison(dates=True, date_formats=("%d/%m/%Y", "%Y-%m-%d"))
    assert values_equal("2025-03-01", "01/03/2025", day_first)


def test_case_and_whitespace() -> None:
    assert not values_equal("South", "south", Comparison())
    assert values_equal("South ", "south", Comparison(case=True, whitespace=True))
    assert values_equal(None, "", Comparison())


def test_comparison_params_are_validated() -> None:
    with pytest.raises(CheckSpecError):
        comparison_from({"normalize": ["colour"]})
    with pytest.raises(CheckSpecError):
        comparison_from({"tolerance": -1})
    with pytest.raises(CheckSpecError):
        comparison_from({"tolerance": "small"})
    assert comparison_from({"tolerance": 1}).abs_tolerance == 1.0

"""Values are found whatever their spelling: numbers, dates, case and whitespace normalised."""

from __future__ import annotations

import pytest

from skill2env.tasks.normalize import Haystack, ValueKind, find, needle


@pytest.mark.parametrize("spelling", ["1,425.00", "1425", "1.425,00", "1425.0", "EUR 1,425.00", "1425 EUR", "$1,425"])
@pytest.mark.parametrize("value", [1425, 1425.0, "1425.00", "1,425.00"])
def test_a_number_is_found_in_every_spelling(value: object, spelling: str) -> None:
    assert find(needle(value), Haystack.of([f"Total due: {spelling} (net)"]))


@pytest.mark.parametrize("spelling", ["2024-03-05", "05/03/2024", "March 5, 2024", "5 March 2024", "05-Mar-2024"])
def test_a_date_is_found_in_every_spelling(spelling: str) -> None:
    assert find(needle("2024-03-05"), Haystack.of([f"Workshop on {spelling}."]))


def test_text_ignores_case_whitespace_and_markup() -> None:
    hay = Haystack.of(["The agreement **NW-2023-118**  was\tsigned"])
    assert find(needle("nw-2023-118"), hay)
    assert find(needle("agreement nw-2023-118 was signed"), hay)


def test_numbers_and_words_do_not_match_inside_longer_ones() -> None:
    hay = Haystack.of(["Order 14250 of INV-2024-0311, paid 11425.00"])
    assert not find(needle(1425), hay)
    assert not find(needle("INV-2024-031"), hay)
    assert find(needle("INV-2024-0311"), hay)


def test_cells_are_read_one_by_one() -> None:
    assert find(needle("1,425.00"), Haystack.of(["a", "1,425.00", "b"]))
    assert not find(needle(1425), Haystack.of(["1", "425.00"]))


@pytest.mark.parametrize("value", [None, True, 3, 12, 0.5, "yes", "EU"])
def test_short_and_common_values_are_not_checkable(value: object) -> None:
    target = needle(value)
    assert target.kind == ValueKind.unchecked and target.why_unchecked


def test_value_kinds() -> None:
    assert needle("12.5%").kind == ValueKind.number
    assert needle("March 5, 2024").kind == ValueKind.date
    assert needle("ABC123").kind == ValueKind.text
    assert needle("TRV-0207").kind == ValueKind.text


def test_a_list_is_found_when_every_checkable_part_is() -> None:
    rates = needle("SC=130.00, EN=115.00; AN=65.00")
    assert rates.kind == ValueKind.all_of and len(rates.parts) == 2  # 65.00 has too few digits to count
    assert find(rates, Haystack.of(["Senior consultant (SC): EUR 130", "Engineer: 115.00 per hour"]))
    assert not find(rates, Haystack.of(["Senior consultant (SC): EUR 130"]))
    assert needle("March 5, 2024").kind == ValueKind.date  # a date is not a list
    assert needle("yes, no").kind == ValueKind.unchecked

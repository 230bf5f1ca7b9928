"""Comparing single values the way people mean them: numbers within a tolerance, dates in any
common spelling, case and whitespace optionally ignored."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .base import CheckSpecError, param, string_list

NORMALIZATIONS = ("case", "whitespace", "dates", "numbers")
DEFAULT_DATE_FORMATS = (
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%Y%m%d",
    "%d.%m.%Y",
    "%m/%d/%Y",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%d %H:%M",
)
"""Tried in order by the `dates` normalisation (`%m/%d/%Y` before any day-first slash form; a
task with day-first dates passes its own `date_formats`)."""
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")
_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$")
_INTEGER = re.compile(r"^[+-]?\d+$")
MAX_INTEGER_DIGITS = 4000
"""Longer integer strings are read as floats: `int()` refuses more than 4300 digits by default."""
_CURRENCY = "$€£¥"


@dataclass(frozen=True)
class Comparison:
    """How two values are compared; built from a check's params by `comparison_from`."""

    abs_tolerance: float = 0.0
    rel_tolerance: float = 0.0
    case: bool = False
    whitespace: bool = False
    dates: bool = False
    numbers: bool = True
    """Numeric-looking strings compare as numbers ("27.5" equals "27.50")."""
    date_formats: tuple[str, ...] = DEFAULT_DATE_FORMATS

    def equal(self, expected: Any, actual: Any) -> bool:
        return values_equal(expected, actual, self)


def comparison_from(params: Mapping[str, Any]) -> Comparison:
    """Params `tolerance` (absolute), `relative_tolerance`, `normalize` (list of case, whitespace,
    dates, numbers; numbers is on unless `numeric` is false) and `date_formats`."""
    normalize = string_list(params, "normalize")
    unknown = sorted(set(normalize) - set(NORMALIZATIONS))
    if unknown:
        raise CheckSpecError(f"unknown normalisations {unknown}; use {list(NORMALIZATIONS)}")
    tolerance = param(params, "tolerance", float, 0.0)
    relative = param(params, "relative_tolerance", float, 0.0)
    if not (math.isfinite(tolerance) and math.isfinite(relative)) or tolerance < 0 or relative < 0:
        raise CheckSpecError("tolerances must be finite numbers, not negative")
    formats = tuple(string_list(params, "date_formats")) or DEFAULT_DATE_FORMATS
    return Comparison(
        abs_tolerance=tolerance,
        rel_tolerance=relative,
        case="case" in normalize,
        whitespace="whitespace" in normalize,
        dates="dates" in normalize,
        numbers=param(params, "numeric", bool, True),
        date_formats=formats,
    )


COMPARISON_PARAMS = ("tolerance", "relative_tolerance", "normalize", "numeric", "date_formats")


def as_integer(value: Any) -> int | None:
    """An exact integer from an int or a plain integer string ("-42"); None for anything else
    (booleans, floats, "4.0", grouped or currency spellings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) > MAX_INTEGER_DIGITS or not _INTEGER.match(text):
        return None
    try:
        return int(text)
    except ValueError:  # an interpreter with a lower int-string limit
        return None


def as_number(value: Any) -> float | None:
    """A number from a JSON number or a numeric-looking string ("1,425.00", "$12", "7%" → 7);
    None for anything else (booleans included). An integer beyond float's range is ±inf, which
    `numbers_close` never finds equal to anything."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    if isinstance(value, (float, Decimal)):
        try:
            return float(value)
        except (ValueError, OverflowError):  # a signalling NaN
            return None
    if not isinstance(value, str):
        return None
    if _NUMBER.match(value):  # the common case: a plain number, nothing to normalise
        return float(value)
    head = value.lstrip()[:1]
    if head.isalpha() or not head:
        return None
    text = value.strip().replace("\u00a0", "").replace(" ", "")
    if text.endswith("%"):
        text = text[:-1]
    negative = text.startswith("(") and text.endswith(")")
    if negative:
        text = text[1:-1]
    sign = ""
    if text[:1] in ("+", "-"):
        sign, text = text[0], text[1:]
    text = text.lstrip(_CURRENCY)
    if not sign and text[:1] in ("+", "-"):
        sign, text = text[0], text[1:]
    text = sign + text
    if _GROUPED.match(text):
        text = text.replace(",", "")
    if not _NUMBER.match(text):
        return None
    number = float(text)
    return -number if negative else number


def numbers_close(expected: float, actual: float, comparison: Comparison) -> bool:
    """Within tolerance (plus float noise of 1e-12 relative). NaN and ±inf equal nothing, not
    even themselves: no answer is right because it is undefined or overflowed, and under a
    relative tolerance an infinite value would be "close" to anything."""
    if not (math.isfinite(expected) and math.isfinite(actual)):
        return False
    allowed = max(comparison.abs_tolerance, comparison.rel_tolerance * abs(expected))
    return abs(expected - actual) <= allowed + 1e-12 * max(1.0, abs(expected))


def integers_close(expected: int, actual: int, comparison: Comparison) -> bool:
    """Exact integers within tolerance, in exact arithmetic: floats would call 2**53 + 1 equal to
    2**53 and overflow past 1e308."""
    difference = abs(expected - actual)
    if difference == 0:
        return True
    allowed = max(Fraction(comparison.abs_tolerance), Fraction(comparison.rel_tolerance) * abs(expected))
    return difference <= allowed


def as_date(text: str, formats: Sequence[str]) -> str | None:
    """The ISO form of a date (or date-time) written in one of `formats`."""
    candidate = text.strip()
    for form in formats:
        try:
            parsed = datetime.strptime(candidate, form)
        except ValueError:
            continue
        if parsed.hour or parsed.minute or parsed.second or "%H" in form:
            return parsed.isoformat()
        return parsed.date().isoformat()
    return None


def normalized_text(value: str, comparison: Comparison) -> str:
    if comparison.whitespace:
        value = " ".join(value.split())
    if comparison.dates:
        date = as_date(value, comparison.date_formats)
        if date is not None:
            return date
    if comparison.case:
        value = value.casefold()
    return value


def values_equal(expected: Any, actual: Any, comparison: Comparison) -> bool:
    """Scalars: numbers within tolerance, strings after normalisation. Containers: `json_equals`."""
    if expected is None or actual is None:
        return _blank(expected) and _blank(actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        if isinstance(expected, bool) and isinstance(actual, bool):
            return expected == actual
        return normalized_text(str(expected), comparison).lower() == normalized_text(str(actual), comparison).lower()
    if comparison.numbers:
        exact_left, exact_right = as_integer(expected), as_integer(actual)
        if exact_left is not None and exact_right is not None:
            return integers_close(exact_left, exact_right, comparison)
        left, right = as_number(expected), as_number(actual)
        if left is not None and right is not None:
            return numbers_close(left, right, comparison)
    if isinstance(expected, (int, float)) or isinstance(actual, (int, float)):
        if not comparison.numbers:
            return str(expected) == str(actual)
        return False
    return normalized_text(str(expected), comparison) == normalized_text(str(actual), comparison)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())

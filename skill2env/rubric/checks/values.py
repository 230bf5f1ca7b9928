"""Comparing single values the way people mean them: numbers within a tolerance, dates in any
common spelling, case and whitespace optionally ignored."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
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
    if tolerance < 0 or relative < 0:
        raise CheckSpecError("tolerances must not be negative")
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


def as_number(value: Any) -> float | None:
    """A number from a JSON number or a numeric-looking string ("1,425.00", "$12", "7%" → 7);
    None for anything else (booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        return float(value)
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
    if math.isnan(expected) or math.isnan(actual):
        return math.isnan(expected) and math.isnan(actual)
    allowed = max(comparison.abs_tolerance, comparison.rel_tolerance * abs(expected))
    return abs(expected - actual) <= allowed + 1e-12 * max(1.0, abs(expected))


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

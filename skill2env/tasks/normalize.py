"""Compare values the way a reader would: numbers, dates, case and whitespace normalised.

A fact's value may be written `1,425.00`, `1425`, `1.425,00` or `1425.0`, and a date
`2024-03-05`, `05/03/2024` or `March 5, 2024`. `Haystack` holds a document's text with every
number and date it mentions read in each plausible way; `find(value, haystack)` says whether
the value appears in any of its spellings. Ambiguous spellings count every reading (a
presence check is then lenient, a leak check conservative — both what one wants).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from enum import StrEnum

MIN_NUMBER_DIGITS = 3
"""A number with fewer significant digits (3, 12, 0.5) appears everywhere by chance: not checkable."""
MIN_TEXT_CHARS = 4
"""Normalised text shorter than this ("yes", "EU") is not checkable either."""

_NUMBER = re.compile(
    r"(?<![^\W_])(?<![.,])\d{1,3}(?:[,.\u00a0\u202f']\d{3})+(?:[.,]\d+)?(?!\d)|(?<![^\W_])\d+(?:[.,]\d+)?"
)
"""A number not glued to a letter or digit before it (`_` separates, as in file names)."""
_GROUPED = re.compile(r"^\d{1,3}(?:([,.\u00a0\u202f'])\d{3})+$")
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC_DATE = re.compile(r"(?<!\d)(\d{1,2})[-/.](\d{1,2})[-/.](\d{4}|\d{2})(?!\d)")
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_DAY_FIRST = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?[\s-]+{_MONTH}[\s,-]+(\d{{4}})\b", re.IGNORECASE)
_CURRENCY = re.compile(r"^(?:[$€£¥]|[A-Z]{3}\s)?\s*(.+?)\s*(?:%|[$€£¥]|\s[A-Z]{3})?$")
_MARKUP = re.compile(r"[*_`|#>~]+")
_LIST_SEPARATOR = re.compile(r"[,;]\s+")
"""Between the values of a list written as text: a comma or semicolon and a space (`1,425` is a number)."""


class ValueKind(StrEnum):
    number = "number"
    date = "date"
    text = "text"
    all_of = "all_of"
    """A list of values (`SC=130.00, EN=115.00`, `INV-1, INV-2`): found when every checkable part is."""
    unchecked = "unchecked"
    """Booleans, None, and values too short or too common to mean anything when found."""


@dataclass(frozen=True)
class Needle:
    """A value prepared for searching: its kind and every canonical form it may take."""

    raw: object
    kind: ValueKind
    forms: frozenset[str]
    why_unchecked: str = ""
    parts: tuple[Needle, ...] = ()
    """The checkable parts of an `all_of` needle."""


@dataclass
class Haystack:
    """Everything a document says, canonicalised: text, the numbers and the dates it mentions."""

    text: str = ""
    numbers: set[str] = field(default_factory=set)
    dates: set[str] = field(default_factory=set)

    @classmethod
    def of(cls, segments: Iterable[str]) -> Haystack:
        hay = cls()
        hay.add(segments)
        return hay

    def add(self, segments: Iterable[str]) -> None:
        parts = [self.text] if self.text else []
        for segment in segments:
            parts.append(normalise_text(segment))
            self.numbers |= numbers_in(segment)
            self.dates |= dates_in(segment)
        self.text = "\n".join(parts)


def normalise_text(text: str) -> str:
    """Case-folded, NFKC, markup punctuation dropped, numbers in one spelling, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _MARKUP.sub(" ", text)
    text = _NUMBER.sub(lambda m: _first_reading(m.group(0)), text)
    return " ".join(text.split())


def canonical_number(value: Decimal) -> str:
    """`Decimal('1425.00')` → `1425`, `Decimal('-0.50')` → `0.5` (sign dropped: a leak is a leak)."""
    text = format(abs(value), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def number_readings(token: str) -> set[str]:
    """Every plausible value of one number as written: `1,425` → {1425, 1.425}; `1.425,00` → {1425}."""
    token = token.strip()
    readings: set[str] = set()
    grouped = _GROUPED.match(token)
    if grouped:
        readings.add(_decimal_text(re.sub(r"\D", "", token)))
        if grouped.group(1) in ",." and token.count(grouped.group(1)) == 1:
            readings.add(_decimal_text(token.replace(grouped.group(1), ".")))
        return {r for r in readings if r}
    commas, dots = token.count(","), token.count(".")
    if commas and dots:
        decimal_mark = "," if token.rfind(",") > token.rfind(".") else "."
        grouping = "." if decimal_mark == "," else ","
        readings.add(_decimal_text(token.replace(grouping, "").replace(decimal_mark, ".")))
    elif commas == 1:
        readings.add(_decimal_text(token.replace(",", ".")))
    elif dots <= 1 and not commas:
        readings.add(_decimal_text(token))
    else:
        readings.add(_decimal_text(re.sub(r"[^\d]", "", token)))
    return {r for r in readings if r}


def numbers_in(text: str) -> set[str]:
    found: set[str] = set()
    for match in _NUMBER.finditer(text):
        found |= number_readings(match.group(0))
    return found


def dates_in(text: str) -> set[str]:
    """ISO dates of every date the text mentions, in each reading (05/03/2024 → 5 March and 3 May)."""
    text = unicodedata.normalize("NFKC", text)
    found: set[str] = set()
    for year, month, day in _ISO_DATE.findall(text):
        found |= _iso(int(year), int(month), int(day))
    for first, second, year in _NUMERIC_DATE.findall(text):
        full_year = int(year) + (2000 if len(year) == 2 else 0)
        found |= _iso(full_year, int(second), int(first)) | _iso(full_year, int(first), int(second))
    for month, day, year in _MONTH_FIRST.findall(text):
        found |= _iso(int(year), _MONTHS[month.lower()], int(day))
    for day, month, year in _DAY_FIRST.findall(text):
        found |= _iso(int(year), _MONTHS[month.lower()], int(day))
    return found


def needle(value: object) -> Needle:
    """Prepare a fact value (or an expected value) for searching."""
    if value is None or isinstance(value, bool):
        return Needle(value, ValueKind.unchecked, frozenset(), "no value to look for" if value is None else "boolean")
    if isinstance(value, datetime | date):
        day = value.date() if isinstance(value, datetime) else value
        return Needle(value, ValueKind.date, frozenset({day.isoformat()}))
    if isinstance(value, int | float | Decimal):
        forms = {canonical_number(Decimal(str(value)))}
        return _number_needle(value, forms)
    text = str(value).strip()
    whole_date = _whole_date(text)
    if whole_date:
        return Needle(value, ValueKind.date, frozenset(whole_date))
    bare = _CURRENCY.match(text)
    if bare and _NUMBER.fullmatch(bare.group(1)):
        return _number_needle(value, number_readings(bare.group(1)))
    if _LIST_SEPARATOR.search(text):
        return _list_needle(value, text)
    normalised = normalise_text(text)
    if len(normalised) < MIN_TEXT_CHARS:
        return Needle(value, ValueKind.unchecked, frozenset(), f"text shorter than {MIN_TEXT_CHARS} characters")
    return Needle(value, ValueKind.text, frozenset({normalised}))


def find(target: Needle, hay: Haystack) -> bool:
    """Whether `hay` mentions the value in any of its spellings."""
    if target.kind == ValueKind.number:
        return bool(target.forms & hay.numbers)
    if target.kind == ValueKind.date:
        return bool(target.forms & hay.dates)
    if target.kind == ValueKind.text:
        return any(_contains_phrase(hay.text, form) for form in target.forms)
    if target.kind == ValueKind.all_of:
        return all(find(part, hay) for part in target.parts)
    return False


def same_value(a: Needle, b: Needle) -> bool:
    """Two needles that can match the same spelling (used to spot values shared across levels)."""
    return a.kind == b.kind and a.kind != ValueKind.unchecked and bool(a.forms & b.forms)


def _list_needle(value: object, text: str) -> Needle:
    """Each part of a list on its own; of `key=value` parts only the value (the key is a label)."""
    parts = []
    for part in _LIST_SEPARATOR.split(text):
        part = part.split("=", 1)[1] if "=" in part else part
        target = needle(part.strip())
        if target.kind != ValueKind.unchecked:
            parts.append(target)
    if not parts:
        return Needle(value, ValueKind.unchecked, frozenset(), "no part of the list can be looked for")
    if len(parts) == 1:
        return Needle(value, parts[0].kind, parts[0].forms, parts=parts[0].parts)
    return Needle(value, ValueKind.all_of, frozenset(), parts=tuple(parts))


def _contains_phrase(text: str, phrase: str) -> bool:
    """Substring match that does not start or end inside a word or number (`1425` is not in `14250`)."""
    start = 0
    while (index := text.find(phrase, start)) >= 0:
        end = index + len(phrase)
        before = text[index - 1] if index else " "
        after = text[end] if end < len(text) else " "
        if not (_wordish(before) and _wordish(phrase[0])) and not (_wordish(after) and _wordish(phrase[-1])):
            return True
        start = index + 1
    return False


def _wordish(char: str) -> bool:
    return char.isalnum()


def _number_needle(value: object, forms: set[str]) -> Needle:
    forms = {form for form in forms if form}
    if not forms:
        return Needle(value, ValueKind.unchecked, frozenset(), "not a readable number")
    if max(_significant_digits(form) for form in forms) < MIN_NUMBER_DIGITS:
        return Needle(value, ValueKind.unchecked, frozenset(), f"fewer than {MIN_NUMBER_DIGITS} significant digits")
    return Needle(value, ValueKind.number, frozenset(forms))


def _significant_digits(form: str) -> int:
    return len(form.replace(".", "").lstrip("0"))


def _whole_date(text: str) -> set[str]:
    """The readings of `text` when it is nothing but one date."""
    for pattern in (_ISO_DATE, _NUMERIC_DATE, _MONTH_FIRST, _DAY_FIRST):
        if pattern.fullmatch(text.strip().rstrip(".")):
            return dates_in(text)
    return set()


def _first_reading(token: str) -> str:
    """One spelling per number for text comparison: grouped digits read as thousands."""
    if _GROUPED.match(token):
        return _decimal_text(re.sub(r"\D", "", token)) or token
    readings = number_readings(token)
    return min(readings) if readings else token


def _decimal_text(text: str) -> str:
    try:
        return canonical_number(Decimal(text))
    except InvalidOperation:
        return ""


def _iso(year: int, month: int, day: int) -> set[str]:
    try:
        return {date(year, month, day).isoformat()}
    except ValueError:
        return set()

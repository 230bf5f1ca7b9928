"""The linear-time regex engine: the same answers as `re`, bounded work on inputs that make `re`
backtrack for ever, refusal of what cannot run in linear time, and the checks that use it."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rubric_helpers import Run

from skill2env.kits.checks import labelled_number
from skill2env.rubric.checks import safe_regex
from skill2env.rubric.models import Rubric, check_problems

ATOMS = [
    "a",
    "b",
    "A",
    "x",
    " ",
    "\n",
    ".",
    "[ab]",
    "[^a]",
    "[a-c]",
    r"\d",
    r"\w",
    r"\s",
    r"\W",
    r"\b",
    r"\B",
    "^",
    "$",
    r"\A",
    r"\Z",
    "(?!a)",
    "(?=[ac])",
    "(?<=b)",
    r"(?<!\w)",
    "(?i:a)",
    "",
]
QUANTIFIERS = ["*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,3}?", "{2,}"]
ALPHABET = "abAx \n1_é"
FLAGS = [0, re.IGNORECASE, re.MULTILINE, re.DOTALL, re.MULTILINE | re.DOTALL, re.ASCII]


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, inner).map("".join),
        st.tuples(inner, inner).map(lambda pair: f"(?:{pair[0]}|{pair[1]})"),
        inner.map(lambda body: f"({body})"),
        st.tuples(inner, st.sampled_from(QUANTIFIERS)).map(lambda pair: f"(?:{pair[0]}){pair[1]}"),
    )


PATTERNS = st.recursive(st.sampled_from(ATOMS), _extend, max_leaves=6)
TEXTS = st.text(alphabet=ALPHABET, max_size=12)


def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return re.compile(pattern, flags)
    except re.error:
        assume(False)
        raise


def _matches(found: Any) -> list[tuple[tuple[int, int], tuple[Any, ...]]]:
    return [(match.span(), match.groups()) for match in found]


@settings(max_examples=400, deadline=None)
@given(PATTERNS, st.lists(TEXTS, min_size=1, max_size=4), st.sampled_from(FLAGS))
def test_same_answers_as_re(pattern: str, texts: list[str], flags: int) -> None:
    expected = _compiled(pattern, flags)
    safe = safe_regex.compile(pattern, flags)
    for text in texts:
        wanted = expected.search(text)
        got = safe.search(text)
        assert (got is not None) == (wanted is not None), (pattern, text)
        if wanted is not None and got is not None:
            assert got.start() == wanted.start() and got.span() == wanted.span(), (pattern, text)
        assert _matches(safe.iter_matches(text)) == _matches(expected.finditer(text)), (pattern, text)
        whole, safe_whole = expected.fullmatch(text), safe.fullmatch(text)
        assert (safe_whole is None) == (whole is None), (pattern, text)
        if whole is not None and safe_whole is not None:
            assert safe_whole.groups() == whole.groups(), (pattern, text)


class _BackwardOnly(safe_regex.SafePattern):
    """Every start found by the backward pass, as when candidate starts mostly fail."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        super().__init__(pattern, flags)
        self._candidates = None


class _BacktrackingOnly(_BackwardOnly):
    """Every end found the way it is once forward passes have re-read too much."""

    def _forward_end(self, *args: Any) -> Any:
        raise safe_regex._Budget


@settings(max_examples=200, deadline=None)
@given(PATTERNS, TEXTS, st.sampled_from(FLAGS))
def test_each_way_of_finding_matches_gives_re_s_matches(pattern: str, text: str, flags: int) -> None:
    expected = _matches(_compiled(pattern, flags).finditer(text))

    assert _matches(_BackwardOnly(pattern, flags).iter_matches(text)) == expected
    assert _matches(_BacktrackingOnly(pattern, flags).iter_matches(text)) == expected


def test_groups_by_number_and_name() -> None:
    match = safe_regex.compile(r"(?P<whole>\d+)\.(\d+)|(x)").search("v 10.25 x")

    assert match is not None
    assert match.group() == "10.25" and match.group(1, 2) == ("10", "25") and match.group("whole") == "10"
    assert match.group(3) is None and match.span(2) == (5, 7)
    with pytest.raises(IndexError):
        match.group(4)


N = 100_000


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (labelled_number("Balance due", 1234.5), re.IGNORECASE, "Balance due" + " " * N + "x"),
        (r"\s*\s*\s*\s*\s*y", 0, " " * N + "x"),
        (r"(a*)*b", 0, "a" * N),
        (r"(a|aa)*c", 0, "a" * N),
        (r"(x+x+)+y", 0, "x" * N),
        (r"^(\w+\s?)*$", 0, "word " * (N // 5) + "!"),
    ],
)
def test_inputs_that_make_re_backtrack_cost_a_pass_or_two(pattern: str, flags: int, text: str) -> None:
    compiled = safe_regex.compile(pattern, flags)

    assert compiled.search(text) is None
    assert compiled.work.scanned <= 3 * len(text) + safe_regex.FORWARD_BUDGET_SLACK
    assert compiled.work.transitions <= 200 and compiled.work.backtracked == 0


def test_overlapping_forward_passes_hand_over_to_the_backtracker_in_linear_work() -> None:
    compiled = safe_regex.compile(r"a.*z|a")

    assert sum(1 for _ in compiled.iter_spans("a" * N)) == N
    assert compiled.work.scanned <= 5 * N + 2 * safe_regex.FORWARD_BUDGET_SLACK + 4
    assert 0 < compiled.work.backtracked <= 10 * N


def test_a_selective_pattern_skips_most_of_the_text() -> None:
    compiled = safe_regex.compile(r"INV-\d+")
    text = "nothing to see here, " * 5000 + "INV-42"

    assert [match.group() for match in compiled.iter_matches(text)] == ["INV-42"]
    assert compiled.work.scanned < 100


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a)\1", "backreferences"),
        (r"(?P<x>a)(?P=x)", "backreferences"),
        (r"(?=ab)", "lookahead and lookbehind"),
        (r"(?<!ab)c", "lookahead and lookbehind"),
        (r"x(?!\s+or)", "lookahead and lookbehind"),
        (r"(a)?(?(1)b|c)", "conditional groups"),
        (r"a{5000}", "repeat count"),
        (r"(?:[a-z]{1,60}){1,20}", "instructions"),
    ],
)
def test_what_cannot_run_in_linear_time_is_refused(pattern: str, reason: str) -> None:
    with pytest.raises(safe_regex.UnsupportedPattern, match=reason):
        safe_regex.compile(pattern)
    assert reason in (safe_regex.problem(pattern) or "")


@pytest.mark.skipif(not hasattr(re, "NOFLAG"), reason="atomic groups and possessive repeats: Python 3.11+")
def test_atomic_groups_and_possessive_repeats_are_refused() -> None:
    for pattern in (r"(?>a+)b", r"a++b"):
        with pytest.raises(safe_regex.UnsupportedPattern, match=r"atomic|possessive"):
            safe_regex.compile(pattern)


def test_one_character_lookarounds_are_supported() -> None:
    compiled = safe_regex.compile(r"(?<![\d.])\d+(?![0-9])")

    assert [m.group() for m in compiled.iter_matches("12 3.4 56x 7")] == ["12", "3", "56", "7"]
    assert safe_regex.problem("(unclosed") is not None and "does not compile" in safe_regex.problem("(unclosed")


def test_text_matches_counts_with_the_safe_engine(put, run: Run) -> None:
    put("note.md", "Balance due" + " " * N + "x\nBalance due: 1,234.50 EUR\n")

    result = run("text_matches", path="note.md", pattern=labelled_number("Balance due", 1234.5), flags=["IGNORECASE"])
    refused = run("text_matches", path="note.md", pattern=r"(\w)\1")

    assert result.passed and result.evidence["matches"][0]["line"] == 2
    assert refused.error is not None and "backreferences" in refused.error


def test_cross_file_consistent_reads_a_group_with_the_safe_engine(put, run: Run) -> None:
    put("a.md", "Total:" + " " * N + "\nTotal: 42\n")
    put("b.md", "count = 42")

    result = run(
        "cross_file_consistent",
        sources=[{"path": "a.md", "regex": r"^Total:\s*\s*(\d+)$"}, {"path": "b.md", "regex": r"count = (?P<n>\d+)"}],
    )
    refused = run("cross_file_consistent", sources=[{"path": "b.md", "regex": r"(?=count)c"}], expected=1)

    assert result.passed, result.evidence
    assert refused.error is not None and "lookahead" in refused.error


def test_a_refused_pattern_is_a_rubric_problem() -> None:
    item = {"description": "d", "weight": 0.5, "method": "deterministic"}
    rubric = Rubric.model_validate(
        {
            "items": [
                {**item, "id": "a", "check": {"check": "text_matches", "params": {"path": "x", "pattern": r"(a)\1"}}},
                {
                    **item,
                    "id": "b",
                    "check": {"check": "cross_file_consistent", "params": {"sources": [{"path": "x", "regex": "a"}]}},
                },
            ]
        }
    )

    problems = check_problems(rubric)

    assert len(problems) == 1 and problems[0].startswith("a: pattern") and "backreferences" in problems[0]

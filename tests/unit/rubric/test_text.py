"""text_contains / text_matches: phrases, normalisation, regex counts, and excerpts as evidence."""

from __future__ import annotations

from rubric_helpers import Run

REPORT = "# Audit\n\nTotal revenue: 81.00\nThe top region is South.\nInvoice INV-7 was billed twice.\n"


def test_required_phrases_pass_with_their_line_and_excerpt(put, run: Run) -> None:
    put("report.md", REPORT)

    result = run("text_contains", path="report.md", contains=["Total revenue: 81.00", "INV-7"])

    assert result.passed
    found = {f["phrase"]: f for f in result.evidence["found"]}
    assert found["INV-7"]["line"] == 5
    assert "⟦INV-7⟧" in found["INV-7"]["excerpt"]


def test_a_missing_phrase_and_a_forbidden_one_are_both_reported(put, run: Run) -> None:
    put("report.md", REPORT)

    result = run("text_contains", path="report.md", contains=["INV-9"], absent=["billed twice"])

    assert not result.passed
    assert result.evidence["missing"] == ["INV-9"]
    assert result.evidence["forbidden_present"] == ["billed twice"]
    assert "missing 'INV-9'" in result.evidence["summary"]


def test_case_and_whitespace_can_be_ignored(put, run: Run) -> None:
    put("report.md", REPORT)

    assert not run("text_contains", path="report.md", contains="top region is south").passed
    assert run(
        "text_contains",
        path="report.md",
        contains="TOP   region is\nsouth",
        ignore_case=True,
        normalize_whitespace=True,
    ).passed


def test_text_contains_needs_something_to_look_for(put, run: Run) -> None:
    put("report.md", REPORT)

    assert run("text_contains", path="report.md").error is not None
    assert run("text_contains", path="report.md", contains=3).error is not None


def test_non_utf8_and_missing_files_fail(put, run: Run) -> None:
    put("latin.txt", "café".encode("latin-1"))

    assert (
        run("text_contains", path="latin.txt", contains="caf").evidence["summary"].startswith("latin.txt is not UTF-8")
    )
    assert run("text_contains", path="nope.txt", contains="x").status == "failed"


def test_a_file_over_the_size_cap_fails_rather_than_being_read(put, run: Run) -> None:
    put("big.txt", "x" * 5000)

    result = run("text_contains", path="big.txt", contains="x", max_bytes=1000)

    assert not result.passed and "5000 bytes" in result.evidence["summary"]


def test_regex_counts_are_bounded(put, run: Run) -> None:
    put("report.md", REPORT)

    assert run("text_matches", path="report.md", pattern=r"INV-\d+").passed
    assert run("text_matches", path="report.md", pattern=r"^the top", flags=["IGNORECASE", "MULTILINE"]).passed
    result = run("text_matches", path="report.md", pattern=r"\d", max_count=2)
    assert not result.passed and result.evidence["summary"].startswith("5 match(es)")
    assert len(result.evidence["matches"]) == 5


def test_full_match_and_bad_patterns(put, run: Run) -> None:
    put("id.txt", "INV-0042")

    assert run("text_matches", path="id.txt", pattern=r"INV-\d{4}", full_match=True).passed
    assert not run("text_matches", path="id.txt", pattern=r"INV-\d{3}", full_match=True).passed
    assert run("text_matches", path="id.txt", pattern="(unclosed").error is not None
    assert run("text_matches", path="id.txt", pattern="x", flags=["WHATEVER"]).error is not None

"""csv_equals: every option the issue names, the expected-table spellings, and the diff as evidence."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from rubric_helpers import Run

EXPECTED = {"columns": ["region", "revenue"], "rows": [["east", 11.0], ["north", 27.5], ["south", 42.5]]}
GOOD = "region,revenue\neast,11.00\nnorth,27.50\nsouth,42.50\n"


def test_an_equal_table_passes(put, run: Run) -> None:
    put("out.csv", GOOD)

    result = run("csv_equals", path="out.csv", expected=EXPECTED)

    assert result.passed, result.evidence
    assert result.evidence["summary"] == "equal: 3 rows × 2 columns"
    assert result.evidence["differences"] == 0


def test_a_wrong_cell_is_named_by_row_and_column(put, run: Run) -> None:
    put("out.csv", GOOD.replace("27.50", "28.00"))

    result = run("csv_equals", path="out.csv", expected=EXPECTED)

    assert not result.passed
    assert result.evidence["diff"] == ["row 2 column 'revenue': expected 27.5, got \"28.00\""]
    assert "3 rows" in result.evidence["compared"]["actual"]


def test_numeric_tolerance(put, run: Run) -> None:
    put("out.csv", GOOD.replace("27.50", "27.504"))

    assert not run("csv_equals", path="out.csv", expected=EXPECTED).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, tolerance=0.005).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, relative_tolerance=0.001).passed


def test_column_order(put, run: Run) -> None:
    put("out.csv", "revenue,region\n11,east\n27.5,north\n42.5,south\n")

    strict = run("csv_equals", path="out.csv", expected=EXPECTED)
    assert not strict.passed
    assert strict.evidence["diff"] == ["column order: expected ['region', 'revenue'], got ['revenue', 'region']"]
    assert run("csv_equals", path="out.csv", expected=EXPECTED, ignore_column_order=True).passed


def test_row_order(put, run: Run) -> None:
    put("out.csv", "region,revenue\nsouth,42.5\neast,11\nnorth,27.5\n")

    assert not run("csv_equals", path="out.csv", expected=EXPECTED).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_order=True).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_order=True, tolerance=0.01).passed


def test_row_order_with_tolerance_pairs_near_rows(put, run: Run) -> None:
    put("out.csv", "region,revenue\nsouth,42.501\neast,10.999\nnorth,27.5\n")

    assert not run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_order=True).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_order=True, tolerance=0.01).passed


def test_unordered_rows_report_missing_and_unexpected(put, run: Run) -> None:
    put("out.csv", "region,revenue\nsouth,42.5\neast,11\nwest,1\n")

    result = run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_order=True)

    assert result.evidence["diff"] == ['expected row not found: ["north", 27.5]', 'unexpected row: ["west", "1"]']


def test_key_columns_match_rows_by_key(put, run: Run) -> None:
    put("out.csv", "region,revenue\nsouth,42.5\nnorth,27.0\nwest,3\n")

    result = run("csv_equals", path="out.csv", expected=EXPECTED, key_columns=["region"])

    assert not result.passed
    assert result.evidence["diff"] == [
        "missing row (region=east)",
        "row (region=north) column 'revenue': expected 27.5, got \"27.0\"",
        "unexpected row (region=west)",
    ]
    assert run("csv_equals", path="out.csv", expected=EXPECTED, key_columns=["nope"]).error is not None


def test_duplicate_keys_fail(put, run: Run) -> None:
    put("out.csv", GOOD + "east,11.00\n")

    result = run("csv_equals", path="out.csv", expected=EXPECTED, key_columns=["region"])

    assert not result.passed and "duplicate key (region=east)" in result.evidence["diff"]


def test_normalised_case_whitespace_and_dates(put, run: Run) -> None:
    expected = {"columns": ["Name", "Date"], "rows": [["Ada Lovelace", "2025-01-03"]]}
    put("out.csv", "name,date\n  ada  LOVELACE ,01/03/2025\n")

    assert not run("csv_equals", path="out.csv", expected=expected).passed
    assert run("csv_equals", path="out.csv", expected=expected, normalize=["case", "whitespace", "dates"]).passed


def test_extra_and_missing_columns_and_rows(put, run: Run) -> None:
    put("out.csv", "region,revenue,note\neast,11,a\nnorth,27.5,b\nsouth,42.5,c\nwest,0,d\n")

    result = run("csv_equals", path="out.csv", expected=EXPECTED)
    assert "unexpected column(s) ['note']" in result.evidence["diff"]
    assert 'row 4 unexpected: ["west", "0"]' in result.evidence["diff"]
    assert run("csv_equals", path="out.csv", expected=EXPECTED, allow_extra_columns=True, allow_extra_rows=True).passed
    assert run("csv_equals", path="out.csv", expected=EXPECTED, columns=["region"], allow_extra_rows=True).passed

    put("out.csv", "region\neast\n")
    missing = run("csv_equals", path="out.csv", expected=EXPECTED)
    assert "missing column 'revenue'" in missing.evidence["diff"]
    assert 'row 2 missing: expected ["north"]' in missing.evidence["diff"]


def test_expected_as_records_csv_text_or_a_file_shipped_with_the_verifier(put, run: Run, tmp_path: Path) -> None:
    put("out.csv", GOOD)
    records = [{"region": r, "revenue": v} for r, v in EXPECTED["rows"]]
    (tmp_path / "tests" / "expected.csv").write_text(GOOD)

    assert run("csv_equals", path="out.csv", expected=records).passed
    assert run("csv_equals", path="out.csv", expected_csv=GOOD).passed
    assert run("csv_equals", path="out.csv", expected_file="expected.csv").passed
    assert run("csv_equals", path="out.csv").error is not None
    assert run("csv_equals", path="out.csv", expected=EXPECTED, expected_csv=GOOD).error is not None
    assert run("csv_equals", path="out.csv", expected_file="absent.csv").error is not None


def test_tsv_bom_crlf_and_short_rows(put, run: Run) -> None:
    put("out.tsv", "\ufeffregion\trevenue\r\neast\t11\r\nnorth\t27.5\r\nsouth\t42.5\r\n")

    assert run("csv_equals", path="out.tsv", expected=EXPECTED).passed

    put("out.csv", "region,revenue\neast\nnorth,27.5\nsouth,42.5\n")
    result = run("csv_equals", path="out.csv", expected=EXPECTED)
    assert result.evidence["diff"] == ["row 1 column 'revenue': expected 11.0, got \"\""]


def test_an_empty_missing_or_binary_file_fails(put, run: Run) -> None:
    put("empty.csv", "")
    put("binary.csv", b"\xff\xfe\x00\x01")

    empty = run("csv_equals", path="empty.csv", expected=EXPECTED)
    assert empty.status == "failed" and "missing column 'region'" in empty.evidence["diff"]
    assert run("csv_equals", path="none.csv", expected=EXPECTED).status == "failed"
    assert run("csv_equals", path="binary.csv", expected=EXPECTED).status == "failed"


def test_an_xlsx_sheet_is_read(ws: Path, run: Run) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Revenue"
    for row in [["region", "revenue"], ["east", 11], ["north", 27.5], ["south", 42.5]]:
        sheet.append(row)
    book.save(ws / "out.xlsx")

    assert run("csv_equals", path="out.xlsx", expected=EXPECTED).passed
    assert run("csv_equals", path="out.xlsx", sheet="Revenue", expected=EXPECTED).passed
    assert run("csv_equals", path="out.xlsx", sheet="Other", expected=EXPECTED).status == "failed"


def test_the_diff_is_bounded(put, run: Run) -> None:
    rows = [[str(i), i] for i in range(500)]
    put("out.csv", "k,v\n" + "".join(f"{i},{i + 1}\n" for i in range(500)))

    result = run("csv_equals", path="out.csv", expected={"columns": ["k", "v"], "rows": rows})

    assert not result.passed
    assert len(result.evidence["diff"]) == 20
    assert result.evidence["differences"] > 200


@pytest.mark.parametrize("bad", [{"columns": "x"}, [1, 2], "table"])
def test_a_malformed_expected_table_is_a_spec_error(put, run: Run, bad: object) -> None:
    put("out.csv", GOOD)

    assert run("csv_equals", path="out.csv", expected=bad).error is not None


def test_unknown_params_are_a_spec_error(put, run: Run) -> None:
    put("out.csv", GOOD)

    result = run("csv_equals", path="out.csv", expected=EXPECTED, ignore_row_ordr=True)

    assert result.error is not None and "ignore_row_ordr" in (result.error or "")

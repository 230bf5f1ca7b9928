"""spreadsheet: tabs, rows, cells, totals and ledger rows."""

from __future__ import annotations

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.services.sheets import Spreadsheet
from skill2env.compoworld.services.tests.support import fresh, raises


def test_list_and_read() -> None:
    sheets, _ = fresh(Spreadsheet)
    names = {s["name"] for s in sheets.call("list_sheets", {})}
    assert {"Refund log", "Expenses", "Stock count"} <= names
    assert sheets.call("read_sheet", {"sheet": "Expenses"})["columns"] == [
        "date",
        "reference",
        "amount",
        "currency",
        "memo",
    ]
    with raises(NotFound, "sheets:"):
        sheets.call("read_sheet", {"sheet": "Budget"})


def test_create_append_update_and_find() -> None:
    sheets, _ = fresh(Spreadsheet)
    sheets.call("create_sheet", {"name": "Returns", "columns": ["order", "status"]})
    with raises(Conflict):
        sheets.call("create_sheet", {"name": "Returns", "columns": ["x"]})
    with raises(InvalidArgument):
        sheets.call("create_sheet", {"name": "Dupes", "columns": ["a", "a"]})
    row = sheets.call("append_row", {"sheet": "Returns", "values": {"order": "ORD-1001"}})
    assert row == {"row": 1, "values": {"order": "ORD-1001", "status": ""}}
    with raises(InvalidArgument, "unknown columns"):
        sheets.call("append_row", {"sheet": "Returns", "values": {"colour": "red"}})
    sheets.call("update_cell", {"sheet": "Returns", "row": 1, "column": "status", "value": "received"})
    assert sheets.call("find_rows", {"sheet": "Returns", "column": "status", "value": "RECEIVED"})[0]["row"] == 1
    with raises(NotFound, "rows 1 to 1"):
        sheets.call("update_cell", {"sheet": "Returns", "row": 2, "column": "status", "value": "x"})


def test_sum_column_skips_text_and_log_amount_writes_a_ledger_row() -> None:
    sheets, _ = fresh(Spreadsheet)
    before = sheets.call("sum_column", {"sheet": "Expenses", "column": "amount"})
    assert before["total"] == "402.40" and before["rows_counted"] == 2
    logged = sheets.call(
        "log_amount", {"sheet": "Expenses", "reference": "PO-1001", "amount": {"amount": "12.5"}, "memo": "filters"}
    )
    assert logged["values"] == {
        "date": "2025-03-03",
        "reference": "PO-1001",
        "amount": "12.50",
        "currency": "USD",
        "memo": "filters",
    }
    assert sheets.call("sum_column", {"sheet": "Expenses", "column": "amount"})["total"] == "414.90"
    with raises(InvalidArgument, "ledger"):
        sheets.call(
            "log_amount", {"sheet": "Stock count", "reference": "PO-1001", "amount": {"amount": "1"}, "memo": "x"}
        )
    assert sheets.call("sum_column", {"sheet": "Stock count", "column": "counted_by"})["rows_counted"] == 0

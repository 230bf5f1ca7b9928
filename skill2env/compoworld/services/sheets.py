"""Spreadsheet: the team's shared workbook — tabs of named columns and rows of text cells."""

from __future__ import annotations

import random
from decimal import Decimal, InvalidOperation
from typing import Any

from pydantic import BaseModel, Field

from skill2env.compoworld.errors import Conflict, InvalidArgument, NotFound
from skill2env.compoworld.service import Service, ServiceState, tool
from skill2env.compoworld.types import Money, Reference, SheetName

LEDGER_COLUMNS = ("date", "reference", "amount", "currency", "memo")
MAX_COLUMNS = 20


class Sheet(BaseModel):
    name: SheetName
    columns: list[str]
    rows: list[dict[str, str]] = Field(default_factory=list)


class SheetInfo(BaseModel):
    name: SheetName
    columns: list[str]
    rows: int


class RowMatch(BaseModel):
    row: int
    """1-based row number (the header is row 0)."""
    values: dict[str, str]


class ColumnTotal(BaseModel):
    sheet: SheetName
    column: str
    total: str
    rows_counted: int


class SpreadsheetState(ServiceState):
    sheets: dict[str, Sheet] = Field(default_factory=dict)


class Spreadsheet(Service):
    name = "spreadsheet"
    domain = "office"
    description = "A shared workbook of tabs (refund log, expenses, stock counts): read, append, update, total."
    State = SpreadsheetState
    state: SpreadsheetState

    @classmethod
    def fixture(cls, universe: Any) -> SpreadsheetState:
        state = SpreadsheetState(clock=universe.now)
        refund_rows = []
        for placed in [o for o in universe.orders if o.status == "delivered"][:2]:
            refund_rows.append(
                {
                    "date": str(placed.placed_at.date()),
                    "reference": placed.id,
                    "amount": str(placed.lines[0].unit_price),
                    "currency": "USD",
                    "memo": "damaged on arrival",
                }
            )
        state.sheets["Refund log"] = Sheet(name="Refund log", columns=list(LEDGER_COLUMNS), rows=refund_rows)
        state.sheets["Expenses"] = Sheet(
            name="Expenses",
            columns=list(LEDGER_COLUMNS),
            rows=[
                {
                    "date": "2025-02-24",
                    "reference": "PO-0998",
                    "amount": "310.00",
                    "currency": "USD",
                    "memo": "mugs restock",
                },
                {"date": "2025-02-27", "reference": "PO-0999", "amount": "92.40", "currency": "USD", "memo": "filters"},
            ],
        )
        state.sheets["Stock count"] = Sheet(
            name="Stock count",
            columns=["sku", "counted", "counted_by"],
            rows=[
                {"sku": p.sku, "counted": str(p.on_hand), "counted_by": universe.staff[1].handle}
                for p in universe.products[:5]
            ],
        )
        return state

    def sample_arguments(self, tool_name: str, rng: random.Random) -> dict[str, Any]:
        """Plausible free-form arguments (sheet names, columns, row values) for task generation."""
        sheets = sorted(self.state.sheets)
        if not sheets:
            return {}
        name = rng.choice(sheets)
        sheet = self.state.sheets[name]
        column = rng.choice(sheet.columns)
        if tool_name == "append_row":
            return {"sheet": name, "values": {c: self._cell(c, rng) for c in sheet.columns}}
        if tool_name == "update_cell" and sheet.rows:
            return {"sheet": name, "row": rng.randint(1, len(sheet.rows)), "column": column, "value": "checked"}
        if tool_name == "find_rows" and sheet.rows:
            row = rng.choice(sheet.rows)
            return {"sheet": name, "column": column, "value": row.get(column, "")}
        if tool_name == "sum_column":
            return {
                "sheet": rng.choice([s for s in sheets if "amount" in self.state.sheets[s].columns] or sheets),
                "column": "amount",
            }
        if tool_name == "log_amount":
            return {
                "sheet": rng.choice([s for s in sheets if set(LEDGER_COLUMNS) <= set(self.state.sheets[s].columns)])
            }
        return {"sheet": name}

    def _cell(self, column: str, rng: random.Random) -> str:
        """A plausible cell for a column, copied from the tab's rows where it has some."""
        seen = [row[column] for sheet in self.state.sheets.values() for row in sheet.rows if row.get(column)]
        if column == "date":
            return str(self.now.date())
        if column in ("amount", "counted"):
            return f"{rng.randint(3, 90)}.00" if column == "amount" else str(rng.randint(1, 40))
        return rng.choice(seen) if seen else rng.choice(("pending", "checked", "n/a"))

    def _sheet(self, sheet: str) -> Sheet:
        if sheet not in self.state.sheets:
            raise NotFound(f"no sheet {sheet!r}; sheets: {', '.join(sorted(self.state.sheets))}")
        return self.state.sheets[sheet]

    @tool(reads=("sheets",), intent="tell me which tabs the workbook has")
    def list_sheets(self) -> list[SheetInfo]:
        """List the workbook's tabs with their columns and row counts."""
        return [SheetInfo(name=s.name, columns=s.columns, rows=len(s.rows)) for s in self.state.sheets.values()]

    @tool(reads=("sheets",), intent="show me {sheet}")
    def read_sheet(self, sheet: SheetName) -> Sheet:
        """Read a whole tab: its columns and every row.

        Args:
            sheet: The tab.

        Raises:
            NotFound: No such tab.
        """
        return self._sheet(sheet)

    @tool(reads=("sheets",), writes=("sheets",), intent="start {name} with the columns {columns}")
    def create_sheet(self, name: SheetName, columns: list[str]) -> SheetInfo:
        """Create an empty tab with named columns.

        Args:
            name: The tab's name; must be new.
            columns: Column names, 1 to 20, distinct.

        Raises:
            Conflict: A tab of that name exists.
            InvalidArgument: No columns, too many, or repeated.
        """
        if name in self.state.sheets:
            raise Conflict(f"a tab {name!r} exists already")
        clean = [c.strip() for c in columns]
        if not clean or len(clean) > MAX_COLUMNS or len(set(clean)) != len(clean) or not all(clean):
            raise InvalidArgument("a tab needs 1 to 20 distinct, non-empty column names")
        self.state.sheets[name] = Sheet(name=name, columns=clean)
        return SheetInfo(name=name, columns=clean, rows=0)

    @tool(reads=("sheets",), writes=("sheets",), intent="add a row to {sheet}: {values}")
    def append_row(self, sheet: SheetName, values: dict[str, str]) -> RowMatch:
        """Append a row; columns not given stay empty.

        Args:
            sheet: The tab.
            values: Column → cell text; every column must exist in the tab.

        Raises:
            NotFound: No such tab.
            InvalidArgument: No values, or a column the tab does not have.
        """
        target = self._sheet(sheet)
        unknown = sorted(set(values) - set(target.columns))
        if not values or unknown:
            raise InvalidArgument(
                f"unknown columns {unknown}; the tab has {target.columns}" if unknown else "no values"
            )
        row = {column: str(values.get(column, "")) for column in target.columns}
        self.state.sheets[sheet] = target.model_copy(update={"rows": [*target.rows, row]})
        return RowMatch(row=len(target.rows) + 1, values=row)

    @tool(reads=("sheets",), writes=("sheets",), intent="set the {column} of row {row} in {sheet} to “{value}”")
    def update_cell(self, sheet: SheetName, row: int, column: str, value: str) -> RowMatch:
        """Overwrite one cell.

        Args:
            sheet: The tab.
            row: The 1-based row number.
            column: The column name.
            value: The new text.

        Raises:
            NotFound: No such tab, row or column.
        """
        target = self._sheet(sheet)
        if column not in target.columns:
            raise NotFound(f"no column {column!r} in {sheet!r}; columns: {target.columns}")
        if not 1 <= row <= len(target.rows):
            raise NotFound(f"{sheet!r} has rows 1 to {len(target.rows)}, not {row}")
        rows = [dict(r) for r in target.rows]
        rows[row - 1][column] = value
        self.state.sheets[sheet] = target.model_copy(update={"rows": rows})
        return RowMatch(row=row, values=rows[row - 1])

    @tool(reads=("sheets",), intent="find the rows of {sheet} whose {column} is “{value}”")
    def find_rows(self, sheet: SheetName, column: str, value: str) -> list[RowMatch]:
        """Find the rows whose cell in a column equals a value (case-insensitive).

        Args:
            sheet: The tab.
            column: The column to look in.
            value: The text to match.

        Raises:
            NotFound: No such tab or column.
        """
        target = self._sheet(sheet)
        if column not in target.columns:
            raise NotFound(f"no column {column!r} in {sheet!r}; columns: {target.columns}")
        wanted = value.strip().lower()
        return [
            RowMatch(row=index, values=row)
            for index, row in enumerate(target.rows, start=1)
            if row.get(column, "").strip().lower() == wanted
        ]

    @tool(reads=("sheets",), intent="tell me the total of the {column} column in {sheet}", reports=("total",))
    def sum_column(self, sheet: SheetName, column: str) -> ColumnTotal:
        """Add up a column's numeric cells (empty and non-numeric cells are skipped).

        Args:
            sheet: The tab.
            column: The column.

        Raises:
            NotFound: No such tab or column.
        """
        target = self._sheet(sheet)
        if column not in target.columns:
            raise NotFound(f"no column {column!r} in {sheet!r}; columns: {target.columns}")
        total, counted = Decimal("0"), 0
        for row in target.rows:
            try:
                total += Decimal(row.get(column, "").replace(",", ""))
                counted += 1
            except InvalidOperation:
                continue
        return ColumnTotal(sheet=sheet, column=column, total=str(total.quantize(Decimal("0.01"))), rows_counted=counted)

    @tool(reads=("sheets",), writes=("sheets",), intent="log {amount} against {reference} in {sheet}, memo “{memo}”")
    def log_amount(self, sheet: SheetName, reference: Reference, amount: Money, memo: str) -> RowMatch:
        """Append a dated ledger row (date, reference, amount, currency, memo) to a ledger tab.

        Args:
            sheet: A tab with the ledger columns (date, reference, amount, currency, memo).
            reference: The record the amount belongs to (an order, refund, purchase order, …).
            amount: The amount.
            memo: A short description.

        Raises:
            NotFound: No such tab.
            InvalidArgument: The tab lacks the ledger columns.
        """
        target = self._sheet(sheet)
        if not set(LEDGER_COLUMNS) <= set(target.columns):
            raise InvalidArgument(f"{sheet!r} is not a ledger tab (needs {', '.join(LEDGER_COLUMNS)})")
        values = {
            "date": str(self.now.date()),
            "reference": reference,
            "amount": str(amount.amount),
            "currency": amount.currency,
            "memo": memo,
        }
        row = {column: values.get(column, "") for column in target.columns}
        self.state.sheets[sheet] = target.model_copy(update={"rows": [*target.rows, row]})
        return RowMatch(row=len(target.rows) + 1, values=row)

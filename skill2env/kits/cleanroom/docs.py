"""Render the clean-room world: regional CSV / XLSX exports (some compressed or archived), a manifest,
conventions and changelog in Markdown, FX rates, reference files and corrections."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import datetime, timedelta
from decimal import Decimal

from skill2env.kits import render as r
from skill2env.kits.cleanroom.world import Export, Record, World, amount_eur
from skill2env.kits.spec import Workspace

COLUMNS = ("order_id", "order_date", "customer_id", "customer_name", "amount", "currency", "status", "channel")
CONVENTIONS = {
    "EU": (";", "DD.MM.YYYY", ","),
    "US": (",", "MM/DD/YYYY", "."),
    "APAC": ("xlsx", "spreadsheet date", "."),
}


def header(export: Export) -> list[str]:
    names = {"customer_id": "cust_id"} if export.region == "US" else {}
    names.update(export.header)
    return [names.get(column, column) for column in COLUMNS]


def _amount(export: Export, index: int, record: Record) -> str | float | int:
    written = record.values.get("amount")
    if written is not None:
        return written  # type: ignore[return-value]
    scale = export.scale
    if export.switch_after is not None and index > export.switch_after:
        scale = Decimal("0.01")
    value = record.order.amount / scale
    if export.fmt == "xlsx":
        return int(value) if value == value.to_integral() else float(value)
    text = f"{value.normalize():f}" if scale != 1 else f"{value:.2f}"
    if record.order.currency == "JPY" and scale == 1:
        text = f"{value:.0f}"
    if export.region == "EU":
        return text.replace(".", ",")
    if export.region == "US" and scale == 1 and value >= 1000:
        whole, cents = text.split(".")
        return f"{int(whole):,}.{cents}"
    return text


def cells(export: Export, index: int, record: Record) -> list[str | float | int | datetime]:
    order = record.order
    if export.fmt == "xlsx":
        day: str | datetime = datetime(order.day.year, order.day.month, order.day.day)
    elif export.region == "EU":
        day = order.day.strftime("%d.%m.%Y")
    elif export.iso_after is not None and index > export.iso_after:
        day = order.day.isoformat()
    else:
        day = order.day.strftime("%m/%d/%Y")
    status = str(record.values.get("status") or order.status)
    status = {"EU": status.upper(), "US": status.lower(), "APAC": status.capitalize()}[export.region]
    customer = order.customer_id.lower() if export.lower_ids else order.customer_id
    name = order.name.upper() if export.upper_names else order.name
    return [
        str(record.values.get("order_id") or order.order_id),
        day,
        customer,
        name,
        _amount(export, index, record),
        order.currency,
        status,
        order.channel,
    ]


def csv_export(export: Export) -> tuple[bytes, str]:
    delimiter = ";" if export.region == "EU" else ","
    lines: list[bytes] = []

    def line(values: Sequence[object]) -> bytes:
        buffer = io.StringIO()
        csv.writer(buffer, delimiter=delimiter, lineterminator="\n").writerow(values)
        return buffer.getvalue().encode()

    lines.append(line(header(export)))
    for index, record in enumerate(export.records, start=1):
        values: list[object] = list(cells(export, index, record))
        shape = record.values.get("shape")
        if shape == "extra":
            last, first = record.order.name.split(", ")
            values[3] = f"{last}{delimiter} {first}"
            lines.append(delimiter.join(str(v) for v in values).encode() + b"\n")
        elif shape == "shifted":
            last, first = record.order.name.split(", ")
            values[3] = f"{last}{delimiter} {first}"
            lines.append(delimiter.join(str(v) for v in values[:-1]).encode() + b"\n")
        elif record.values.get("encoding") == "latin-1":
            lines.append(line(values).decode().encode("latin-1"))
        else:
            lines.append(line(values))
        if export.switch_after == index:
            lines.append(b"# amounts from the next record on are in cents (billing system change)\n")
    data = b"".join(lines)
    return data, data.decode("utf-8", "replace")


def xlsx_export(export: Export) -> tuple[bytes, str]:
    columns = header(export) + (["wd"] if export.hidden_flag else [])
    rows, hidden = [], set()
    for index, record in enumerate(export.records, start=1):
        row: list[object] = list(cells(export, index, record))
        if export.hidden_flag:
            row.append(record.values.get("wd", ""))
        rows.append(row)
        if record.values.get("hidden"):
            hidden.add(index - 1)
    sheets = [
        r.SheetSpec(
            "Orders",
            columns,
            rows,
            hidden_rows=hidden,
            title=export.title,
            hidden_columns={len(columns) - 1} if export.hidden_flag else set(),
        )
    ]
    if export.legend:
        text = "Hidden rows are withdrawn orders and must not be loaded."
        if export.hidden_flag:
            text += " Rows flagged Y in column wd are withdrawn too."
        sheets.append(r.SheetSpec("Legend", ["Legend"], [[text]], state=export.legend))
    if export.notes_sheet:
        sheets.append(r.SheetSpec("Notes", ["Notes"], [[export.notes_sheet]]))
    return r.xlsx_bytes(sheets), r.sheets_text(sheets)


def render_world(world: World) -> Workspace:
    ws = Workspace()
    archives: dict[str, dict[str, bytes]] = {}
    texts: dict[str, str] = {}
    for export in world.exports:
        data, text = xlsx_export(export) if export.fmt == "xlsx" else csv_export(export)
        if export.container == "zip":
            archive, member = export.name.split("!/")
            archives.setdefault(archive, {})[member] = data
            texts[archive] = texts.get(archive, "") + text
        elif export.container == "gz":
            ws.add(export.name, r.gzip_bytes(data), text)
        else:
            ws.add(export.name, data, text)
    for archive, members in archives.items():
        ws.add(archive, r.zip_bytes(members), texts[archive])
    listed = [e for e in world.exports if e.name not in world.late_files]
    ws.add(
        "exports/MANIFEST.csv",
        r.csv_bytes(
            ["file", "region", "exported_at", "records"],
            [[e.name, e.region, e.exported_at.isoformat(timespec="minutes"), len(e.records)] for e in listed],
        ),
    )
    for name in world.late_files:
        export = next(e for e in world.exports if e.name == name)
        ws.add_text(
            "inbox/MANIFEST_amendment.md",
            f"# Manifest amendment\n\nAdd `{export.name}` ({export.region}, exported "
            f"{export.exported_at.isoformat(timespec='minutes')}, {len(export.records)} records) to the "
            f"{world.period} manifest: it was delivered late.\n",
        )
    ws.add_text("exports/README.md", readme(world))
    if world.render.get("drift"):
        ws.add_text("exports/CHANGELOG.md", changelog(world))
    ws.add(
        "fx_rates.csv", r.csv_bytes(["currency", "eur_per_unit"], [[c, f"{v:f}"] for c, v in sorted(world.fx.items())])
    )
    ws.add_text("schema.md", schema(world))
    reference(world, ws)
    for name, rows in world.corrections.items():
        ws.add(name, r.csv_bytes(["order_id", "field", "value"], rows))
    return ws


def readme(world: World) -> str:
    rows = [
        [region, d if d != "xlsx" else "XLSX workbook", date_format, decimal]
        for region, (d, date_format, decimal) in CONVENTIONS.items()
    ]
    missing = ", ".join(f"`{s}`" for s in world.missing_spellings if s) + (
        " or left empty" if "" in world.missing_spellings else ""
    )
    lines = [
        f"# Order exports, {world.period}",
        "",
        "Each regional order system exports its orders monthly; `MANIFEST.csv` lists every export of the quarter "
        "with the time it was produced.",
        "",
        r.markdown_table(["Region", "Delimiter", "Date format", "Decimal separator"], rows),
        "The US export calls the customer id `cust_id`. Amounts are in the order's currency (`currency` column).",
        "",
        f"- Missing values are written as {missing}.",
    ]
    if "-1" in world.sentinels:
        lines.append("- An amount of `-1` means the amount was not captured (it is missing).")
    lines += [
        "- Test orders (any channel containing `test`) are out of scope.",
        "- An order exported more than once counts once, from the most recently produced export.",
    ]
    if world.internal_customers:
        lines.append("- Orders of internal customers (`reference/internal_customers.csv`) are out of scope.")
    if world.superseded:
        lines.append(f"- `corrections_v2.csv` supersedes `{world.superseded}`: apply only the newest corrections file.")
    elif world.corrections:
        lines.append("- `corrections.csv` lists fixes to apply before validation.")
    if world.corrections:
        lines.append("- Correction values are in the order's currency, with a dot as decimal separator.")
    return "\n".join(lines) + "\n"


def changelog(world: World) -> str:
    level = int(world.render.get("drift", 0))
    second = world.months[1]
    lines = ["# Export changelog", "", f"- {second.isoformat()}: US export: column `cust_id` renamed to `customer`."]
    for new, old in world.status_synonyms.items():
        lines.append(f"- {second.isoformat()}: US export: status `{new}` replaces `{old}`.")
    if level == 3:
        lines.append(
            f"- {world.months[2].isoformat()}: US export: dates are written as YYYY-MM-DD from this "
            "release on (the release went live while the month's export was running)."
        )
    return "\n".join(lines) + "\n"


def schema(world: World) -> str:
    return f"""# Clean order table: target schema

| column | format |
|---|---|
| order_id | `ORD-` followed by six digits, zero-padded |
| region | `EU`, `US` or `APAC` (the exporting system) |
| order_date | ISO date `YYYY-MM-DD`, inside {world.period} |
| customer_id | as in last quarter's clean file (`reference/clean_{world.reference_quarter}.csv`) |
| customer_name | as in last quarter's clean file |
| amount_eur | the amount converted with `fx_rates.csv` (EUR per unit), rounded half-up to cents |
| status | `paid`, `refunded` or `pending` |

Follow the conventions of `reference/clean_{world.reference_quarter}.csv` for everything this table leaves open.
"""


def reference(world: World, ws: Workspace) -> None:
    rows = []
    sample = [rec for _, _, rec in world.records() if rec.reason is None][:8]
    for offset, record in enumerate(sample):
        order = record.order
        day = order.day - timedelta(days=91)
        rows.append(
            [
                f"ORD-{(order.number + 7919 * (offset + 1)) % 90000 + 1000:06d}",
                order.region,
                day.isoformat(),
                order.customer_id,
                order.name,
                f"{amount_eur(world, order) + 3:.2f}",
                order.status,
            ]
        )
    ws.add(
        f"reference/clean_{world.reference_quarter}.csv",
        r.csv_bytes(["order_id", "region", "order_date", "customer_id", "customer_name", "amount_eur", "status"], rows),
    )
    if world.internal_customers:
        ws.add(
            "reference/internal_customers.csv",
            r.csv_bytes(
                ["customer_id", "note"], [[c, "internal purchasing account"] for c in world.internal_customers]
            ),
        )
    if world.minimum_eur is not None:
        ws.add_text(
            "reference/pricing_policy.md",
            f"# Pricing policy\n\nOrders below {world.minimum_eur:.2f} EUR are "
            "system test pings, not sales; they never count as revenue.\n",
        )

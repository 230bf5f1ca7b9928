"""Naive baseline for the clean-room kit: the obvious load-validate-dedupe, blind to the designed traps.

It reads the CSV, gzip, ZIP and XLSX files directly in `exports/` in name order (first sheet, first row
as header), parses each region the documented way, treats unreadable amounts as missing, drops channel
`test` and hidden rows when a visible legend says so, applies every corrections file it finds, keeps the
last copy of an order id in reading order, and copies ids and names as written.
"""

from __future__ import annotations

import csv
import gzip
import io
import zipfile
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

FORMATS = {"EU": ("%d.%m.%Y", ";", ","), "US": ("%m/%d/%Y", ",", "."), "APAC": ("", "", ".")}


def column(header: list[str], *words: str) -> int | None:
    for index, name in enumerate(header):
        if all(w in name.lower() for w in words):
            return index
    return None


def rows_of(name: str, data: bytes) -> tuple[list[str], list[list[Any]], set[int]]:
    """Header, data rows and the indexes of rows a visible legend calls withdrawn."""
    region = name.rsplit("/", 1)[-1].split("_")[0].upper()
    if name.endswith(".xlsx"):
        tmp = rt.out(".naive.xlsx")
        tmp.write_bytes(data)
        sheets = rt.xlsx_sheets(tmp)
        tmp.unlink()
        rows = [list(r) for r in sheets[0]["rows"]]
        legend = any(
            "Hidden rows are withdrawn" in str(row) for s in sheets if s["state"] == "visible" for row in s["rows"]
        )
        withdrawn = {i - 1 for i in sheets[0]["hidden_rows"]} if legend else set()
        return [str(v) for v in rows[0]], rows[1:], withdrawn
    if name.endswith(".gz"):
        data = gzip.decompress(data)
    lines = [x for x in data.decode("utf-8", "replace").splitlines() if x.strip() and not x.startswith("#")]
    parsed = list(csv.reader(lines, delimiter=FORMATS[region][1]))
    return parsed[0], parsed[1:], set()


def main() -> None:
    fx = {
        row["currency"]: Decimal(row["eur_per_unit"])
        for row in csv.DictReader(io.StringIO(rt.read_text(rt.workspace() / "fx_rates.csv")))
    }
    fixes: dict[str, dict[str, str]] = {}
    for path in rt.files("corrections*.csv"):
        for row in csv.DictReader(io.StringIO(rt.read_text(path))):
            fixes.setdefault(row["order_id"], {})[row["field"]] = row["value"]
    sources = []
    for path in rt.files("exports/*"):
        if path.name.endswith(".zip"):
            with zipfile.ZipFile(path) as archive:
                sources += [(f"{rt.rel(path)}!/{m}", archive.read(m)) for m in sorted(archive.namelist())]
        else:
            sources.append((rt.rel(path), path.read_bytes()))
    sources = [
        (n, d)
        for n, d in sources
        if n.endswith((".csv", ".csv.gz", ".xlsx")) and n.rsplit("/", 1)[-1].split("_")[0] in ("eu", "us", "apac")
    ]
    rejects: list[list[Any]] = []
    kept: dict[str, dict[str, Any]] = {}
    for source, data in sources:
        region = source.rsplit("/", 1)[-1].split("_")[0].upper()
        date_format, _, decimal_sep = FORMATS[region]
        header, rows, withdrawn = rows_of(source, data)
        at = {
            k: column(header, *w)
            for k, w in {
                "id": ("order",),
                "date": ("date",),
                "cust": ("cust",),
                "name": ("name",),
                "amount": ("amount",),
                "currency": ("currency",),
                "status": ("status",),
                "channel": ("channel",),
            }.items()
        }
        amount_name = header[at["amount"]] if at["amount"] is not None else ""
        scale = Decimal("0.01") if "cents" in amount_name else Decimal(1000) if "thousands" in amount_name else 1
        for index, values in enumerate(rows, start=1):

            def get(key: str, row: list[Any] = values, at: dict[str, int | None] = at) -> Any:
                position = at[key]
                return row[position] if position is not None and position < len(row) else None

            oid = str(get("id"))
            fix = fixes.get(oid, {})
            if index - 1 in withdrawn:
                rejects.append([source, index, oid, "withdrawn"])
                continue
            if len(values) != len(header):
                rejects.append([source, index, oid, "malformed"])
                continue
            try:
                value = get("date")
                day = value.date() if isinstance(value, datetime) else datetime.strptime(str(value), date_format).date()
            except ValueError:
                rejects.append([source, index, oid, "malformed"])
                continue
            raw = fix.get("amount", get("amount"))
            try:
                text = str(raw).replace(".", "").replace(",", ".") if decimal_sep == "," else str(raw).replace(",", "")
                amount = Decimal(text) * (scale if "amount" not in fix else 1)
            except InvalidOperation:
                amount = None
            status = str(fix.get("status", get("status"))).lower()
            if str(get("channel")).lower() == "test":
                rejects.append([source, index, oid, "out_of_scope"])
            elif amount is None:
                rejects.append([source, index, oid, "missing_amount"])
            elif status not in ("paid", "refunded", "pending"):
                rejects.append([source, index, oid, "bad_status"])
            else:
                if oid in kept:
                    rejects.append([kept[oid]["source"], kept[oid]["index"], oid, "duplicate"])
                euro = (amount * fx[str(get("currency"))]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
                kept[oid] = {
                    "source": source,
                    "index": index,
                    "region": region,
                    "date": day.isoformat(),
                    "cust": str(get("cust")).upper(),
                    "name": get("name"),
                    "euro": euro,
                    "status": status,
                }
    rt.write_csv(
        "clean.csv",
        ["order_id", "region", "order_date", "customer_id", "customer_name", "amount_eur", "status"],
        [
            [k, v["region"], v["date"], v["cust"], v["name"], rt.money(v["euro"]), v["status"]]
            for k, v in sorted(kept.items())
        ],
    )
    rt.write_csv("rejects.csv", ["source", "record", "order_id", "reason"], rejects)
    reasons: dict[str, int] = {}
    for *_, reason in rejects:
        reasons[str(reason)] = reasons.get(str(reason), 0) + 1
    regions = {
        r: float(sum((v["euro"] for v in kept.values() if v["region"] == r), Decimal(0))) for r in ("EU", "US", "APAC")
    }
    rt.write_json(
        "summary.json",
        {
            "input_records": len(kept) + len(rejects),
            "clean_records": len(kept),
            "rejected_records": len(rejects),
            "rejected_by_reason": reasons,
            "amount_eur_by_region": regions,
            "total_amount_eur": round(sum(regions.values()), 2),
        },
    )


if __name__ == "__main__":
    main()

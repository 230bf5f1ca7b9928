"""Reference solver for the clean-room kit.

It reads the manifest (and any amendment), the conventions, changelog, reference files and corrections,
opens every export (compressed, archived, hidden sheets included), validates each record against the
documented rules and writes clean.csv, rejects.csv and summary.json.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import zipfile
from datetime import date, datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

REASONS = ("malformed", "withdrawn", "out_of_scope", "out_of_period", "missing_amount", "bad_status", "duplicate")
STATUSES = ("paid", "refunded", "pending")
FORMATS = {"DD.MM.YYYY": "%d.%m.%Y", "MM/DD/YYYY": "%m/%d/%Y"}


def text_of(relpath: str) -> str:
    path = rt.workspace() / relpath
    return rt.read_text(path) if path.exists() else ""


class Rules:
    def __init__(self) -> None:
        readme = text_of("exports/README.md")
        changelog = text_of("exports/CHANGELOG.md")
        self.conventions = {}
        for region, delimiter, date_format, decimal in re.findall(
            r"^\|\s*(EU|US|APAC)\s*\|\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(.+?)\s*\|", readme, re.M
        ):
            self.conventions[region] = (delimiter, FORMATS.get(date_format, ""), decimal)
        year, quarter = re.search(r"(\d{4})-Q(\d)", readme).groups()  # type: ignore[union-attr]
        first = date(int(year), 3 * (int(quarter) - 1) + 1, 1)
        last_month = first.month + 2
        self.period = (first, date(int(year) + (last_month == 12), last_month % 12 + 1, 1))
        line = next((x for x in readme.splitlines() if "Missing values are written as" in x), "")
        self.missing = set(re.findall(r"`([^`]*)`", line)) | ({""} if "left empty" in line else set())
        self.sentinels = set(re.findall(r"amount of `?(-?\d+)`? means", readme))
        self.aliases = {"customer_id": "customer_id", "amount": "amount"}
        self.aliases.update({old: "customer_id" for old in re.findall(r"calls the customer id `(\w+)`", readme)})
        for old, new in re.findall(r"column `(\w+)` renamed to `(\w+)`", changelog):
            self.aliases[new] = self.aliases.get(old, old)
        self.synonyms = dict(re.findall(r"status `(\w+)` replaces `(\w+)`", changelog))
        self.fx = {}
        for row in csv.DictReader(io.StringIO(text_of("fx_rates.csv"))):
            self.fx[row["currency"]] = Decimal(row["eur_per_unit"])
        self.internal = set(re.findall(r"^(C\d+)", text_of("reference/internal_customers.csv"), re.M))
        minimum = re.search(r"below ([\d.]+) EUR", text_of("reference/pricing_policy.md"))
        self.minimum = Decimal(minimum.group(1)) if minimum else None
        superseded = set(re.findall(r"supersedes `([^`]+)`", readme))
        self.corrections: dict[str, dict[str, str]] = {}
        for path in rt.files("corrections*.csv"):
            if path.name in superseded:
                continue
            for row in csv.DictReader(io.StringIO(rt.read_text(path))):
                self.corrections.setdefault(normal_id(row["order_id"]), {})[row["field"]] = row["value"]


def normal_id(text: str) -> str:
    digits = re.sub(r"\D", "", text)
    return f"ORD-{int(digits):06d}" if digits else text.strip()


def manifest() -> list[dict[str, str]]:
    rows = list(csv.DictReader(io.StringIO(text_of("exports/MANIFEST.csv"))))
    for path in rt.files("inbox/*.md"):
        for name, region, exported, count in re.findall(
            r"Add `([^`]+)` \((\w+), exported (\S+), (\d+) records\)", rt.read_text(path)
        ):
            rows.append({"file": name, "region": region, "exported_at": exported, "records": count})
    return rows


def load(name: str) -> tuple[str, bytes]:
    """(format name, bytes) of an export, reaching into .gz files and ZIP members."""
    if "!/" in name:
        archive, member = name.split("!/", 1)
        with zipfile.ZipFile(rt.workspace() / archive) as bundle:
            return member, bundle.read(member)
    data = (rt.workspace() / name).read_bytes()
    if name.endswith(".gz"):
        return name[:-3], gzip.decompress(data)
    return name, data


def csv_records(data: bytes, delimiter: str) -> list[dict[str, Any]]:
    header: list[str] | None = None
    records, scale = [], Decimal(1)
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        text = rt.decode(raw)
        if text.startswith("#"):
            if "in cents" in text:
                scale = Decimal("0.01")
            continue
        fields = next(csv.reader([text], delimiter=delimiter))
        if header is None:
            header = fields
            continue
        record: dict[str, Any] = {"scale": scale, "fields": len(fields) == len(header)}
        record.update(zip(header, fields, strict=False))
        records.append(record)
    return records


def xlsx_records(data: bytes) -> tuple[list[dict[str, Any]], str]:
    tmp = rt.workspace() / "output" / ".export.xlsx"
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_bytes(data)
    sheets = rt.xlsx_sheets(tmp)
    tmp.unlink()
    words = " ".join(str(v) for s in sheets for row in s["rows"] for v in row if v is not None)
    withdrawn_rows = "Hidden rows are withdrawn" in words
    records: list[dict[str, Any]] = []
    for sheet in sheets:
        at = next((i for i, row in enumerate(sheet["rows"]) if "order_id" in row), None)
        if at is None:
            continue
        header = [str(v) for v in sheet["rows"][at]]
        scale = Decimal(1000) if any("thousands" in str(v) for row in sheet["rows"][:at] for v in row) else Decimal(1)
        for index in range(at + 1, len(sheet["rows"])):
            values = sheet["rows"][index]
            record: dict[str, Any] = {"scale": scale, "fields": True}
            record.update(zip(header, values, strict=False))
            record["withdrawn"] = withdrawn_rows and (index in sheet["hidden_rows"] or record.get("wd") == "Y")
            records.append(record)
    return records, words


def parse_amount(value: Any, decimal_sep: str) -> Decimal | None:
    if isinstance(value, int | float):
        return Decimal(str(value))
    text = str(value).strip()
    text = text.replace(".", "").replace(",", ".") if decimal_sep == "," else text.replace(",", "")
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def parse_date(value: Any, fmt: str) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    for pattern in (fmt, "%Y-%m-%d"):
        try:
            return datetime.strptime(str(value).strip(), pattern).date()
        except ValueError:
            continue
    return None


def main() -> None:
    rules = Rules()
    exports = manifest()
    candidates: list[dict[str, Any]] = []
    rejects: dict[tuple[str, int], tuple[str, str]] = {}
    for entry in exports:
        inner, data = load(entry["file"])
        region = entry["region"]
        delimiter, date_format, decimal_sep = rules.conventions[region]
        if inner.endswith(".xlsx"):
            records, words = xlsx_records(data)
            rules.sentinels |= set(re.findall(r"amount of `?(-?\d+)`? means", words))
        else:
            records = csv_records(data, delimiter)
        for index, raw in enumerate(records, start=1):
            row = {rules.aliases.get(k, k): v for k, v in raw.items() if k is not None}
            if "amount_cents" in raw:
                row["amount"], row["scale"] = raw["amount_cents"], row["scale"] * Decimal("0.01")
            if "amount_thousands" in raw:
                row["amount"], row["scale"] = raw["amount_thousands"], row["scale"] * Decimal(1000)
            oid = normal_id(str(row.get("order_id") or ""))
            fix = rules.corrections.get(oid, {})
            written_amount = "" if row.get("amount") is None else str(row.get("amount")).strip()
            missing = written_amount in rules.missing or written_amount in rules.sentinels
            amount = None if missing else parse_amount(row.get("amount"), decimal_sep)
            if amount is not None:
                amount *= row["scale"]
            if "amount" in fix:
                amount, missing = Decimal(fix["amount"]), False
            day = parse_date(row.get("order_date"), date_format)
            status = str(fix.get("status") or row.get("status") or "").lower()
            status = rules.synonyms.get(status, status)
            customer = str(row.get("customer_id") or "").upper()
            channel = str(row.get("channel") or "").lower()
            reasons = []
            if not raw["fields"] or day is None or (amount is None and not missing):
                reasons.append("malformed")
            if raw.get("withdrawn"):
                reasons.append("withdrawn")
            euro = (
                None
                if amount is None
                else (amount * rules.fx[str(row.get("currency"))]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
            )
            if (
                "test" in channel
                or customer in rules.internal
                or (euro is not None and rules.minimum is not None and euro < rules.minimum)
            ):
                reasons.append("out_of_scope")
            if day is not None and not rules.period[0] <= day < rules.period[1]:
                reasons.append("out_of_period")
            if missing:
                reasons.append("missing_amount")
            if status not in STATUSES:
                reasons.append("bad_status")
            key = (entry["file"], index)
            if reasons:
                rejects[key] = (str(row.get("order_id") or ""), min(reasons, key=REASONS.index))
                continue
            candidates.append(
                {
                    "key": key,
                    "exported": entry["exported_at"],
                    "written": str(row.get("order_id")),
                    "order_id": oid,
                    "region": region,
                    "order_date": day.isoformat(),  # type: ignore[union-attr]
                    "customer_id": customer,
                    "customer_name": str(row.get("customer_name")).title(),
                    "amount_eur": euro,
                    "status": status,
                }
            )
    kept: dict[str, dict[str, Any]] = {}
    for record in sorted(candidates, key=lambda c: (c["exported"], c["key"][1])):
        previous = kept.get(record["order_id"])
        if previous:
            rejects[previous["key"]] = (previous["written"], "duplicate")
        kept[record["order_id"]] = record
    columns = ["order_id", "region", "order_date", "customer_id", "customer_name", "amount_eur", "status"]
    rt.write_csv(
        "clean.csv",
        columns,
        [[row[c] if c != "amount_eur" else rt.money(row[c]) for c in columns] for _, row in sorted(kept.items())],
    )
    if rt.partial_mode():
        return
    rt.write_csv(
        "rejects.csv",
        ["source", "record", "order_id", "reason"],
        [[s, i, oid, reason] for (s, i), (oid, reason) in sorted(rejects.items())],
    )
    counts = {r: sum(1 for _, x in rejects.values() if x == r) for r in REASONS}
    by_region = {
        region: sum((row["amount_eur"] for row in kept.values() if row["region"] == region), Decimal(0))
        for region in ("EU", "US", "APAC")
    }
    rt.write_json(
        "summary.json",
        {
            "input_records": len(candidates) + len(rejects) - sum(1 for _, x in rejects.values() if x == "duplicate"),
            "clean_records": len(kept),
            "rejected_records": len(rejects),
            "rejected_by_reason": {r: n for r, n in counts.items() if n},
            "amount_eur_by_region": {r: float(v) for r, v in by_region.items()},
            "total_amount_eur": float(sum(by_region.values(), Decimal(0))),
        },
    )


if __name__ == "__main__":
    main()

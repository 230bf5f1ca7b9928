"""Reference solver for the SQL-drift kit.

It reads the reporting settings, the README, the operations log and the migrations, inspects the live
database's schema, works out which migrations the live schema holds and which live columns no migration
declares, and writes a query that applies every revenue rule the documents state (the lowest id of a
re-imported external_ref, soft deletes, test and staff accounts, a hand-added voided flag, NULL and -1
discounts, refunds, currencies and their minor units, the local reporting month), then the report from
the query's own result on the live database.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

DATABASE = "data/shop.db"


def text_of(relpath: str) -> str:
    path = rt.workspace() / relpath
    return rt.read_text(path) if path.exists() else ""


def connect() -> sqlite3.Connection:
    return sqlite3.connect(f"file:{rt.workspace() / DATABASE}?mode=ro", uri=True)


def live_schema(connection: sqlite3.Connection) -> tuple[dict[str, list[str]], set[str]]:
    tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    columns = {t: [r[1] for r in connection.execute(f'PRAGMA table_info("{t}")')] for t in tables}
    indexes = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    return columns, indexes


def migrations() -> list[tuple[str, str]]:
    found = []
    for path in rt.files("migrations/*.sql"):
        version = re.match(r"(\d+)", path.name)
        if version:
            found.append((version.group(1), rt.read_text(path)))
    return found


def declared(sql: str) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Tables, (table, column) pairs and indexes a migration creates."""
    body = re.sub(r"--[^\n]*", "", sql)
    tables, columns = [], []
    for table, inner in re.findall(r"CREATE TABLE (\w+)\s*\((.*?)\);", body, re.S):
        tables.append(table)
        for part in re.split(r",\s*\n", inner.strip()):
            name = part.strip().split()[0] if part.strip() else ""
            if name and name.upper() not in ("PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "CONSTRAINT"):
                columns.append((table, name))
    columns += re.findall(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", body)
    return tables, columns, re.findall(r"CREATE (?:UNIQUE )?INDEX (\w+)", body)


def offset_hours(readme: str, settings: str) -> int:
    found = re.search(r"utc_offset\s*=\s*([+-]\d{2}):(\d{2})", settings) or re.search(r"UTC([+-]\d{2}):(\d{2})", readme)
    return int(found.group(1)) if found else 0


def build_query(month: str, offset: int, columns: dict[str, list[str]], readme: str, log: str) -> str:
    filters = [
        "o.status = 'paid'",
        "o.deleted_at IS NULL",
        "c.is_test = 0",
        f"strftime('%Y-%m', o.created_at, '{offset:+d} hours') = '{month}'",
        "o.id = (SELECT MIN(d.id) FROM orders d WHERE d.external_ref = o.external_ref)",
    ]
    staff = re.search(r"`@([\w.-]+)` address are staff", readme)
    if staff:
        filters.append(f"c.email NOT LIKE '%@{staff.group(1)}'")
    if "voided" in columns.get("orders", []) and re.search(r"voided = 1 .*not revenue", log):
        filters.append("o.voided = 0")
    where = "\n    AND ".join(filters)
    return f"""WITH counted AS (
  SELECT c.country AS country,
         (o.amount_cents
          - CASE WHEN o.discount_cents IS NULL OR o.discount_cents < 0 THEN 0 ELSE o.discount_cents END
          - COALESCE((SELECT SUM(r.amount_cents) FROM refunds r WHERE r.order_id = o.id), 0))
         * f.eur_per_unit
         / CASE f.minor_units WHEN 0 THEN 1.0 WHEN 1 THEN 10.0 WHEN 2 THEN 100.0 ELSE 1000.0 END AS net_eur
  FROM orders o
  JOIN customers c ON c.id = o.customer_id
  JOIN fx_rates f ON f.currency = o.currency
  WHERE {where}
)
SELECT country, COUNT(*) AS orders, ROUND(SUM(net_eur), 2) AS revenue_eur
FROM counted
GROUP BY country
ORDER BY country;
"""


def main() -> None:
    settings, readme, log = text_of("config/reporting.ini"), text_of("README.md"), text_of("docs/ops-log.md")
    month = re.search(r"month\s*=\s*(\d{4}-\d{2})", settings).group(1)  # type: ignore[union-attr]
    connection = connect()
    columns, indexes = live_schema(connection)
    query = build_query(month, offset_hours(readme, settings), columns, readme, log)
    rt.write_text("revenue_by_country.sql", query)
    if rt.partial_mode():
        return
    rows: list[Any] = connection.execute(query.rstrip().rstrip(";")).fetchall()
    waiting, known = [], set()
    for version, sql in migrations():
        tables, added, made = declared(sql)
        known |= {f"{t}.{c}" for t, c in added}
        held = all(t in columns for t in tables) and all(c in columns.get(t, []) for t, c in added)
        if not (held and all(i in indexes for i in made)):
            waiting.append(version)
    live = {
        f"{t}.{c}"
        for t, cols in columns.items()
        if t != "schema_migrations" and not t.startswith("sqlite_")
        for c in cols
    }
    top = min(rows, key=lambda r: (-r[2], r[0]))[0] if rows else ""
    rt.write_json(
        "report.json",
        {
            "month": month,
            "orders": sum(r[1] for r in rows),
            "revenue_eur": round(sum(r[2] for r in rows), 2),
            "top_country": top,
            "countries": len(rows),
            "pending_migrations": waiting,
            "untracked_columns": sorted(live - known),
        },
    )


if __name__ == "__main__":
    main()

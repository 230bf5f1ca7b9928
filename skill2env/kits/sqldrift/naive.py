"""Naive baseline for the SQL-drift kit: the obvious query and the obvious bookkeeping.

It sums paid orders of the UTC month by country (amount less discount, in cents, taken as EUR), never
looks for duplicates, soft deletes, test accounts, voided orders or refunds, takes the month's figures
from report_snapshot when it has them, and calls pending the migration files schema_migrations does
not list. It reads the live schema for the untracked columns as anyone would.
"""

from __future__ import annotations

import re
import sqlite3

from skill2env.kits.runtime import rt  # kit-runtime

QUERY = """SELECT c.country AS country, COUNT(*) AS orders,
       ROUND(SUM(o.amount_cents - o.discount_cents) / 100.0, 2) AS revenue_eur
FROM orders o JOIN customers c ON c.id = o.customer_id
WHERE o.status = 'paid' AND strftime('%Y-%m', o.created_at) = '{month}'
GROUP BY c.country
ORDER BY c.country;
"""


def main() -> None:
    settings = rt.read_text(rt.workspace() / "config" / "reporting.ini")
    month = re.search(r"month\s*=\s*(\d{4}-\d{2})", settings).group(1)  # type: ignore[union-attr]
    query = QUERY.format(month=month)
    rt.write_text("revenue_by_country.sql", query)
    connection = sqlite3.connect(f"file:{rt.workspace() / 'data' / 'shop.db'}?mode=ro", uri=True)
    rows = connection.execute(query.rstrip().rstrip(";")).fetchall()
    snapshot = connection.execute(
        "SELECT SUM(orders), SUM(revenue_eur) FROM report_snapshot WHERE month = ?", (month,)
    ).fetchone()
    revenue = round(sum(r[2] or 0 for r in rows), 2)
    if snapshot and snapshot[1] is not None:
        revenue = round(snapshot[1], 2)
    recorded = {r[0] for r in connection.execute("SELECT version FROM schema_migrations")}
    files = sorted(re.match(r"\d+", p.name).group(0) for p in rt.files("migrations/*.sql"))  # type: ignore[union-attr]
    known = set()
    for path in rt.files("migrations/*.sql"):
        sql = rt.read_text(path)
        for table, inner in re.findall(r"CREATE TABLE (\w+)\s*\((.*?)\);", sql, re.S):
            known |= {f"{table}.{line.split()[0]}" for line in inner.strip().splitlines() if line.strip()}
        known |= {f"{t}.{c}" for t, c in re.findall(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", sql)}
    tables = [r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    live = {
        f"{t}.{r[1]}"
        for t in tables
        if t != "schema_migrations"
        for r in connection.execute(f'PRAGMA table_info("{t}")')
    }
    top = max(rows, key=lambda r: r[2] or 0)[0] if rows else ""
    rt.write_json(
        "report.json",
        {
            "month": month,
            "orders": sum(r[1] for r in rows),
            "revenue_eur": revenue,
            "top_country": top,
            "countries": len(rows),
            "pending_migrations": [v for v in files if v not in recorded],
            "untracked_columns": sorted(live - known),
        },
    )


if __name__ == "__main__":
    main()

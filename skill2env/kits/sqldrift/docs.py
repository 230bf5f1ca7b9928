"""Render the SQL-drift world: the live SQLite database (as the world says it is, drift included), the
migration files, the reporting settings, the README, the operations log and a stale export."""

from __future__ import annotations

import sqlite3
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from skill2env.kits import render as r
from skill2env.kits.spec import Workspace
from skill2env.kits.sqldrift.world import FX, MIGRATIONS, World, counted, figures, month_text, shift

DATABASE = "data/shop.db"
SETTINGS = "config/reporting.ini"
OPS_LOG = "docs/ops-log.md"


def _sql(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def snapshot_rows(world: World) -> list[tuple[str, str, int, float, str]]:
    """report_snapshot: the month before, complete; the reporting month (when the pattern is on) as a
    refresh before its last orders left it."""
    previous = shift(world.month, -1)
    rows = [
        (month_text(previous), country, n, value, _stamp(datetime(world.month.year, world.month.month, 1, 2, 30)))
        for country, (n, value) in figures(world, month_text(previous)).items()
    ]
    if world.snapshot:
        month = month_text(world.month)
        times = sorted(o.created for o in counted(world, month))
        refreshed = (
            times[-1] - timedelta(minutes=1) if len(times) > 1 else datetime(world.month.year, world.month.month, 2)
        )
        rows += [(month, c, n, v, _stamp(refreshed)) for c, (n, v) in figures(world, month, refreshed).items()]
    return rows


def database_script(world: World) -> str:
    """The SQL that builds the live database: its schema as it really is, and every row."""
    customer_columns = [
        "id INTEGER PRIMARY KEY",
        "name TEXT NOT NULL",
        "email TEXT NOT NULL",
        "country TEXT NOT NULL",
        "is_test INTEGER NOT NULL DEFAULT 0",
    ]
    if "0009" in world.applied:
        customer_columns.append("phone TEXT")
    if world.segment:
        customer_columns.append("segment TEXT")
    order_columns = [
        "id INTEGER PRIMARY KEY",
        "customer_id INTEGER NOT NULL REFERENCES customers(id)",
        "external_ref TEXT NOT NULL",
        "created_at TEXT NOT NULL",
        "status TEXT NOT NULL",
        "amount_cents INTEGER NOT NULL",
        "currency TEXT NOT NULL DEFAULT 'EUR'",
        "discount_cents INTEGER",
        "deleted_at TEXT",
    ]
    if world.voided:
        order_columns.append("voided INTEGER NOT NULL DEFAULT 0")
    lines = [
        "CREATE TABLE schema_migrations (version TEXT NOT NULL, applied_at TEXT NOT NULL);",
        f"CREATE TABLE customers ({', '.join(customer_columns)});",
        f"CREATE TABLE orders ({', '.join(order_columns)});",
        "CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), "
        "amount_cents INTEGER NOT NULL, created_at TEXT NOT NULL);",
        "CREATE TABLE fx_rates (currency TEXT PRIMARY KEY, eur_per_unit REAL NOT NULL, minor_units INTEGER NOT NULL);",
        "CREATE TABLE report_snapshot (month TEXT NOT NULL, country TEXT NOT NULL, orders INTEGER NOT NULL, "
        "revenue_eur REAL NOT NULL, refreshed_at TEXT NOT NULL);",
    ]
    if "0008" in world.applied:
        lines.append("CREATE INDEX idx_orders_created_at ON orders (created_at);")
    start = shift(world.month, -8)
    first = datetime(start.year, start.month, 1, 7)
    for n, version in enumerate(world.recorded):
        applied = _stamp(first + timedelta(days=9 * n))
        lines.append(f"INSERT INTO schema_migrations VALUES ({_sql(version)}, {_sql(applied)});")
    for c in world.customers:
        values = [c.id, c.name, c.email, c.country, c.is_test]
        values += [None] if "0009" in world.applied else []
        values += [c.segment] if world.segment else []
        lines.append(f"INSERT INTO customers VALUES ({', '.join(_sql(v) for v in values)});")
    for o in sorted(world.orders, key=lambda o: o.id):
        values = [
            o.id,
            o.customer,
            o.external_ref,
            _stamp(o.created),
            o.status,
            o.amount,
            o.currency,
            o.discount,
            o.deleted_at,
        ]
        values += [o.voided] if world.voided else []
        lines.append(f"INSERT INTO orders VALUES ({', '.join(_sql(v) for v in values)});")
    for f in sorted(world.refunds, key=lambda f: f.id):
        lines.append(f"INSERT INTO refunds VALUES ({f.id}, {f.order}, {f.amount}, {_sql(_stamp(f.created))});")
    for currency, (rate, decimals) in FX.items():
        lines.append(f"INSERT INTO fx_rates VALUES ({_sql(currency)}, {rate!r}, {decimals});")
    for row in snapshot_rows(world):
        lines.append(f"INSERT INTO report_snapshot VALUES ({', '.join(_sql(v) for v in row)});")
    return "\n".join(lines) + "\n"


def database_bytes(script: str) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "shop.db"
        connection = sqlite3.connect(path)
        try:
            connection.executescript("BEGIN;\n" + script + "COMMIT;\n")
        finally:
            connection.close()
        return path.read_bytes()


def render_world(world: World) -> tuple[Workspace, str]:
    """The workspace, and the script of its database (what the verifier rebuilds it from)."""
    ws = Workspace()
    script = database_script(world)
    ws.add(DATABASE, database_bytes(script), script)
    for migration in MIGRATIONS:
        ws.add_text(migration.file, migration.sql)
    settings = ["[reporting]", f"month = {month_text(world.month)}", "currency = EUR"]
    if world.offset_where == "ini":
        settings += ["", "[timezone]", f"utc_offset = +{world.offset:02d}:00", "daylight_saving = no"]
    ws.add_text(SETTINGS, "\n".join(settings) + "\n")
    ws.add_text("README.md", readme(world))
    lines = ["# Operations log", ""]
    lines += [f"- {day.isoformat()}: {text}" for day, text in sorted(world.log)]
    ws.add_text(OPS_LOG, "\n".join(lines) + "\n")
    if world.snapshot >= 2:
        month = month_text(world.month)
        rows = [[c, n, f"{v:.2f}"] for m, c, n, v, _ in snapshot_rows(world) if m == month]
        ws.add(f"exports/revenue_by_country_{month}.csv", r.csv_bytes(["country", "orders", "revenue_eur"], rows))
    return ws, script


def readme(world: World) -> str:
    lines = [
        f"# {world.shop} shop database",
        "",
        f"- `{DATABASE}`: the live SQLite database of the shop "
        "(customers, orders, refunds, fx_rates, report_snapshot).",
        "- `migrations/`: the schema migrations, applied in order; `schema_migrations` records the versions applied.",
        f"- `{SETTINGS}`: the reporting settings; `{OPS_LOG}`: what operations did to the database.",
        "",
        "## Revenue",
        "",
        "Only paid orders are revenue. The net revenue of an order is `amount_cents` less `discount_cents` less "
        "the refunds of that order (a refund counts in the month of the order it refunds), all in the minor units "
        "of the order's currency, converted to EUR with `fx_rates` (`eur_per_unit` per major unit; `minor_units` "
        "is the number of decimals of the currency's minor unit).",
        "",
        "Timestamps are stored in UTC.",
    ]
    if world.offset_where == "readme":
        lines.append(
            f"The reporting month is the calendar month in the business's time zone, UTC+{world.offset:02d}:00 "
            "(fixed, no daylight saving)."
        )
    elif world.offset_where == "ini":
        lines.append(f"The reporting month is the calendar month in the business's local time (see `{SETTINGS}`).")
    else:
        lines.append("The reporting month is the UTC calendar month.")
    if world.dedup_note == "readme":
        lines += [
            "",
            "`external_ref` identifies an order at the payment provider. An importer re-run inserted some orders a "
            "second time under a new id: the row with the lowest id of an `external_ref` is the order.",
        ]
    if world.staff_domain:
        lines += ["", f"Accounts with an `@{world.staff_domain}` address are staff test accounts, not customers."]
    lines += ["", "`report_snapshot` is refreshed by the nightly BI job."]
    if world.snapshot >= 3:
        lines.append("Finance reads its monthly figures from `report_snapshot`.")
    return "\n".join(lines) + "\n"

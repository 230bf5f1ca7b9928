"""Pattern transformers of the SQL-drift kit: each plants one designed challenge at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but outside
the reporting month, so the obvious reading happens to be right): likely at intensity 1, less so at 2,
never at 3. The draw comes first from the pattern's own generator, so it is the same in both variants
of a world and a raised intensity can only turn a benign draw harmful. Trap rows come from the world's
row generator (they differ between variants).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta

from skill2env.kits.spec import Design
from skill2env.kits.sqldrift.docs import OPS_LOG, SETTINGS
from skill2env.kits.sqldrift.world import Order, Refund, World, shift

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.75, 2: 0.4, 3: 0.0}
COUNTRY = {
    "implicit_timezone": ("AT",),
    "duplicate_claim_across_periods": ("FR",),
    "sentinel_missing_values": ("IT",),
    "scope_distractor": ("NL",),
    "schema_drift_between_exports": ("ES",),
    "units_hidden_in_header": ("US", "JP", "GB"),
    "partial_payment_vs_billed": ("BE",),
}
"""The countries whose figures a pattern's trap rows change (the anchor DE is checked with each)."""


def benign(rng: random.Random, level: int) -> bool:
    return rng.random() < BENIGN[level]


def implicit_timezone(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.offset = rng.choice((1, 2, 3, 5, 8))
    world.offset_where = "readme" if level == 1 else "ini"
    last = shift(world.month, 1) - timedelta(days=1)
    late = datetime(last.year, last.month, last.day, 12 if harmless else 24 - world.offset, world.rng.randint(5, 55))
    world.add_order("AT", late)
    if level >= 2:
        before = world.month - timedelta(days=1)
        early = datetime(
            before.year, before.month, before.day, 12 if harmless else 24 - world.offset, world.rng.randint(5, 55)
        )
        world.add_order("AT", early)
    if level == 3:
        world.add_order("AT", late + timedelta(minutes=world.rng.randint(1, 3)))
    world.tag("implicit_timezone", "AT")
    where, value = ("README.md", f"UTC+{world.offset:02d}:00") if level == 1 else (SETTINGS, f"+{world.offset:02d}:00")
    design.plant("implicit_timezone", "reporting.timezone", "the reporting month is in local time", value, where)
    design.forms["implicit_timezone"] = {
        1: "Timestamps are UTC but the month is the local one (offset in the README); an order sits across the "
        "month's end.",
        2: "The local offset is only in the reporting settings; orders sit across both ends of the month.",
        3: "As level 2, with more orders across the month's end.",
    }[level]


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.dedup_note = "readme" if level == 1 else "log"
    rerun = world.moment(0, day=28, hour=3)
    count = {1: 1, 2: 2, 3: 2}[level]
    for _ in range(count):
        original = world.add_order("FR", world.moment(-1 if harmless else 0))
        world.orders.append(
            Order(
                world.next_order_id(),
                original.customer,
                original.external_ref,
                original.created,
                "paid",
                original.amount,
                original.currency,
                original.discount,
            )
        )
    if level == 3:  # a copy stamped at the re-run, in the reporting month, of an order of the month before
        original = world.add_order("FR", world.moment(-1))
        world.orders.append(
            Order(
                world.next_order_id(),
                original.customer,
                original.external_ref,
                rerun,
                "paid",
                original.amount,
                original.currency,
                original.discount,
            )
        )
    world.log.append(
        (
            rerun.date(),
            "The order importer was re-run and inserted some orders a second time under a new id (same "
            "external_ref); the row with the lowest id of an external_ref is the real order.",
        )
    )
    world.tag("duplicate_claim_across_periods", "FR")
    where = "README.md" if level == 1 else OPS_LOG
    design.plant(
        "duplicate_claim_across_periods",
        "orders.duplicates",
        "re-imported orders share external_ref",
        "external_ref",
        where,
    )
    design.forms["duplicate_claim_across_periods"] = {
        1: "An importer re-run inserted an order twice under a new id (same external_ref), explained in the README.",
        2: "Two orders imported twice; only the operations log explains it.",
        3: "As level 2, and a copy stamped at the re-run moves an earlier month's order into the reporting month.",
    }[level]


def sentinel_missing_values(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    months = -1 if harmless else 0
    world.add_order("IT", world.moment(months), discount=None)
    if level >= 2:
        world.sentinel_note = True
        world.add_order("IT", world.moment(months), discount=-1)
        world.log.append(
            (
                shift(world.month, -2) + timedelta(days=6),
                "The checkout bug that wrote -1 into discount_cents is fixed; -1 means no discount was recorded "
                "(no discount was applied).",
            )
        )
    if level == 3:
        world.add_order("IT", world.moment(0), discount=None)
        world.add_order("IT", world.moment(0), discount=-1)
    world.tag("sentinel_missing_values", "IT")
    design.plant(
        "sentinel_missing_values",
        "orders.discount-null",
        "a NULL discount means no discount",
        "NULL when no discount",
        "migrations/0003_orders_discount.sql",
    )
    design.forms["sentinel_missing_values"] = {
        1: "Orders without a discount hold NULL in discount_cents, which drops them from a plain subtraction.",
        2: "As level 1, and -1 in discount_cents marks a discount that was not recorded.",
        3: "As level 2, on more orders of the month.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    months = -1 if harmless else 0
    deleted = world.add_order("NL", world.moment(months))
    deleted.deleted_at = (deleted.created + timedelta(days=1)).strftime("%Y-%m-%d %H:%M:%S")
    if level >= 2:
        tester = world.new_customer("NL", is_test=1)
        world.add_order("NL", world.moment(months), customer=tester)
    if level == 3:
        world.staff_domain = f"{world.shop}.internal"
        staff = world.new_customer("NL", email=f"qa.{world.rng.randint(10, 99)}@{world.staff_domain}")
        world.add_order("NL", world.moment(0), customer=staff)
    world.tag("scope_distractor", "NL")
    design.plant(
        "scope_distractor",
        "orders.soft-delete",
        "deleted_at marks a deleted order",
        "deleted_at",
        "migrations/0004_orders_soft_delete.sql",
    )
    design.forms["scope_distractor"] = {
        1: "A soft-deleted order (deleted_at set) sits among the month's orders.",
        2: "As level 1, and an order of a QA test account (is_test = 1).",
        3: "As level 2, and an order of a staff account that only its e-mail domain marks (README).",
    }[level]


def schema_drift_between_exports(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.voided = True
    for _ in range({1: 1, 2: 1, 3: 2}[level]):
        world.add_order("ES", world.moment(-1 if harmless else 0)).voided = 1
    world.log.append(
        (
            shift(world.month, -1) + timedelta(days=14),
            "Added orders.voided by hand during the payment-provider incident (no migration): voided = 1 marks an "
            "order the provider reversed; it is not revenue.",
        )
    )
    if level >= 2:
        world.segment = True
        for customer in world.customers:
            customer.segment = world.rng.choice(("retail", "business", None))
        world.log.append(
            (shift(world.month, -2) + timedelta(days=20), "Added customers.segment by hand for the CRM export.")
        )
    world.tag("schema_drift_between_exports", "ES")
    design.plant(
        "schema_drift_between_exports", "orders.voided", "orders.voided was added by hand", "orders.voided", OPS_LOG
    )
    design.forms["schema_drift_between_exports"] = {
        1: "The live orders table has a hand-added voided column no migration declares; voided orders are no revenue.",
        2: "As level 1, and a second hand-added column (customers.segment).",
        3: "As level 2, with more voided orders in the month.",
    }[level]


def units_hidden_in_header(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    months = -1 if harmless else 0
    pairs = [("US", "USD")] + ([("JP", "JPY")] if level >= 2 else []) + ([("GB", "GBP")] if level == 3 else [])
    for country, currency in pairs:
        for _ in range(2):
            world.add_order(country, world.moment(months), currency=currency)
        world.add_order(country, world.moment(-1), currency=currency)
    world.tag("units_hidden_in_header", *(c for c, _ in pairs))
    design.plant(
        "units_hidden_in_header",
        "fx.minor-units",
        "fx_rates converts each currency",
        "minor_units",
        "migrations/0006_create_fx_rates.sql",
    )
    design.forms["units_hidden_in_header"] = {
        1: "Orders of US customers are in USD cents beside EUR cents in the same column.",
        2: "As level 1, and JPY orders whose amount_cents holds whole yen (minor_units 0).",
        3: "As level 2, and GBP orders.",
    }[level]


def partial_payment_vs_billed(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    months = -1 if harmless else 0
    first = world.add_order("BE", world.moment(months))
    refunds = [(first, first.amount // 4)]
    if level >= 2:
        second = world.add_order("BE", world.moment(months))
        refunds += [(second, second.amount // 5), (second, second.amount // 10)]
    if level == 3:
        full = world.add_order("BE", world.moment(0))
        refunds.append((full, full.amount))
    for order, amount in refunds:
        when = order.created + timedelta(days=world.rng.randint(1, 20))
        world.refunds.append(Refund(len(world.refunds) + 1, order.id, amount, when))
    world.tag("partial_payment_vs_billed", "BE")
    design.plant(
        "partial_payment_vs_billed",
        "orders.refunds",
        "refunds reduce an order's revenue",
        "refunds",
        "migrations/0005_create_refunds.sql",
    )
    design.forms["partial_payment_vs_billed"] = {
        1: "A paid order was partly refunded; its status still says paid.",
        2: "As level 1, and an order refunded in two parts.",
        3: "As level 2, and an order refunded in full, still marked paid.",
    }[level]


def docs_disagree_with_live_state(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    if not harmless:
        world.recorded.remove("0008")  # applied by hand, never recorded
        world.log = [(day, text.replace("migrations 0008 and 0009", "migration 0009")) for day, text in world.log]
        world.log.append((shift(world.month, -3) + timedelta(days=12), "Created idx_orders_created_at by hand."))
    if level >= 2 and not harmless:
        world.applied.discard("0009")  # recorded, but its column never reached the live schema
    if level == 3:
        world.recorded.insert(world.recorded.index("0006") + 1, "0006")
        world.recorded.append("0010")
        world.applied.discard("0010")
    design.plant(
        "docs_disagree_with_live_state",
        "migrations.recorded",
        "schema_migrations records applied versions",
        "schema_migrations",
        "README.md",
    )
    design.forms["docs_disagree_with_live_state"] = {
        1: "A migration was applied by hand and never recorded in schema_migrations.",
        2: "As level 1, and a recorded migration whose column the live schema lacks.",
        3: "As level 2, a version recorded twice, and the last migration recorded though never applied.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.snapshot = 0 if harmless else level
    design.plant(
        "stale_derived_artifact",
        "snapshot.refresh",
        "report_snapshot is refreshed nightly",
        "report_snapshot",
        "README.md",
    )
    design.forms["stale_derived_artifact"] = {
        1: "report_snapshot holds the reporting month, refreshed before its last orders.",
        2: "As level 1, and a CSV export of the stale snapshot.",
        3: "As level 2, and the README says finance reads its figures from the snapshot.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    design.plant("cross_deliverable_agreement", "deliverables.agree", "the report agrees with the query", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "The report's totals must equal the query's result over all countries.",
        2: "As level 1, and the report names the country with the highest revenue.",
        3: "As level 2, and the report counts the countries with revenue.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "schema_drift_between_exports": schema_drift_between_exports,
    "docs_disagree_with_live_state": docs_disagree_with_live_state,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "sentinel_missing_values": sentinel_missing_values,
    "implicit_timezone": implicit_timezone,
    "scope_distractor": scope_distractor,
    "units_hidden_in_header": units_hidden_in_header,
    "partial_payment_vs_billed": partial_payment_vs_billed,
    "stale_derived_artifact": stale_derived_artifact,
    "cross_deliverable_agreement": cross_deliverable_agreement,
}
PATTERNS = tuple(TRANSFORMERS)

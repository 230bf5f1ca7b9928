"""The codebase-repair world: a small generated Python package (several modules, a public API, a
vendored dependency, a partial visible test suite, a CI log) with a seeded set of bugs.

Each module is rendered from a template; a bug replaces one line of one function with a mutated line.
The ground truth (what every function returns) is computed by running the *correct* package, and the
CI log's failures by running the *buggy* one, so every traceback and assertion message is real.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import re
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from skill2env.kits.spec import seeded

PACKAGES = ("tallykit", "shipcalc", "ledgerly", "orderflow", "stockpile", "parcelo", "quotient")
CATEGORIES = ("standard", "reduced", "food", "books")
CI_ROOT = "/builds/acme"
VENDOR_LIB = "decimalish"
FAKE_ERRORS = ("AssertionError",)


@dataclass(frozen=True)
class Bug:
    module: str
    function: str
    correct: str
    buggy: str


BUGS: dict[str, Bug] = {
    b.function: b
    for b in (
        Bug("pricing", "is_bulk", "return qty >= BULK_THRESHOLD", "return qty > BULK_THRESHOLD"),
        Bug(
            "pricing",
            "line_total",
            "return round_half_up(qty * unit_price, 2)",
            "return round_half_up(qty / unit_price, 2)",
        ),
        Bug(
            "pricing",
            "net_amount",
            "return round_half_up(amount * (1 - rate), 2)",
            "return round_half_up(amount * (1 + rate), 2)",
        ),
        Bug("parsing", "normalize_sku", "return text.strip().upper()", "return text.strip().lower()"),
        Bug(
            "batching",
            "batches",
            "for i in range(0, len(items), batch_size)]",
            "for i in range(0, len(items) - 1, batch_size)]",
        ),
        Bug(
            "batching",
            "page_count",
            "return (total + per_page - 1) // per_page",
            "return (total + per_page - 1) / per_page",
        ),
        Bug(
            "stats",
            "median",
            "return (ordered[mid - 1] + ordered[mid]) / 2",
            "return (ordered[mid - 1] + ordered[mid]) // 2",
        ),
        Bug("stats", "in_window", "return start <= ts < end", "return start <= ts <= end"),
        Bug(
            "pricing",
            "discount_rate",
            "rate = BULK_PERCENT / 100 if is_bulk(qty) else 0.0",
            "rate = BULK_PERCENT * 100 if is_bulk(qty) else 0.0",
        ),
    )
}
SAFE_BASE = ("normalize_sku", "batches", "page_count", "median", "in_window")
"""Functions a base bug may sit in: none of them changes the value the cascade's caller checks."""
CASCADE_VALUE = ("is_bulk", "line_total", "net_amount")
DEPS: dict[str, tuple[str, ...]] = {
    "discount_rate": ("is_bulk",),
    "parse_line": ("normalize_sku", "parse_qty"),
    "price_line": ("parse_line", "line_total", "net_amount", "discount_rate"),
    "order_total": ("price_line",),
}
MODULE_OF: dict[str, str] = {
    "is_bulk": "pricing",
    "discount_rate": "pricing",
    "line_total": "pricing",
    "net_amount": "pricing",
    "tax_for": "pricing",
    "normalize_sku": "parsing",
    "parse_qty": "parsing",
    "parse_line": "parsing",
    "price_line": "orders",
    "order_total": "orders",
    "batches": "batching",
    "page_count": "batching",
    "paginate": "batching",
    "median": "stats",
    "in_window": "stats",
    "format_amount": "stats",
    "check_budget": "perf",
}
MODULES = ("pricing", "parsing", "orders", "batching", "stats", "perf")
API_RENAMES = {"paginate": ("size", "per_page"), "format_amount": ("cur", "currency")}


def closure(function: str) -> set[str]:
    seen = {function}
    for dep in DEPS.get(function, ()):
        seen |= closure(dep)
    return seen


@dataclass
class Failure:
    """A visible test failing in the CI log."""

    test_id: str
    text: str
    """The log block (header, traceback, error line)."""
    kind: str = "FAIL"


@dataclass
class World:
    seed: int
    pkg: str
    threshold: int
    percent: int
    rates: dict[str, float]
    base_bug: str
    bugs: dict[str, str] = field(default_factory=dict)
    """Function → how its bug shows: logged, silent, quarantined, cascade."""
    data_errors: dict[str, float] = field(default_factory=dict)
    vendor_dir: str = "_vendor"
    vendor_note: bool = True
    vendor_failures: int = 0
    cascade: int = 0
    cascade_benign: bool = False
    flaky: int = 0
    flaky_benign: bool = True
    stale_api: list[str] = field(default_factory=list)
    api_note: str = ""
    decoys: list[tuple[str, str]] = field(default_factory=list)
    """(folder, module): a copy of a package module at <folder>/<module>.py."""
    attic_note: bool = False
    build_modules: list[str] = field(default_factory=list)
    build_in_log: bool = False
    egg_info: bool = False
    quarantine_marked: bool = False
    duplicate_test: bool = False
    cross: int = 0
    data_doc: str = "markdown"
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → functions (or data keys) its challenge concerns."""

    def tag(self, pattern: str, name: str) -> None:
        self.tags.setdefault(pattern, set()).add(name)

    @property
    def vendor_path(self) -> str:
        return f"{self.pkg}/{self.vendor_dir}/{VENDOR_LIB}.py"

    def quarantined(self) -> list[str]:
        return sorted(f for f, kind in self.bugs.items() if kind == "quarantined")


def generate(seed: int, salt: int) -> World:
    rng = seeded("coderepair", seed, salt)
    rates = {"standard": rng.choice((0.19, 0.2, 0.21)), "reduced": rng.choice((0.05, 0.07, 0.1))}
    rates |= {"food": rng.choice((0.025, 0.04, 0.06)), "books": rng.choice((0.0, 0.03, 0.055))}
    base = rng.choice(SAFE_BASE)
    return World(
        seed=seed,
        pkg=rng.choice(PACKAGES),
        threshold=rng.randint(6, 24),
        percent=rng.choice((5, 10, 15, 20, 25)),
        rates=rates,
        base_bug=base,
        bugs={base: "logged"},
    )


def free_functions(world: World) -> list[str]:
    """Bug-free functions a pattern may put a bug in."""
    pool = [f for f in BUGS if f != "discount_rate" and f not in world.bugs]
    if world.cascade:
        pool = [f for f in pool if f not in CASCADE_VALUE]
    return pool


# -- rendering ------------------------------------------------------------------------------------


def _doc(examples: list[tuple[str, str]]) -> str:
    return "\n".join(f"    >>> {call}\n    {shown}" for call, shown in examples)


EXAMPLES: dict[str, list[str]] = {
    "is_bulk": ["is_bulk({t})", "is_bulk({t1})", "is_bulk({t2})"],
    "discount_rate": ["discount_rate({t})", "discount_rate(1)"],
    "line_total": ["line_total(3, 2.5)", "line_total(4, 0.125)", "line_total(2, 0.335)"],
    "net_amount": ["net_amount(200.0, 0.1)", "net_amount(80.0, 0.0)"],
    "tax_for": [
        'tax_for(100.0, "standard")',
        'tax_for(50.0, "reduced")',
        'tax_for(80.0, "food")',
        'tax_for(40.0, "books")',
    ],
    "normalize_sku": ['normalize_sku("  ab-12 ")', 'normalize_sku("Xy-7")'],
    "parse_qty": ['parse_qty("1,200")', 'parse_qty(" 7 ")'],
    "parse_line": ['parse_line("ab-1; 3; 2.50")'],
    "price_line": ['price_line("ab-1; {t}; 10.00")', 'price_line("cd-2; 1; 4.00")'],
    "order_total": ['order_total(["ab-1; {t}; 2.00", "cd-2; 2; 1.25"])', 'order_total(["ab-1; 1; 2.50"])'],
    "batches": ["batches([1, 2, 3, 4, 5], 2)", "batches([1, 2, 3, 4], 2)", "batches([], 3)"],
    "page_count": ["page_count(10, 3)", "page_count(9, 3)", "page_count(0, 5)"],
    "paginate": ["paginate([1, 2, 3, 4, 5], 2, per_page=2)", "paginate([1, 2, 3], 1, per_page=5)"],
    "median": ["median([3, 1, 2])", "median([4, 1, 3, 2])", "median([7, 9])"],
    "in_window": ["in_window(5, 5, 10)", "in_window(10, 5, 10)", "in_window(4, 5, 10)"],
    "format_amount": ['format_amount(1234.5, currency="EUR")', 'format_amount(0.5, currency="USD")'],
    "check_budget": ["check_budget(0.05, 0.05)", "check_budget(0.01, 0.05)"],
}
EXTRA: dict[str, list[str]] = {
    "is_bulk": ["is_bulk({t3})", "is_bulk(0)"],
    "discount_rate": ["discount_rate({t3})", "discount_rate({t1})"],
    "line_total": ["line_total(7, 1.1)", "line_total(1, 0.005)"],
    "net_amount": ["net_amount(99.99, 0.25)", "net_amount(10.0, 0.5)"],
    "tax_for": [
        'tax_for(19.99, "standard")',
        'tax_for(250.0, "books")',
        'tax_for(12.5, "food")',
        'tax_for(3.0, "reduced")',
    ],
    "normalize_sku": ['normalize_sku("qq-100")', 'normalize_sku("\\tzz-9\\n")'],
    "parse_qty": ['parse_qty("12,345")'],
    "parse_line": ['parse_line(" zz-9 ;1,000; 0.5")'],
    "price_line": ['price_line("ef-3; {t3}; 1.99")', 'price_line("gh-4; 2; 3.10")'],
    "order_total": ['order_total(["ab-1; {t3}; 2.00", "cd-2; 3; 1.10"])', "order_total([])"],
    "batches": ["batches([1, 2, 3, 4, 5, 6, 7], 3)", "batches([1], 5)", "batches(list(range(9)), 4)"],
    "page_count": ["page_count(11, 5)", "page_count(1, 1)", "page_count(100, 7)"],
    "paginate": ["paginate(list(range(10)), 3, per_page=4)", "paginate([1, 2], 3, per_page=2)"],
    "median": ["median([5])", "median([10, 2, 8, 4])", "median([1, 2, 3, 4, 5, 6])"],
    "in_window": ["in_window(9, 5, 10)", "in_window(11, 5, 10)", "in_window(0, 0, 1)"],
    "format_amount": ['format_amount(1000000, currency="GBP")', 'format_amount(12.345, currency="EUR")'],
    "check_budget": ["check_budget(0.2, 0.05)", "check_budget(0.0, 0.0)"],
}


def expand(world: World, call: str) -> str:
    t = world.threshold
    return call.format(t=t, t1=t - 1, t2=t + 1, t3=t + 7)


def module_sources(world: World, buggy: bool, shown: dict[str, str] | None = None) -> dict[str, str]:
    """Workspace path → source of every package file; `shown`: call → repr for the doctests."""
    shown = shown or {}

    def doc(function: str) -> str:
        calls = [expand(world, c) for c in EXAMPLES[function]]
        return _doc([(c, shown.get(c, "None")) for c in calls])

    vendor = f"{world.vendor_dir}.{VENDOR_LIB}"
    sources = {
        f"{world.pkg}/__init__.py": _init(world),
        f"{world.pkg}/{world.vendor_dir}/__init__.py": "",
        world.vendor_path: VENDORED,
        f"{world.pkg}/data/tax_rates.json": json.dumps(
            {c: world.data_errors.get(c, world.rates[c]) if buggy else world.rates[c] for c in CATEGORIES}, indent=2
        )
        + "\n",
        f"{world.pkg}/pricing.py": PRICING.format(
            vendor=vendor,
            threshold=world.threshold,
            percent=world.percent,
            check=DISCOUNT_CHECK if world.cascade and world.cascade_benign else "",
            **{f"doc_{f}": doc(f) for f in ("is_bulk", "discount_rate", "line_total", "net_amount", "tax_for")},
        ),
        f"{world.pkg}/parsing.py": PARSING.format(
            **{f"doc_{f}": doc(f) for f in ("normalize_sku", "parse_qty", "parse_line")}
        ),
        f"{world.pkg}/orders.py": ORDERS.format(
            vendor=vendor,
            check=(
                '    if net < 0:\n        raise ValueError(f"negative net amount for {sku}: {net}")\n'
                if world.cascade <= 1
                else '    require_non_negative(net, f"net amount of {sku}")\n'
            ),
            wrap=ORDER_WRAP if world.cascade == 3 else ORDER_PLAIN,
            **{f"doc_{f}": doc(f) for f in ("price_line", "order_total")},
        ),
        f"{world.pkg}/batching.py": BATCHING.format(
            note=API_NOTE if world.api_note == "docstring" else "",
            **{f"doc_{f}": doc(f) for f in ("batches", "page_count", "paginate")},
        ),
        f"{world.pkg}/stats.py": STATS.format(**{f"doc_{f}": doc(f) for f in ("median", "in_window", "format_amount")}),
        f"{world.pkg}/perf.py": PERF.format(doc_check_budget=doc("check_budget")),
    }
    if buggy:
        for function in world.bugs:
            bug = BUGS[function]
            path = f"{world.pkg}/{bug.module}.py"
            if bug.correct not in sources[path]:
                raise ValueError(f"bug line of {function} not in {path}")
            sources[path] = sources[path].replace(bug.correct, bug.buggy, 1)
    return sources


def _init(world: World) -> str:
    names = sorted(MODULE_OF)
    lines = [f'"""{world.pkg}: order pricing, parsing, batching and statistics helpers (public API below)."""', ""]
    for module in MODULES:
        exported = [n for n in names if MODULE_OF[n] == module]
        lines.append(f"from .{module} import {', '.join(exported)}")
    lines += ["", "__all__ = [", *(f'    "{n}",' for n in names), "]", '__version__ = "2.1.0"', ""]
    return "\n".join(lines)


VENDORED = '''"""decimalish 1.4.2: small decimal helpers.

Vendored from https://pypi.org/project/decimalish/ (tag v1.4.2). Do not edit this file: it must stay
byte-identical to the upstream release; report problems upstream.
"""
# Vendored from decimalish 1.4.2 -- do not edit.

import math


def round_half_up(value, places=0):
    """Round to `places` decimals, halves rounding up.

    >>> round_half_up(2.675, 2)
    2.68
    """
    factor = 10**places
    return math.floor(round(value * factor, 9) + 0.5) / factor


def require_non_negative(value, name="value"):
    """Return `value`, or raise ValueError when it is negative."""
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    return value


def clamp(value, low, high):
    """`value` limited to [low, high]."""
    return max(low, min(value, high))
'''

PRICING = '''"""Prices, discounts and taxes of order lines."""

import json
from pathlib import Path

from .{vendor} import round_half_up

BULK_THRESHOLD = {threshold}
BULK_PERCENT = {percent}
RATES_FILE = Path(__file__).with_name("data") / "tax_rates.json"


def is_bulk(qty):
    """Whether a line of `qty` units earns the bulk discount: from BULK_THRESHOLD units up, inclusive.

{doc_is_bulk}
    """
    return qty >= BULK_THRESHOLD


def discount_rate(qty):
    """The discount rate of a line of `qty` units, as a fraction: BULK_PERCENT percent for bulk lines.

{doc_discount_rate}
    """
    rate = BULK_PERCENT / 100 if is_bulk(qty) else 0.0
{check}    return rate


def line_total(qty, unit_price):
    """`qty` times the unit price, rounded half up to cents.

{doc_line_total}
    """
    return round_half_up(qty * unit_price, 2)


def net_amount(amount, rate):
    """`amount` less a discount `rate` (a fraction), rounded half up to cents.

{doc_net_amount}
    """
    return round_half_up(amount * (1 - rate), 2)


def tax_for(amount, category):
    """Tax on `amount` at the rate of its product category (the package's data/tax_rates.json table).

{doc_tax_for}
    """
    rates = json.loads(RATES_FILE.read_text(encoding="utf-8"))
    return round_half_up(amount * rates[category], 2)
'''

DISCOUNT_CHECK = """    if not 0 <= rate <= 1:
        raise ValueError(f"discount rate out of range: {rate}")
"""

PARSING = '''"""Parsing order lines written as `sku; qty; unit price`."""


def normalize_sku(text):
    """A SKU as the catalogue writes it: trimmed, in upper case.

{doc_normalize_sku}
    """
    return text.strip().upper()


def parse_qty(text):
    """A quantity, thousands separators allowed.

{doc_parse_qty}
    """
    return int(text.strip().replace(",", ""))


def parse_line(text):
    """`sku; qty; unit price` as (sku, qty, unit price).

{doc_parse_line}
    """
    sku, qty, price = (part.strip() for part in text.split(";"))
    return normalize_sku(sku), parse_qty(qty), float(price)
'''

ORDERS = '''"""Orders: the net amount of each line and of a whole order."""

from .{vendor} import require_non_negative, round_half_up
from .parsing import parse_line
from .pricing import discount_rate, line_total, net_amount


class OrderError(Exception):
    """An order that cannot be priced."""


def price_line(text):
    """The net amount of one order line (`sku; qty; unit price`).

{doc_price_line}
    """
    sku, qty, unit_price = parse_line(text)
    amount = line_total(qty, unit_price)
    net = net_amount(amount, discount_rate(qty))
{check}    return net


def order_total(lines):
    """The net amount of an order: its lines' net amounts, summed and rounded to cents.

{doc_order_total}
    """
    total = 0.0
{wrap}    return round_half_up(total, 2)
'''

ORDER_PLAIN = """    for line in lines:
        total += price_line(line)
"""
ORDER_WRAP = """    for number, line in enumerate(lines, start=1):
        try:
            total += price_line(line)
        except ValueError as exc:
            raise OrderError(f"line {number} cannot be priced") from exc
"""

BATCHING = '''"""Batching and paging lists of items."""


def batches(items, batch_size):
    """`items` cut into consecutive batches of `batch_size` (the last one may be shorter).

{doc_batches}
    """
    return [items[i : i + batch_size] for i in range(0, len(items), batch_size)]


def page_count(total, per_page):
    """How many pages `total` items fill at `per_page` items a page.

{doc_page_count}
    """
    return (total + per_page - 1) // per_page


def paginate(items, page, per_page):
    """The items of 1-based page `page`, `per_page` items a page.
{note}
{doc_paginate}
    """
    start = (page - 1) * per_page
    return items[start : start + per_page]
'''

API_NOTE = """
    .. versionchanged:: 2.0
       The page size argument is `per_page`; the 1.x name is no longer accepted.
"""

STATS = '''"""Small statistics and time-window helpers."""


def median(values):
    """The median of `values` (the mean of the two middle values for an even count).

{doc_median}
    """
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def in_window(ts, start, end):
    """Whether `ts` falls in the half-open window [start, end).

{doc_in_window}
    """
    return start <= ts < end


def format_amount(value, currency):
    """`value` with its currency code, thousands separated, two decimals.

{doc_format_amount}
    """
    return f"{{currency}} {{value:,.2f}}"
'''

PERF = '''"""Timing helpers used by the performance smoke tests."""

import time


class BudgetExceeded(RuntimeError):
    """A timed call took longer than its budget."""


def check_budget(seconds, budget):
    """Return `seconds`, or raise BudgetExceeded when it is over `budget` (equal is within budget).

{doc_check_budget}
    """
    if seconds > budget:
        raise BudgetExceeded(f"took {{seconds:.4f}} s, budget {{budget}} s")
    return seconds


def timed(function, *args):
    """(result, seconds) of calling `function(*args)`."""
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started
'''


# -- running the generated package ------------------------------------------------------------------

_loads = itertools.count()


@contextmanager
def loaded(sources: dict[str, str], pkg: str) -> Iterator[tuple[ModuleType, Path]]:
    """The package written to a temporary folder and imported under a private name."""
    name = f"_coderepair_{next(_loads)}"
    with tempfile.TemporaryDirectory(prefix="coderepair-") as tmp:
        root = Path(tmp) / pkg
        for path, text in sources.items():
            target = Path(tmp) / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        before = sys.dont_write_bytecode
        sys.dont_write_bytecode = True
        try:
            spec = importlib.util.spec_from_file_location(
                name, root / "__init__.py", submodule_search_locations=[str(root)]
            )
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            yield module, root
        finally:
            sys.dont_write_bytecode = before
            for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
                del sys.modules[key]


def plain(value: Any) -> Any:
    """A result as JSON shows it (tuples as lists)."""
    return json.loads(json.dumps(value))


def call(package: ModuleType, expression: str) -> Any:
    namespace = {n: getattr(package, n) for n in MODULE_OF}
    return eval(expression, {"__builtins__": {"list": list, "range": range}}, namespace)  # noqa: S307 - our own expressions


def outcome(package: ModuleType, expression: str) -> dict[str, Any]:
    try:
        return {"value": plain(call(package, expression))}
    except Exception as exc:
        return {"raises": type(exc).__name__, "exc": exc}


def split_call(expression: str) -> tuple[str, list[Any], dict[str, Any]]:
    """`f(a, b, k=v)` as (f, [a, b], {k: v}) with literal arguments evaluated."""
    function, _, rest = expression.partition("(")

    def grab(*args: Any, **kwargs: Any) -> tuple[list[Any], dict[str, Any]]:
        return list(args), kwargs

    args, kwargs = eval("grab(" + rest, {"__builtins__": {"list": list, "range": range}, "grab": grab})  # noqa: S307
    return function, plain(args), plain(kwargs)


@dataclass
class Truth:
    shown: dict[str, str]
    """Doctest call → the repr the correct package prints."""
    cases: list[list[Any]]
    """Hidden cases: [module, function, args, kwargs, expected]."""
    buggy: Callable[[str], dict[str, Any]] | None = None


def truth(world: World) -> tuple[dict[str, str], list[list[Any]]]:
    """The doctests' shown results and the hidden cases, from the correct package."""
    calls = {f: [expand(world, c) for c in EXAMPLES[f] + EXTRA[f]] for f in MODULE_OF}
    shown: dict[str, str] = {}
    cases: list[list[Any]] = []
    with loaded(module_sources(world, buggy=False), world.pkg) as (package, _):
        for expressions in calls.values():
            for expression in expressions:
                result = outcome(package, expression)
                name, args, kwargs = split_call(expression)
                if "value" in result:
                    shown[expression] = repr(call(package, expression))
                    cases.append([MODULE_OF[name], name, args, kwargs, result["value"]])
                else:
                    cases.append([MODULE_OF[name], name, args, kwargs, {"raises": result["raises"]}])
    return shown, cases


def failure_trace(world: World, package: ModuleType, root: Path, expression: str, prefix: str) -> str:
    """The formatted exception (tracebacks from the package's frames down, and the error line) of a call
    that raises in the buggy package; "" when it does not raise."""
    try:
        call(package, expression)
    except Exception as exc:
        text = "".join(traceback.format_exception(exc)).replace(str(root.parent) + "/", prefix)
        text = re.sub(r"_coderepair_\d+", world.pkg, text)
        return "\n".join(_drop_harness(text.splitlines()))
    return ""


def _drop_harness(lines: list[str]) -> list[str]:
    """Frames of this module (the harness that called the function) removed, with their code lines."""
    out: list[str] = []
    skip = False
    for line in lines:
        if line.startswith('  File "') and ("/skill2env/" in line or '"<string>"' in line):
            skip = True
            continue
        if skip and line.startswith("    ") and not line.startswith('  File "'):
            continue
        skip = False
        if set(line.strip()) <= {"^", "~"} and line.strip():
            continue
        out.append(line)
    return out

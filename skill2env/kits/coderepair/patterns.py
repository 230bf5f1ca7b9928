"""Codebase-repair pattern transformers: each builds one pool pattern into the package at intensity 1-3.

A pattern's trap is drawn benign now and then at intensities 1 and 2 (the challenge is there but the
obvious reading happens to be right) and never at 3, from the pattern's own first draw, so raising an
intensity never turns a trap back into a benign form.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from skill2env.kits.coderepair.docs import LOG, QUARANTINE, RATES_DOC
from skill2env.kits.coderepair.world import BUGS, CATEGORIES, MODULE_OF, MODULES, World, free_functions
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.85, 2: 0.5, 3: 0.0}


def _benign(rng: random.Random, level: int) -> bool:
    return rng.random() < BENIGN[level]


def _bugged_modules(world: World) -> set[str]:
    failing = set(world.bugs) | set(world.stale_api) | ({"tax_for"} if world.data_errors else set())
    failing |= {"check_budget"} if world.flaky and not world.flaky_benign else set()
    return {MODULE_OF[f] for f in failing}


def _safe_module(world: World, rng: random.Random) -> str:
    return rng.choice([m for m in MODULES if m not in _bugged_modules(world)] or ["perf"])


def _first_def(module: str) -> str:
    return "def " + next(f for f, m in MODULE_OF.items() if m == module) + "("


def error_cascade_root_cause(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.cascade_benign = _benign(rng, level)
    world.cascade = level
    world.bugs["discount_rate"] = "cascade"
    for function in ("discount_rate", "price_line", "order_total"):
        world.tag("error_cascade_root_cause", function)
    design.plant(
        "error_cascade_root_cause",
        "cascade.rate",
        "discount_rate documents the bulk rate as a fraction of BULK_PERCENT",
        "BULK_PERCENT",
        f"{world.pkg}/pricing.py",
    )
    design.forms["error_cascade_root_cause"] = {
        1: "The log's traceback ends in the caller price_line, which rejects a negative net amount; the wrong "
        "value comes from discount_rate one call away.",
        2: "The exception is raised inside the vendored dependency that price_line calls; the bug is in "
        "discount_rate, which the traceback never shows.",
        3: "As level 2, chained: the log's last traceback is the OrderError order_total raises, two calls above "
        "the bug.",
    }[level]


def sanity_check_reveals_silent_error(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    pool = free_functions(world)
    for function in rng.sample(pool, min(level, len(pool))):
        world.bugs[function] = "logged" if benign else "silent"
        world.tag("sanity_check_reveals_silent_error", function)
    design.plant(
        "sanity_check_reveals_silent_error",
        "docs.examples",
        "the docstring examples are the documented behaviour",
        "docstrings",
        "README.md",
    )
    design.forms["sanity_check_reveals_silent_error"] = {
        1: "One more bug no visible test covers: only its docstring examples show the function misbehaves.",
        2: "Two silent bugs, each visible only through its function's docstring examples.",
        3: "Three silent bugs across modules, none covered by a visible test.",
    }[level]


def intermittent_failure_real_bug(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    pool = free_functions(world)
    for function in rng.sample(pool, min(2 if level == 3 else 1, len(pool))):
        world.bugs[function] = "logged" if benign else "quarantined"
        world.tag("intermittent_failure_real_bug", function)
    world.quarantine_marked = level >= 2
    design.plant(
        "intermittent_failure_real_bug",
        "ci.log",
        "the last CI run's output",
        LOG,
        "README.md",
    )
    design.forms["intermittent_failure_real_bug"] = {
        1: f"A failing test is listed in {QUARANTINE} as flaky, but it fails because of a real bug.",
        2: "As level 1, and the CI log itself says quarantined failures do not block the merge.",
        3: "Two quarantined tests, each failing because of a real bug.",
    }[level]


def failure_rooted_in_data(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    world.data_doc = "html" if level == 3 else "markdown"
    if not benign:
        for category in rng.sample(CATEGORIES, level):
            rate = world.rates[category]
            world.data_errors[category] = round(rate / 10, 4) if rate else 0.1
    world.tag("failure_rooted_in_data", "tax_for")
    design.plant(
        "failure_rooted_in_data",
        "data.rates",
        "the approved tax rates",
        "category",
        f"{RATES_DOC}.{'html' if level == 3 else 'md'}",
    )
    design.forms["failure_rooted_in_data"] = {
        1: "tax_for's test fails although its code is right: one rate of the package's tax table is wrong.",
        2: "Two wrong rates in the tax table; the approved rates are in the docs.",
        3: "Three wrong rates, the approved ones only in an HTML page.",
    }[level]


def misleading_tool_error(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.flaky_benign = _benign(rng, level)
    world.flaky = level
    world.tag("misleading_tool_error", "check_budget")
    design.plant(
        "misleading_tool_error",
        "perf.budget",
        "the performance smoke tests time calls against a budget",
        "check_budget",
        "tests/test_perf.py",
    )
    design.forms["misleading_tool_error"] = {
        1: "A timing test failed on the loaded CI machine; nothing in the package is wrong.",
        2: "The timing failure is raised inside the package's check_budget, which is correct.",
        3: "Both timing failures in the log, one through check_budget.",
    }[level]


def implicit_constraint(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    world.stale_api = [] if benign else (["paginate", "format_amount"] if level == 3 else ["paginate"])
    world.api_note = "docstring" if level == 2 else "changelog"
    for function in ("paginate", "format_amount"):
        world.tag("implicit_constraint", function)
    design.plant(
        "implicit_constraint",
        "api.public",
        "the README lists the public API",
        "paginate",
        "README.md",
    )
    design.forms["implicit_constraint"] = {
        1: "A visible test still calls paginate with its 1.x keyword; the changelog says the API changed, so the "
        "test is stale and the signature must stay.",
        2: "As level 1, the rename documented only in the function's docstring.",
        3: "Two stale tests against two public functions.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    world.vendor_failures = 0 if benign else (2 if level == 3 else 1)
    world.vendor_dir = "_vendor" if level == 1 else "compat"
    world.vendor_note = level == 1
    world.tag("scope_distractor", "vendor")
    design.plant(
        "scope_distractor",
        "vendor.header",
        "the vendored module must not be edited",
        "Vendored from",
        world.vendor_path,
    )
    design.forms["scope_distractor"] = {
        1: "An upstream test of the vendored dependency fails in the log; VENDORED.md says the file is not edited.",
        2: "As level 1, the dependency vendored under compat/ and marked only by its header.",
        3: "As level 2, with two failing upstream tests.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.duplicate_test = not _benign(rng, level)
    world.cross = level
    design.plant("cross_deliverable_agreement", "report.agree", "the two reports describe the same repair", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "report.md's bug count must agree with report.json; one bug fails two visible tests.",
        2: "As level 1, and report.md names every root cause of report.json.",
        3: "As level 2, with the duplicate test's examples in another order.",
    }[level]


def misleading_file_name(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    module = _safe_module(world, rng) if benign else BUGS[world.base_bug].module
    folders = {
        1: [f"_attic/{world.pkg}"],
        2: [f"{world.pkg}/_legacy"],
        3: [f"_attic/{world.pkg}", f"{world.pkg}/_legacy"],
    }
    world.decoys = [(folder, module) for folder in folders[level]]
    world.attic_note = level == 1
    design.plant(
        "misleading_file_name",
        "decoy.copy",
        "an old copy of a package module sits outside the imported package",
        _first_def(module),
        f"{folders[level][0]}/{module}.py",
    )
    design.forms["misleading_file_name"] = {
        1: "An old copy of a buggy module sits under _attic/ (the README says it is not imported).",
        2: "The copy sits inside the package under _legacy/, with nothing saying it is dead code.",
        3: "Copies in both places.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = _benign(rng, level)
    if benign:
        world.build_modules = [_safe_module(world, rng)]
    else:
        world.build_modules = [BUGS[world.base_bug].module] if level == 1 else list(MODULES)
        world.build_in_log = level >= 2
    world.egg_info = level == 3
    design.plant(
        "stale_derived_artifact",
        "build.copy",
        "a build output holds copies of package modules",
        _first_def(world.build_modules[0]),
        f"build/lib/{world.pkg}/{world.build_modules[0]}.py",
    )
    design.forms["stale_derived_artifact"] = {
        1: "A stale build/lib copy of the buggy module sits beside the sources.",
        2: "The whole package is built under build/lib, and the log's tracebacks point there.",
        3: "As level 2, with an egg-info folder beside it.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "error_cascade_root_cause": error_cascade_root_cause,
    "sanity_check_reveals_silent_error": sanity_check_reveals_silent_error,
    "intermittent_failure_real_bug": intermittent_failure_real_bug,
    "failure_rooted_in_data": failure_rooted_in_data,
    "misleading_tool_error": misleading_tool_error,
    "implicit_constraint": implicit_constraint,
    "scope_distractor": scope_distractor,
    "cross_deliverable_agreement": cross_deliverable_agreement,
    "misleading_file_name": misleading_file_name,
    "stale_derived_artifact": stale_derived_artifact,
}
PATTERNS = tuple(TRANSFORMERS)

"""Kit 5: codebase repair.

A seeded generated Python package (several modules, a public API, a vendored dependency, a partial
visible test suite and the log of its last CI run) with a seeded set of bugs → the repaired package
and a report naming each root cause. The verifier runs a hidden test suite, the package's ground
truth computed from the generated world, on a copy of the agent's package (see `hidden`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits import checks, scripts
from skill2env.kits.base import Kit
from skill2env.kits.coderepair.docs import LOG, render_world, root_causes
from skill2env.kits.coderepair.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.coderepair.world import BUGS, MODULE_OF, VENDOR_LIB, World, generate, loaded, module_sources, truth
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

REGRESSION = "output/regression_tests.py"
REPORT_JSON = "output/report.json"
REPORT_MD = "output/report.md"
HIDDEN_SOURCE = (Path(__file__).parent / "hidden.py").read_text(encoding="utf-8")
COUNT_LABEL = r"(?i)\bBugs fixed\**\s*[:=]\s*\**\s*(\d+)"
ENGINE = "skill2env.kits.coderepair.engine"


class CodeRepairKit(Kit):
    name = "coderepair"
    title = "Codebase repair"
    formats = ("python", "log", "markdown", "json", "html")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.DEBUGGING: 1.2,
        Trait.CODE_REPOSITORY: 0.3,
        Trait.LOGS: 0.1,
    }
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.DEBUGGING: "error_cascade_root_cause",
        Trait.CODE_REPOSITORY: "scope_distractor",
        Trait.LOGS: "misleading_tool_error",
        Trait.VERSION_HISTORY: "implicit_constraint",
        Trait.CONFIGURATION: "stale_derived_artifact",
        Trait.CLI_TOOLS: "intermittent_failure_real_bug",
        Trait.SKILL_SCRIPTS: "intermittent_failure_real_bug",
    }
    starters = ("error_cascade_root_cause", "misleading_tool_error", "scope_distractor", "implicit_constraint")
    solver_module = "skill2env.kits.coderepair.solver"
    naive_module = "skill2env.kits.coderepair.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        shown, cases = truth(world)
        rendered = render_world(world, shown)
        workspace = rendered.workspace
        composition = Composition(
            title=f"Repair the {world.pkg} package",
            goal=f"Find and fix the bugs of the {world.pkg} package at their root, keeping its public API, "
            "and report each root cause.",
            body=instruction_body(world),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (REGRESSION, "python", f"regression tests for the bugs you fixed in {world.pkg}", 0.55),
                (REPORT_JSON, "json", "the root causes of the bugs you fixed", 0.3),
                (REPORT_MD, "markdown", "a short repair report", 0.15),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.package", "the package to repair", InformationLevel.STATED, world.pkg)
        composition.fact("ci.log", "the last CI run's failures", found, "Traceback", location=LOG)
        composition.fact("api.all", "the package's public API", found, "__all__", location=f"{world.pkg}/__init__.py")
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, cases, workspace.files, patterns, design)
        return composition

    # -- scripts: the shared repair engine, then the solver or the naive policy ----------------------

    def reference_solver(self) -> str:
        return _script(self.solver_module, f"Reference solution ({self.title}).")

    def partial_policy(self) -> str:
        return _script(self.solver_module, f"Partial solution ({self.title}).", mode="partial")

    def naive_policy(self) -> str:
        return _script(self.naive_module, f"Naive baseline policy ({self.title}).")


def _script(module: str, description: str, *, mode: str = "full") -> str:
    """`scripts.shell_script` over the engine followed by `module` (one program, engine first)."""
    engine = scripts.python_program(ENGINE)
    body = scripts.python_program(module).split("\n\n# ---- " + module + "\n", 1)[1]
    whole = scripts.shell_script(ENGINE, description, mode=mode)
    return whole.replace(engine, engine + "\n# ---- " + module + "\n" + body, 1)


def instruction_body(world: World) -> str:
    return f"""The `{world.pkg}` package in this repository has bugs. `{LOG}` holds the output of its last CI run,
the `tests` folder its unit tests, and each function's docstring documents its behaviour.

Fix the package so that every function behaves as documented. Fix each bug at its root cause, keep the
public API (the names and parameters the package exports) as it is, and do not modify third-party code
vendored into the repository. Your fixed package is exercised by its own tests and further tests of the
documented behaviour.

Add `{REGRESSION}`: `unittest` tests, one or more per bug, that fail on the original code and pass on your
fix (importing `{world.pkg}` from the repository root).

Then report:

1. `{REPORT_JSON}`: `{{"root_causes": ["<file>:<function>", ...]}}`, one entry per bug you fixed, naming the
   file (its path in the repository) and the function whose code was wrong; a wrong value in a data file is
   named `<file>:<key>`.
2. `{REPORT_MD}`: a line `Bugs fixed: <n>` (the number of root causes), then one line per root cause
   (`<file>:<function>`) with a sentence on what was wrong.
"""


def _cases_of(cases: list[list[Any]], functions: set[str]) -> list[list[Any]]:
    return [case for case in cases if case[1] in functions]


def items(world: World, cases: list[list[Any]], files: Mapping[str, bytes], patterns: Mapping[str, int],
          design: Design) -> list[Item]:  # fmt: skip
    package = REGRESSION
    vendored = [world.vendor_path, f"{world.pkg}/{world.vendor_dir}/__init__.py"]
    unchanged = {path: hashlib.sha256(files[path]).hexdigest() for path in vendored}
    api = signatures(world)
    facts = ("ci.log", "api.all")
    base = {world.base_bug}
    result = [
        Item(
            "tests.hidden",
            "The repaired package passes the whole hidden test suite of its documented behaviour, keeps its "
            "public API and leaves the vendored dependency as shipped.",
            package,
            hidden_check(world.pkg, cases, api, unchanged),
            {"cases": len(cases), "digest": _digest(cases)},
            facts,
            "Every function's documented behaviour, computed from the correct package.",
        )
    ]
    for pattern_id in patterns:
        if pattern_id == "cross_deliverable_agreement":
            continue
        tagged = world.tags.get(pattern_id, set()) & set(MODULE_OF)
        chosen = _cases_of(cases, tagged | base)
        result.append(
            Item(
                f"tests.{pattern_id}",
                f"The hidden tests of the functions the {pattern_id.replace('_', ' ')} challenge concerns pass"
                + (", the vendored files unchanged" if pattern_id == "scope_distractor" else "")
                + (", the public signatures kept" if pattern_id == "implicit_constraint" else "")
                + ".",
                package,
                hidden_check(
                    world.pkg,
                    chosen,
                    api if pattern_id == "implicit_constraint" else {},
                    unchanged if pattern_id == "scope_distractor" else {},
                ),
                {"cases": len(chosen), "digest": _digest(chosen)},
                design.facts_of(pattern_id) or facts,
                design.forms[pattern_id],
                patterns=(pattern_id,),
            )
        )
    causes = root_causes(world)
    linked = tuple(p for p in patterns if p != "cross_deliverable_agreement")
    result.append(
        Item(
            "report.root_causes",
            "report.json names exactly the root causes: each buggy function (or data key) and its file.",
            REPORT_JSON,
            checks.json_value(REPORT_JSON, "$.root_causes", causes, unordered=True),
            causes,
            facts,
            "The functions whose code is wrong, not where the tracebacks end, nor flaky or stale tests.",
            patterns=linked,
        )
    )
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    result.append(
        Item(
            "report.count",
            "report.md's bug count agrees with report.json.",
            REPORT_MD,
            checks.counts_equal([{"path": REPORT_MD, "regex": COUNT_LABEL}], len(causes)),
            len(causes),
            facts,
            "The number of root causes, in prose.",
            patterns=cross,
        )
    )
    if world.cross >= 2:
        result.append(
            Item(
                "report.causes",
                "report.md names every root cause of report.json.",
                REPORT_MD,
                CheckSpec(
                    check="text_contains",
                    params={"path": REPORT_MD, "contains": causes, "ignore_case": True, "normalize_whitespace": True},
                ),
                causes,
                facts,
                "The root causes, in prose.",
                patterns=cross,
            )
        )
    return result


def _digest(value: Any) -> str:
    import json

    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:16]


def hidden_check(
    package: str, cases: list[list[Any]], api: Mapping[str, Any], unchanged: Mapping[str, str]
) -> CheckSpec:
    args: dict[str, Any] = {"package": package, "cases": cases, "present": [REGRESSION]}
    if api:
        args["api"] = dict(api)
    if unchanged:
        args["unchanged"] = dict(unchanged)
    return CheckSpec(check="python", params={"source": HIDDEN_SOURCE, "function": "check", "args": args})


def signatures(world: World) -> dict[str, list[Any]]:
    """Public function → [module, parameter names], read off the correct package."""
    import inspect

    found: dict[str, list[Any]] = {}
    with loaded(module_sources(world, buggy=False), world.pkg) as (package, _):
        for name, module in MODULE_OF.items():
            found[name] = [module, list(inspect.signature(getattr(package, name)).parameters)]
    return found


KIT = CodeRepairKit()
__all__ = ["BUGS", "KIT", "VENDOR_LIB", "CodeRepairKit"]

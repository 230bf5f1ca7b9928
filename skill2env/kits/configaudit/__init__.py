"""Kit 4: configuration / policy audit.

A repository of configuration files (CI workflows, YAML / JSON / TOML, env files, bundles) and a
written policy with updates, exceptions and waivers → a findings file with exact locations, a JSON
summary and a short report.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.configaudit.docs import render_world
from skill2env.kits.configaudit.patterns import PATTERNS, TRANSFORMERS
from skill2env.kits.configaudit.world import RULES, Expected, World, expected, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

FINDINGS = "output/findings.csv"
SUMMARY = "output/summary.json"
REPORT = "output/report.md"
KEY = ("rule", "file", "line")
ABSENCE_SOURCE = (Path(__file__).parent / "absence.py").read_text(encoding="utf-8")
FINDINGS_LABEL = r"(?i)\bFindings\**\s*[:=]\s*\**\s*(\d+)"


class ConfigAuditKit(Kit):
    name = "configaudit"
    title = "Configuration and policy audit"
    formats = ("yaml", "json", "toml", "env", "html", "markdown", "tar.gz", "zip", "csv")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.CONFIGURATION: 1.5,
        Trait.CODE_REPOSITORY: 0.6,
        Trait.STRUCTURED_DATA: 0.4,
        Trait.VERSION_HISTORY: 0.2,
        Trait.DOCUMENTS: 0.1,
    }
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.CONFIGURATION: "hidden_override_defeats_fix",
        Trait.CODE_REPOSITORY: "implicit_constraint",
        Trait.STRUCTURED_DATA: "schema_drift_between_exports",
        Trait.VERSION_HISTORY: "authority_resolution",
        Trait.DOCUMENTS: "formatting_carries_meaning",
        Trait.CLI_TOOLS: "nested_container_evidence",
        Trait.SKILL_SCRIPTS: "nested_container_evidence",
    }
    starters = (
        "scope_distractor",
        "claim_without_receipt",
        "hidden_override_defeats_fix",
        "authority_resolution",
        "misleading_file_name",
    )
    solver_module = "skill2env.kits.configaudit.solver"
    naive_module = "skill2env.kits.configaudit.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        workspace = render_world(world)
        truth = expected(world)
        composition = Composition(
            title="Audit the configuration repository against the policy",
            goal=f"Find every violation of the configuration policy in this repository as of "
            f"{world.audit.isoformat()}, with exact locations.",
            body=instruction_body(world),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (FINDINGS, "csv", "one row per violation: rule, file and line", 0.45),
                (SUMMARY, "json", "counts by rule and the exceptions applied", 0.35),
                (REPORT, "markdown", "the audit report", 0.2),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.audit-date", "the audit date", InformationLevel.STATED, world.audit.isoformat())
        composition.fact(
            "policy.rules", "the policy's rules", found, "40-character commit SHA", location="docs/policy.html"
        )
        composition.fact(
            "policy.exceptions",
            "the listed exceptions",
            found,
            world.exceptions[0].id,
            location="policy/exceptions.yaml",
        )
        composition.fact(
            "repo.layers",
            "how configuration layers override each other",
            found,
            "config.override.yaml",
            location="README.md",
        )
        composition.fact(
            "repo.files", "the repository's configuration files", found, "permissions", location=".github/workflows/"
        )
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, truth, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""Audit this repository's configuration against the policy in `docs/policy.html` and the documents
it refers to, as of {world.audit.isoformat()}.

Report one finding per violation: the rule id, the file, and the 1-based line of the offending key or value (a
required key that is missing is reported at line 1). A file is named by its path in the repository; a file
inside an archive is named `<archive>!/<member>` (nested archives chain `!/`). Exceptions and waivers that
apply remove their findings.

Formats:

1. `output/findings.csv` with the header `rule,file,line,detail` (`detail`: a few words on the violation).
2. `output/summary.json`:
   `{{"findings": <n>, "by_rule": {{"<rule>": <n>, ...}}, "exceptions_applied": ["<exception id>", ...]}}`
   (`by_rule` lists the rules with findings; `exceptions_applied` the exceptions that removed a finding).
3. `output/report.md` with a line `Findings: <n>` and a short paragraph per rule with findings, opening with
   `<rule>: <n>` (the rule id and its number of findings).
"""


def items(world: World, truth: Expected, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    result: list[Item] = []
    facts = ("policy.rules", "repo.files", "policy.exceptions")
    rows = [{"rule": f.rule, "file": f.file, "line": f.line} for f in truth.findings]
    result.append(
        Item(
            "findings.all",
            "findings.csv lists exactly the violations, each at its file and line.",
            FINDINGS,
            checks.csv_rows(FINDINGS, KEY, [], rows, exact_keys=True),
            rows,
            facts,
            "Every rule in force applied to every in-scope file, minus exceptions and waivers.",
        )
    )
    counts = Counter((f.rule, f.file) for f in truth.findings)
    by_rule_all = Counter(f.rule for f in truth.findings)
    for pattern_id in patterns:
        tagged = sorted(k for k, tags in world.tags.items() if pattern_id in tags)
        present = [r for r in rows if (r["rule"], r["file"]) in tagged]
        absent = [k for k in tagged if (counts[k] if k[1] != "*" else by_rule_all.get(k[0], 0)) == 0]
        pattern_facts = design.facts_of(pattern_id) or facts
        if present:
            result.append(
                Item(
                    f"findings.{pattern_id}",
                    f"The violations carrying the {pattern_id.replace('_', ' ')} "
                    "challenge are reported at their exact lines.",
                    FINDINGS,
                    checks.csv_rows(FINDINGS, KEY, [], present),
                    present,
                    pattern_facts,
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )
        if absent:
            # A header-only file has no finding of any kind: the item also asks for the true findings
            # of the rules this challenge concerns (all of them when those rules have none).
            rules = {rule for rule, _ in tagged}
            required = [r for r in rows if r["rule"] in rules] or rows
            expected_rows: dict[str, list[list[Any]]] = {
                "absent": [list(k) for k in absent],
                "present": [list(r.values()) for r in required],
            }
            result.append(
                Item(
                    f"findings.{pattern_id}.none",
                    f"The findings of the rules the {pattern_id.replace('_', ' ')} challenge concerns are "
                    "reported, and none where the challenge means there is none.",
                    FINDINGS,
                    absence_check(expected_rows),
                    expected_rows,
                    pattern_facts,
                    design.forms[pattern_id],
                    patterns=(pattern_id,),
                )
            )
    by_rule = {rule: sum(1 for f in truth.findings if f.rule == rule) for rule in RULES}
    by_rule = {rule: n for rule, n in by_rule.items() if n}
    cross = ("cross_deliverable_agreement",) if "cross_deliverable_agreement" in patterns else ()
    claims = ("claim_without_receipt",) if "claim_without_receipt" in patterns else ()
    total = len(truth.findings)
    result.append(
        Item(
            "summary.findings",
            "summary.json counts the findings, as many as findings.csv lists.",
            SUMMARY,
            agreeing({"path": SUMMARY, "json_path": "$.findings"}, total),
            total,
            facts,
            "Rows of findings.csv.",
        )
    )
    result.append(
        Item(
            "summary.by_rule",
            "summary.json's counts by rule agree with findings.csv.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.by_rule", by_rule),
            by_rule,
            facts,
            "findings.csv by rule.",
            patterns=cross,
        )
    )
    result.append(
        Item(
            "summary.exceptions_applied",
            "summary.json lists exactly the exceptions that removed a finding.",
            SUMMARY,
            checks.json_value(SUMMARY, "$.exceptions_applied", truth.exceptions_applied, unordered=True),
            truth.exceptions_applied,
            ("policy.exceptions",),
            "Valid exceptions matching a violation.",
            patterns=claims,
        )
    )
    result.append(
        Item(
            "report.count",
            "The report's finding count agrees with findings.csv.",
            REPORT,
            agreeing({"path": REPORT, "regex": FINDINGS_LABEL}, total),
            total,
            facts,
            "Rows of findings.csv, in prose.",
            patterns=cross,
        )
    )
    if by_rule:
        # The ids alone are in every policy text a stuffed report copies; their counts are not.
        phrases = [f"{rule}: {count}" for rule, count in sorted(by_rule.items())]
        result.append(
            Item(
                "report.rules",
                "The report names every rule with findings beside its number of findings.",
                REPORT,
                report_phrases(phrases),
                phrases,
                facts,
                "The rules of findings.csv and their counts.",
            )
        )
    return result


def absence_check(expected_rows: Mapping[str, list[list[Any]]]) -> CheckSpec:
    """No row at the `absent` (rule, file) pairs, every `present` row there (see `absence`)."""
    args = {"path": FINDINGS, **expected_rows}
    return CheckSpec(check="python", params={"source": ABSENCE_SOURCE, "function": "check", "args": args})


def agreeing(source: Mapping[str, Any], total: int) -> CheckSpec:
    """`source` reads the true count, and findings.csv has that many rows (an instruction's example
    number in an otherwise empty deliverable is no count)."""
    return checks.counts_equal([source, {"path": FINDINGS, "count": "rows"}], total)


def report_phrases(phrases: list[str]) -> CheckSpec:
    """Every phrase in the report, case and runs of whitespace aside."""
    return CheckSpec(
        check="text_contains",
        params={"path": REPORT, "contains": phrases, "ignore_case": True, "normalize_whitespace": True},
    )


KIT = ConfigAuditKit()

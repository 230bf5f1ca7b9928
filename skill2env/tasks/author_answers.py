"""What the author model answers at each step, and what makes an answer unusable.

Step 1 (`BlueprintAnswer`) is the blueprint without what the pipeline already knows (the skill,
the domain, the iteration); step 2 (`BuildAnswer`) is everything built from it. Each step's
problems are `Finding`s named like the author-side checks (`criteria.orphan_item`,
`rubric.unknown_check`, `solution.hardcoded_answer`, …): their `reason` lines go back to the
model for repair, and end up as a rejection's reasons when repair runs out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from skill2env.agent.scripted import solution_steps
from skill2env.patterns.models import InformationLevel
from skill2env.patterns.pool import PatternPool
from skill2env.rubric import Rubric, check_problems
from skill2env.tasks.blueprint import (
    AcceptanceCriterion,
    Blueprint,
    Challenge,
    Deliverable,
    Derivation,
    Fact,
    SkillRef,
)
from skill2env.tasks.checks import Finding, Severity, validate_blueprint
from skill2env.tasks.harbor import RESERVED_VERIFIER_FILES, VERIFIER_SCRIPT
from skill2env.tasks.normalize import Haystack, ValueKind, find, needle, same_value

APT_PACKAGE = re.compile(r"^[a-z0-9][a-z0-9+.-]{0,62}$")
PIP_PACKAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}(\[[A-Za-z0-9._,-]+\])?(==[A-Za-z0-9.*+!-]+)?$")
NPM_PACKAGE = re.compile(r"^(@[a-z0-9][a-z0-9._~-]{0,62}/)?[a-z0-9][a-z0-9._~-]{0,62}(@[0-9][0-9A-Za-z.+-]*)?$")
"""An npm name, scoped or not, pinned (if at all) to an exact version: `typescript@5.4.5`."""
PIN_RULES = {"pip": " (pin versions with == only)", "npm": " (pin an exact version with @ only)"}
"""Names go unquoted into a Dockerfile `RUN` line, so only a name and an `==` pin (`>=` would be a
shell redirection)."""
VERIFIER_PATHS = re.compile(r"(?<![\w.-])/tests\b")
"""Where the verifier's files are inside the environment (a workspace folder named `tests/` is fine)."""


MAX_CHALLENGES = 10
MAX_FACTS = 60
MAX_DELIVERABLES = 10
MAX_FILES = 60
MAX_PACKAGES = 20
MAX_SCRIPT_CHARS = 60_000
MAX_INLINE_FILE_CHARS = 200_000
"""Bounds on every list and long string of an author's answers: in the schema, so a server that
constrains output to it cannot loop until the context fills (an unbounded list), and checked on
the answer."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BlueprintAnswer(_Answer):
    """Step 1: the task blueprint, as the model drafts it."""

    task_name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$", max_length=60)
    goal: str = Field(min_length=10, max_length=2_000)
    challenges: list[Challenge] = Field(min_length=1, max_length=MAX_CHALLENGES)
    facts: list[Fact] = Field(min_length=1, max_length=MAX_FACTS)
    derivations: list[Derivation] = Field(default_factory=list, max_length=MAX_FACTS)
    deliverables: list[Deliverable] = Field(min_length=1, max_length=MAX_DELIVERABLES)
    acceptance_criteria: list[AcceptanceCriterion] = Field(min_length=1, max_length=MAX_FACTS)
    rubric: Rubric

    def blueprint_data(self, skill: SkillRef, domain: str, task_name: str) -> dict[str, Any]:
        """The raw blueprint: this answer plus what the pipeline knows."""
        data = self.model_dump(mode="json")
        return data | {"task_name": task_name, "skill": skill.model_dump(mode="json"), "domain": domain}


class FileText(_Answer):
    path: str = Field(min_length=1, max_length=240)
    """Relative to its folder (the workspace, or the verifier's `tests/`)."""
    content: str = Field(max_length=MAX_INLINE_FILE_CHARS)


class BuildAnswer(_Answer):
    """Step 2: what is built from the blueprint, jointly."""

    instruction: str = Field(min_length=40, max_length=20_000)
    files: list[FileText] = Field(default_factory=list, max_length=MAX_FILES)
    """Small workspace files, inline."""
    generator: str = Field("", max_length=MAX_SCRIPT_CHARS)
    """A standard-library Python script that writes the (large) workspace files into its working directory."""
    solve_sh: str = Field(
        min_length=20,
        max_length=MAX_SCRIPT_CHARS,
        description="The reference solution: a bash script in ordered steps, each opened by a line "
        "`# --- step: <name> ---` (shebang, `set -euo pipefail` and `cd` before the first step).",
    )
    apt_packages: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=MAX_PACKAGES)
    pip_packages: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=MAX_PACKAGES)
    npm_packages: list[Annotated[str, Field(max_length=120)]] = Field(default_factory=list, max_length=MAX_PACKAGES)
    verifier_files: list[FileText] = Field(default_factory=list, max_length=MAX_FILES)
    """Expected data the checks compare against (e.g. `expected/detail.csv`), shipped with the verifier only."""


# --- step 1 ------------------------------------------------------------------------------------


def blueprint_findings(
    answer: BlueprintAnswer,
    *,
    skill: SkillRef,
    domain: str,
    task_name: str,
    selected: Collection[str],
    pool: PatternPool | None,
) -> tuple[Blueprint | None, list[Finding]]:
    """The blueprint this answer makes, and its errors: `validate_blueprint`'s, patterns outside the
    skill's selection and the pool, conflicting patterns, and rubric checks that are not registered."""
    blueprint, findings = validate_blueprint(answer.blueprint_data(skill, domain, task_name))
    errors = [f for f in findings if f.severity == Severity.error]
    errors += pattern_findings([c.pattern_id for c in answer.challenges], selected, pool)
    for problem in check_problems(answer.rubric):
        code = "unknown_check" if "unknown check" in problem else "bad_params"
        errors.append(_error("rubric", code, problem, problem.split(":", 1)[0]))
    return (blueprint if not errors else None), errors


def pattern_findings(used: list[str], selected: Collection[str], pool: PatternPool | None) -> list[Finding]:
    findings = []
    allowed = set(selected) | (set(pool.patterns) if pool is not None else set())
    for pattern_id in dict.fromkeys(used):
        if pattern_id not in allowed:
            message = (f"challenge pattern {pattern_id!r} is neither selected for this skill ({', '.join(selected)}) "
                       "nor in the pattern pool")  # fmt: skip
            findings.append(_error("patterns", "unknown_pattern", message, pattern_id))
    if selected and not set(used) & set(selected):
        message = f"no challenge instantiates a pattern selected for this skill ({', '.join(selected)})"
        findings.append(_error("patterns", "selection_unused", message))
    if pool is not None:
        known = [p for p in dict.fromkeys(used) if p in pool]
        for index, first in enumerate(known):
            for second in known[index + 1 :]:
                if second in pool.conflicts(first):
                    findings.append(_error("patterns", "conflict", f"patterns {first} and {second} conflict", first))
    return findings


# --- step 2 ------------------------------------------------------------------------------------


def build_findings(answer: BuildAnswer, blueprint: Blueprint, *, generator_available: bool) -> list[Finding]:
    """What is wrong with a build answer before anything runs: paths, packages, the skill named in
    the instruction, and a reference solution that reads the verifier or writes the answers down."""
    findings = [*_path_findings(answer), *_package_findings(answer)]
    if not answer.files and not answer.generator.strip():
        findings.append(_error("build", "empty_workspace", "the workspace has neither inline files nor a generator"))
    if answer.generator.strip() and not generator_available:
        message = "no sandbox can run a workspace generator here: give every workspace file inline instead"
        findings.append(_error("build", "generator_unavailable", message))
    mount = blueprint.skill.mount.rstrip("/")
    if mount not in answer.instruction:
        message = f"the instruction does not tell the agent where the skill is ({mount})"
        findings.append(_error("build", "skill_not_named", message, mount))
    findings += solution_findings(answer.solve_sh, blueprint)
    return findings


def solution_findings(solve_sh: str, blueprint: Blueprint) -> list[Finding]:
    """The reference solution derives the deliverables from the workspace: it has a shebang, never
    reads the verifier's files, and never writes an author-only or inferable value literally."""
    findings = []
    if not solve_sh.lstrip().startswith("#!"):
        findings.append(_error("solution", "no_shebang", "solve.sh must start with a shebang (#!/usr/bin/env bash)"))
    if VERIFIER_PATHS.search(solve_sh):
        message = "solve.sh reads the verifier's files (/tests); it must derive everything from the workspace"
        findings.append(_error("solution", "reads_verifier", message))
    findings += step_findings(solve_sh)
    hay = Haystack.of(solve_sh.splitlines())
    open_values = [needle(f.value) for f in _facts(blueprint, InformationLevel.STATED, InformationLevel.DISCOVERABLE)]
    for fact in _facts(blueprint, InformationLevel.AUTHOR_ONLY, InformationLevel.INFERABLE):
        target = needle(fact.value)
        if target.kind == ValueKind.unchecked or any(same_value(target, other) for other in open_values):
            continue
        if find(target, hay):
            message = (f"solve.sh writes the {fact.level.value} value of {fact.id} ({fact.value!r}) instead of "
                       "deriving it from the workspace")  # fmt: skip
            findings.append(_error("solution", "hardcoded_answer", message, fact.id))
    return findings


def step_findings(solve_sh: str) -> list[Finding]:
    """The steps of a solution written in steps (`sandbox.policies.solution_steps`) have distinct
    names and each runs a command. A solution without steps is not an error here: its partial gate
    is skipped, saying so."""
    findings = []
    seen: set[str] = set()
    for step in solution_steps(solve_sh).steps:
        if step.name in seen:
            findings.append(_error("solution", "duplicate_step", f"solve.sh has two steps named {step.name!r}",
                                   step.name))  # fmt: skip
        seen.add(step.name)
        commands = [line for line in step.text.splitlines()[1:] if line.strip() and not line.lstrip().startswith("#")]
        if not commands:
            findings.append(_error("solution", "empty_step", f"step {step.name!r} of solve.sh runs no command",
                                   step.name))  # fmt: skip
    return findings


def _path_findings(answer: BuildAnswer) -> list[Finding]:
    findings = []
    for area, entries in (("workspace", answer.files), ("verifier", answer.verifier_files)):
        seen: set[str] = set()
        for entry in entries:
            problem = path_problem(entry.path)
            if problem:
                findings.append(_error("build", "bad_path", f"{area} file {entry.path!r}: {problem}", entry.path))
            elif entry.path in seen:
                message = f"{area} file {entry.path} is given twice"
                findings.append(_error("build", "duplicate_path", message, entry.path))
            seen.add(entry.path)
            reserved = RESERVED_VERIFIER_FILES | {VERIFIER_SCRIPT}
            if area == "verifier" and entry.path in reserved:
                message = f"verifier file {entry.path} would replace the generated verifier; name it otherwise"
                findings.append(_error("build", "reserved_path", message, entry.path))
    return findings


def path_problem(path: str) -> str | None:
    """Why a relative file path is unusable (absolute, escaping, odd characters), or None."""
    if path.startswith("/") or "\\" in path or "\x00" in path:
        return "paths are relative, with forward slashes"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return "no empty, '.' or '..' parts"
    if any(not part.isprintable() for part in parts):
        return "no control characters"
    return None


def _package_findings(answer: BuildAnswer) -> list[Finding]:
    findings = []
    declared = (("apt", answer.apt_packages, APT_PACKAGE), ("pip", answer.pip_packages, PIP_PACKAGE),
                ("npm", answer.npm_packages, NPM_PACKAGE))  # fmt: skip
    for kind, names, pattern in declared:
        for name in names:
            if not pattern.fullmatch(name):
                pin = PIN_RULES.get(kind, "")
                message = f"{kind} package {name!r} is not a plain package name{pin}"
                findings.append(_error("build", "bad_package", message, name))
    return findings


def _facts(blueprint: Blueprint, *levels: InformationLevel) -> Iterable[Fact]:
    return [fact for fact in blueprint.facts if fact.level in levels]


def _error(check: str, code: str, message: str, subject: str = "") -> Finding:
    return Finding(check=check, code=code, severity=Severity.error, message=message, subject=subject)

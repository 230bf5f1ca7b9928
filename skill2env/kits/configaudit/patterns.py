"""Configuration-audit pattern transformers: each builds one pool pattern into the repository at intensity 1-3."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.configaudit.world import (
    SERVICES,
    Deploy,
    EnvFile,
    Job,
    PolicyException,
    ServiceConfig,
    Settings,
    Update,
    Workflow,
    World,
    candidates,
    sha,
)
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
POLICY = "docs/policy.html"


def _of(world: World, kind: type) -> list:
    return [f for f in world.files if isinstance(f, kind)]


def _violating(world: World, rule: str) -> list[str]:
    return sorted({f.file for f in candidates(world) if f.rule == rule and world.in_scope(f.file)})


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    prefix = (
        "vendor/" if level == 1 or (level == 2 and rng.random() < 0.5) else rng.choice(("third_party/", "examples/"))
    )
    lib = rng.choice(("libfoo", "acme-sdk", "grpc-lite"))
    workflow = Workflow(
        f"{prefix}{lib}/.github/workflows/ci.yml",
        "ci",
        [Job("test", uses=[("actions/checkout", "v4"), ("actions/cache", sha(rng))])],
    )
    settings = Settings(f"{prefix}{lib}/settings.json", lib, tls="1.0")
    world.files += [workflow, settings]
    world.tag("R1", workflow.path, "scope_distractor")
    world.tag("R4", settings.path, "scope_distractor")
    if level == 3:
        service = SERVICES[1]
        world.owners = {f"services/{service}/": "@data-team", f"deploy/{service}.toml": "@data-team"}
        config = next(f for f in _of(world, ServiceConfig) if f.path == f"services/{service}/config.yaml")
        config.debug = True
        deploy = next(f for f in _of(world, Deploy) if f.path == f"deploy/{service}.toml")
        deploy.secret = f"tok-{rng.randint(1000, 9999)}"
        world.tag("R3", config.path, "scope_distractor")
        world.tag("R6", deploy.path, "scope_distractor")
    design.plant(
        "scope_distractor", "scope.prefix", f"{prefix} is out of the policy's scope", prefix.rstrip("/"), POLICY
    )
    design.forms["scope_distractor"] = {
        1: "A vendored library under vendor/ carries violating workflow and settings files.",
        2: "The out-of-scope copy sits under third_party/ or examples/, which only the policy's scope names.",
        3: "As level 2, and the policy applies only to files CODEOWNERS gives the platform team.",
    }[level]


def authority_resolution(world: World, level: int, rng: random.Random, design: Design) -> None:
    effective = world.audit - timedelta(days=rng.randint(10, 90))
    world.updates.append(Update("R5", effective, "30", file="policy/updates/R5-timeouts.md"))
    deploys = _of(world, Deploy)
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    target = rng.choice([d for d in deploys if d.timeout <= 30 and not d.secret] or deploys)
    target.timeout = 28 if benign else 45
    world.tag("R5", target.path, "authority_resolution")
    if level >= 2:
        world.updates.append(
            Update("R4", world.audit - timedelta(days=5), "1.3", draft=True, file="policy/updates/R4-tls-draft.md")
        )
        for settings in _of(world, Settings):
            if settings.tls == "1.2":
                world.tag("R4", settings.path, "authority_resolution")
    if level == 3:
        world.updates.append(
            Update(
                "R5", world.audit + timedelta(days=rng.randint(5, 60)), "20", file="policy/updates/R5-timeouts-next.md"
            )
        )
        future = rng.choice([d for d in deploys if d is not target])
        if future.timeout <= 30:
            future.timeout = 25
        world.tag("R5", future.path, "authority_resolution")
    design.plant(
        "authority_resolution",
        "update.r5",
        "an update lowers R5's limit to 30 seconds",
        "30",
        "policy/updates/R5-timeouts.md",
    )
    design.forms["authority_resolution"] = {
        1: "A published update replaces R5's limit, and a deploy file sits between the old and new limits.",
        2: "As level 1, beside an unapproved draft update that would tighten R4.",
        3: "As level 2, and a second R5 update takes effect only after the audit date.",
    }[level]


def implicit_constraint(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.implicit = level
    workflows = [w for w in _of(world, Workflow) if world.in_scope(w.path)]
    jobs = [(w, j) for w in workflows for j in w.jobs]
    chosen = rng.sample(jobs, 3)
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    if not benign:
        chosen[0][1].timeout = None
        world.tag("R7", chosen[0][0].path, "implicit_constraint")
    if level >= 2 and not benign:
        chosen[1][1].runs_on = "ubuntu-latest"
        world.tag("R7", chosen[1][0].path, "implicit_constraint")
    if level == 3:
        chosen[2][1].timeout = None
        world.tag("R7", chosen[2][0].path, "implicit_constraint")
    if benign:  # every job follows the conventions: no R7 finding may be reported anywhere
        world.tag("R7", "*", "implicit_constraint")
    design.plant(
        "implicit_constraint",
        "convention.timeout",
        "every other job sets timeout-minutes",
        "timeout-minutes",
        workflows[0].path,
    )
    design.forms["implicit_constraint"] = {
        1: "R7 only says jobs follow the shared conventions; one job may lack the timeout every other job sets.",
        2: "Two unwritten conventions (a timeout, the pinned runner image), each broken once.",
        3: "Both conventions, broken by three jobs across workflows.",
    }[level]


def nested_container_evidence(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    bundle = "deploy/archive/legacy_bundle.tar.gz"
    world.archives[bundle] = [("batch.toml", Deploy("batch.toml", "batch", timeout=30 if benign else 120))]
    world.tag("R5", f"{bundle}!/batch.toml", "nested_container_evidence")
    if level >= 2:
        release = "deploy/release.zip"
        world.archives[release] = [
            (
                "payments-canary.toml",
                Deploy("payments-canary.toml", "payments", secret=None if benign else f"pw-{rng.randint(100, 999)}"),
            ),
            ("orders-canary.toml", Deploy("orders-canary.toml", "orders")),
        ]
        world.tag("R6", f"{release}!/payments-canary.toml", "nested_container_evidence")
        if level == 3:
            world.archives[release].append(("configs.tar.gz!/edge.toml", Deploy("edge.toml", "edge", timeout=300)))
            world.tag("R5", f"{release}!/configs.tar.gz!/edge.toml", "nested_container_evidence")
    design.plant(
        "nested_container_evidence", "bundle.deploy", "deploy bundles hold configuration files", "batch.toml", bundle
    )
    design.forms["nested_container_evidence"] = {
        1: "A deploy configuration lives inside a tar.gz bundle in the repository.",
        2: "As level 1, and a ZIP release bundle carries two more deploy files.",
        3: "As level 2, and the ZIP nests a tar.gz with one more deploy file.",
    }[level]


def claim_without_receipt(world: World, level: int, rng: random.Random, design: Design) -> None:
    r1 = _violating(world, "R1")
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    if benign or not r1:
        clean = [w.path for w in _of(world, Workflow) if w.permissions == "read" and world.in_scope(w.path)]
        rule, file = "R2", rng.choice(clean)
    else:
        rule, file = "R1", r1[0]
    world.exceptions.append(
        PolicyException("EX-2", rule, file, f"APR-{rng.randint(100, 999)}", world.audit + timedelta(days=90))
    )
    world.tag(rule, file, "claim_without_receipt")
    if level >= 2 and not benign:
        r4 = _violating(world, "R4")
        if r4:
            approval = f"APR-{rng.randint(100, 999)}"
            world.exceptions.append(PolicyException("EX-3", "R4", r4[0], approval, world.audit + timedelta(days=60)))
            world.approvals[approval] = ("R4", "services/other/settings.json")
            world.tag("R4", r4[0], "claim_without_receipt")
    if level == 3:
        r6 = _violating(world, "R6")
        if r6:
            approval = f"APR-{rng.randint(100, 999)}"
            world.exceptions.append(PolicyException("EX-4", "R6", r6[0], approval, world.audit - timedelta(days=20)))
            world.approvals[approval] = ("R6", r6[0])
            world.tag("R6", r6[0], "claim_without_receipt")
    design.plant(
        "claim_without_receipt", "exception.unapproved", "EX-2 has no approval record", "EX-2", "policy/exceptions.yaml"
    )
    design.forms["claim_without_receipt"] = {
        1: "An exception is listed without any approval record behind it.",
        2: "As level 1, and another exception's approval record approves a different file.",
        3: "As level 2, and a third exception is approved but expired before the audit date.",
    }[level]


def misleading_file_name(world: World, level: int, rng: random.Random, design: Design) -> None:
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    promoted = ServiceConfig(
        f"services/{SERVICES[3]}/config.staging.yaml",
        SERVICES[3],
        "production",
        debug=not benign,
        comment="" if level == 3 else "promoted to production; the file name is historical",
    )
    world.files.append(promoted)
    world.tag("R3", promoted.path, "misleading_file_name")
    if level >= 2:
        staging = ServiceConfig(
            f"services/{SERVICES[0]}/config.prod.yaml",
            SERVICES[0],
            "staging",
            debug=not benign,
            comment="" if level == 3 else "staging copy",
        )
        world.files.append(staging)
        world.tag("R3", staging.path, "misleading_file_name")
    design.plant(
        "misleading_file_name",
        "config.environment",
        "a config's environment is in its content",
        "environment: production",
        promoted.path,
    )
    design.forms["misleading_file_name"] = {
        1: "A file named config.staging.yaml declares environment: production (a comment hints at it).",
        2: "As level 1, and a config.prod.yaml declares environment: staging.",
        3: "Both misleading names, with no comments.",
    }[level]


def hidden_override_defeats_fix(world: World, level: int, rng: random.Random, design: Design) -> None:
    service = SERVICES[0]
    base = next(f for f in _of(world, ServiceConfig) if f.path == f"services/{service}/config.yaml")
    override = ServiceConfig(f"services/{service}/config.override.yaml", service)
    case_a = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    base.debug, override.debug = (False, True) if case_a else (True, False)
    world.files.append(override)
    if level == 3 or (level == 2 and not case_a):
        env = EnvFile(f"services/{service}/.env", app_debug=True)
        world.files.append(env)
        world.tag("R3", env.path, "hidden_override_defeats_fix")
    for path in (base.path, override.path):
        world.tag("R3", path, "hidden_override_defeats_fix")
    design.plant(
        "hidden_override_defeats_fix",
        "override.layer",
        "an override file sets debug for the service",
        "debug",
        override.path,
    )
    design.forms["hidden_override_defeats_fix"] = {
        1: "A config.override.yaml decides the effective debug setting over config.yaml.",
        2: "As level 1, or an APP_DEBUG in the service's .env overriding both YAML layers.",
        3: "The base enables debug, the override disables it, and the .env enables it again.",
    }[level]


def schema_drift_between_exports(world: World, level: int, rng: random.Random, design: Design) -> None:
    settings = rng.choice([s for s in _of(world, Settings) if s.tls == "1.2" and world.in_scope(s.path)])
    benign = rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]
    settings.v2, settings.tls = True, "1.2" if benign else "1.1"
    world.tag("R4", settings.path, "schema_drift_between_exports")
    if level >= 2:
        deploy = rng.choice([d for d in _of(world, Deploy) if world.in_scope(d.path) and d.timeout <= 30])
        deploy.v2, deploy.timeout = True, 45 if benign else 75
        world.tag("R5", deploy.path, "schema_drift_between_exports")
    design.plant(
        "schema_drift_between_exports",
        "schema.v2",
        "schema 2 nests TLS under tls.min_version",
        "min_version",
        "docs/config-schema.md",
    )
    design.forms["schema_drift_between_exports"] = {
        1: "One settings.json uses schema 2, which nests the TLS setting under another key.",
        2: "As level 1, and one deploy file uses schema 2's duration string for its timeout.",
        3: "Both schema-2 files, each violating its rule.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["cross"] = level
    design.plant("cross_deliverable_agreement", "deliverables.agree", "findings, summary and report agree", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "The summary's and the report's counts must agree with the findings file.",
        2: "A late waiver suspends one rule for one file, which must reach all three deliverables.",
        3: "As level 2, and an expired waiver that must not be applied.",
    }[level]
    if level == 1:
        return
    r1 = _violating(world, "R1")
    if r1:
        world.waivers.append(("W-1", "R1", r1[-1], world.audit + timedelta(days=30)))
        world.tag("R1", r1[-1], "cross_deliverable_agreement")
    if level == 3:
        r2 = _violating(world, "R2")
        if r2:
            world.waivers.append(("W-2", "R2", r2[0], world.audit - timedelta(days=3)))
            world.tag("R2", r2[0], "cross_deliverable_agreement")


def formatting_carries_meaning(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.render["strike"] = level
    if rng.random() < {1: 0.75, 2: 0.65, 3: 0.0}[level]:  # only a harmless sentence is struck: R6 stands
        standing = sorted({f.file for f in candidates(world) if f.rule == "R6" and world.in_scope(f.file)})
        for path in standing or ["*"]:
            world.tag("R6", path, "formatting_carries_meaning")
    else:
        world.withdrawn.add("R6")
        for path in sorted(
            {f.file for f in candidates(world) if f.rule == "R6"} | {f.path for f in _of(world, Deploy) if f.secret}
        ):
            world.tag("R6", path, "formatting_carries_meaning")
    if level == 3:
        world.struck = ("R4", world.r4, "1.3")
        for settings in _of(world, Settings):
            world.tag("R4", settings.path, "formatting_carries_meaning")
    design.plant(
        "formatting_carries_meaning",
        "policy.struck",
        "struck-through text in the policy is withdrawn",
        "withdrawn",
        "README.md" if level >= 2 else POLICY,
    )
    design.forms["formatting_carries_meaning"] = {
        1: "A rule of the HTML policy is struck through, with a legend saying struck rules are withdrawn.",
        2: "A struck-through rule, the convention stated only in the repository README.",
        3: "As level 2, and R4's threshold is struck and replaced inline.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "hidden_override_defeats_fix": hidden_override_defeats_fix,
    "misleading_file_name": misleading_file_name,
    "schema_drift_between_exports": schema_drift_between_exports,
    "authority_resolution": authority_resolution,
    "implicit_constraint": implicit_constraint,
    "nested_container_evidence": nested_container_evidence,
    "scope_distractor": scope_distractor,
    "formatting_carries_meaning": formatting_carries_meaning,
    "claim_without_receipt": claim_without_receipt,
    "cross_deliverable_agreement": cross_deliverable_agreement,
}
PATTERNS = tuple(TRANSFORMERS)

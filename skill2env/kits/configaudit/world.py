"""The configuration-audit world: a repository's CI workflows and service configs (YAML, JSON, TOML,
env files, archives), a written policy with updates, exceptions and waivers, and its true findings.

Every configuration file is a small structured object that renders itself with known line numbers;
`findings` applies the policy as the world defines it to those objects (never to the rendered text).
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from skill2env.kits.spec import seeded

SHA = re.compile(r"^[0-9a-f]{40}$")
ACTIONS = (
    "actions/checkout",
    "actions/setup-python",
    "actions/cache",
    "docker/build-push-action",
    "actions/upload-artifact",
)
SERVICES = ("payments", "orders", "search", "catalog")
RULES = ("R1", "R2", "R3", "R4", "R5", "R6", "R7")


def version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def sha(rng: random.Random) -> str:
    return f"{rng.getrandbits(160):040x}"


@dataclass
class Rendered:
    lines: list[str]
    anchors: dict[str, int] = field(default_factory=dict)
    """Anchor name → 1-based line number."""

    def add(self, line: str, anchor: str | None = None) -> None:
        self.lines.append(line)
        if anchor:
            self.anchors[anchor] = len(self.lines)

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


@dataclass
class Job:
    name: str
    timeout: int | None = 30
    runs_on: str = "ubuntu-22.04"
    uses: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class Workflow:
    path: str
    name: str
    jobs: list[Job]
    permissions: str | None = "read"
    comment: str = ""

    def render(self) -> Rendered:
        out = Rendered([])
        if self.comment:
            out.add(f"# {self.comment}")
        out.add(f"name: {self.name}", "name")
        out.add("on: [push, pull_request]")
        if self.permissions == "read":
            out.add("permissions:", "permissions")
            out.add("  contents: read")
        elif self.permissions:
            out.add(f"permissions: {self.permissions}", "permissions")
        out.add("jobs:")
        for job in self.jobs:
            out.add(f"  {job.name}:", f"job:{job.name}")
            out.add(f"    runs-on: {job.runs_on}", f"runs-on:{job.name}")
            if job.timeout is not None:
                out.add(f"    timeout-minutes: {job.timeout}")
            out.add("    steps:")
            for index, (action, ref) in enumerate(job.uses):
                out.add(f"      - uses: {action}@{ref}", f"uses:{job.name}:{index}")
            out.add(f"      - run: make {job.name}")
        return out


@dataclass
class ServiceConfig:
    path: str
    service: str
    environment: str = "production"
    debug: bool | None = False
    """None: the file does not set `debug` (an override file)."""
    password: str | None = None
    """A literal password (a violation); None writes a `${...}` reference."""
    comment: str = ""

    def render(self) -> Rendered:
        out = Rendered([])
        if self.comment:
            out.add(f"# {self.comment}")
        if not self.path.endswith("override.yaml"):
            out.add(f"service: {self.service}")
            out.add(f"environment: {self.environment}", "environment")
        if self.debug is not None:
            out.add(f"debug: {'true' if self.debug else 'false'}", "debug")
        if not self.path.endswith("override.yaml"):
            out.add("log_level: info")
            out.add("replicas: 3")
            out.add("db:")
            out.add(f"  host: {self.service}-db.internal")
            out.add(f"  password: {self.password or '${DB_PASSWORD}'}", "password")
        return out


@dataclass
class EnvFile:
    path: str
    app_debug: bool

    def render(self) -> Rendered:
        out = Rendered([])
        out.add("APP_LOG_FORMAT=json")
        out.add(f"APP_DEBUG={'true' if self.app_debug else 'false'}", "debug")
        return out


@dataclass
class Settings:
    path: str
    service: str
    tls: str = "1.2"
    token: str | None = None
    v2: bool = False

    def render(self) -> Rendered:
        out = Rendered([])
        out.add("{")
        if self.v2:
            out.add('  "schema_version": 2,')
        out.add(f'  "service": "{self.service}",')
        if self.v2:
            out.add('  "tls": {')
            out.add(f'    "min_version": "{self.tls}"', "tls")
            out.add("  },")
            out.add('  "auth": {')
            out.add(f'    "token": {json.dumps(self.token or "${API_TOKEN}")}', "token")
            out.add("  },")
        else:
            out.add(f'  "tls_min_version": "{self.tls}",', "tls")
            out.add(f'  "api_token": {json.dumps(self.token or "${API_TOKEN}")},', "token")
        out.add(f'  "cors_origins": ["https://{self.service}.example"]')
        out.add("}")
        return out


@dataclass
class Deploy:
    path: str
    service: str
    timeout: int = 30
    secret: str | None = None
    v2: bool = False

    def render(self) -> Rendered:
        out = Rendered([])
        if self.v2:
            out.add("schema = 2")
        out.add("[service]")
        out.add(f'name = "{self.service}"')
        if self.v2:
            out.add(f'timeout = "{self.timeout}s"', "timeout")
        else:
            out.add(f"timeout_seconds = {self.timeout}", "timeout")
        out.add("replicas = 3")
        out.add("")
        out.add("[secrets]")
        out.add(f'db_password = "{self.secret or "${DB_PASSWORD}"}"', "secret")
        return out


Config = Workflow | ServiceConfig | EnvFile | Settings | Deploy


@dataclass
class PolicyException:
    id: str
    rule: str
    file: str
    approval: str
    expires: date


@dataclass
class Update:
    rule: str
    effective: date
    value: str
    draft: bool = False
    file: str = ""


@dataclass
class World:
    seed: int
    audit: date
    files: list[Config] = field(default_factory=list)
    archives: dict[str, list[tuple[str, Config]]] = field(default_factory=dict)
    """Archive path → (member path, config); a member path may itself go through a nested archive."""
    exceptions: list[PolicyException] = field(default_factory=list)
    approvals: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Approval id → (rule, file) it approves."""
    waivers: list[tuple[str, str, str, date]] = field(default_factory=list)
    out_of_scope: tuple[str, ...] = ("vendor/", "third_party/", "examples/")
    owners: dict[str, str] = field(default_factory=dict)
    """Path prefix → owning team (CODEOWNERS); empty: no ownership rule."""
    team: str = "@platform-team"
    r4: str = "1.2"
    r5: int = 60
    updates: list[Update] = field(default_factory=list)
    withdrawn: set[str] = field(default_factory=set)
    struck: tuple[str, str, str] | None = None
    """(rule, struck threshold, replacement) written inline in the policy."""
    implicit: int = 0
    tags: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    """(rule, file) → patterns whose challenge the violation (or its absence) carries."""
    render: dict[str, Any] = field(default_factory=dict)

    def tag(self, rule: str, file: str, pattern: str) -> None:
        self.tags.setdefault((rule, file), set()).add(pattern)

    def configs(self) -> list[tuple[str, Config]]:
        """(path as findings name it, config) for every file, archive members included."""
        members = [
            (f"{archive}!/{member}", config) for archive, items in self.archives.items() for member, config in items
        ]
        return [(c.path, c) for c in self.files] + members

    def r5_limit(self) -> int:
        limit = int(self.struck[2]) if self.struck and self.struck[0] == "R5" else self.r5
        for update in sorted(self.updates, key=lambda u: u.effective):
            if update.rule == "R5" and not update.draft and update.effective <= self.audit:
                limit = int(update.value)
        return limit

    def r4_limit(self) -> str:
        limit = self.struck[2] if self.struck and self.struck[0] == "R4" else self.r4
        for update in sorted(self.updates, key=lambda u: u.effective):
            if update.rule == "R4" and not update.draft and update.effective <= self.audit:
                limit = update.value
        return limit

    def in_scope(self, path: str) -> bool:
        if path.startswith(self.out_of_scope):
            return False
        if self.owners:
            owner = next(
                (
                    team
                    for prefix, team in sorted(self.owners.items(), key=lambda x: -len(x[0]))
                    if path.startswith(prefix)
                ),
                self.team,
            )
            return owner == self.team
        return True


def generate(seed: int, salt: int) -> World:
    rng = seeded("configaudit", seed, salt)
    audit = date(rng.choice((2024, 2025)), rng.randint(1, 12), rng.randint(1, 28))
    world = World(seed, audit)
    for name in ("build", "test", "lint", "release"):
        jobs = [
            Job(job, uses=[(a, sha(rng)) for a in rng.sample(ACTIONS, 2)])
            for job in rng.sample(("compile", "unit", "package", "scan", "docs"), 2)
        ]
        world.files.append(Workflow(f".github/workflows/{name}.yml", name, jobs))
    for service in SERVICES[:3]:
        world.files.append(ServiceConfig(f"services/{service}/config.yaml", service))
        world.files.append(Settings(f"services/{service}/settings.json", service))
        world.files.append(Deploy(f"deploy/{service}.toml", service, timeout=rng.choice((20, 25, 30))))
    world.files.append(ServiceConfig(f"services/{SERVICES[2]}/config.staging.yaml", SERVICES[2], "staging", True))
    workflows = [f for f in world.files if isinstance(f, Workflow)]
    job = rng.choice(rng.choice(workflows).jobs)
    job.uses[0] = (job.uses[0][0], rng.choice(("v3", "v4", "main")))
    rng.choice(workflows).permissions = rng.choice((None, "write-all"))
    configs = [f for f in world.files if isinstance(f, ServiceConfig) and f.environment == "production"]
    rng.choice(configs).debug = True
    rng.choice([f for f in world.files if isinstance(f, Settings)]).tls = rng.choice(("1.0", "1.1"))
    deploys = [f for f in world.files if isinstance(f, Deploy)]
    excepted = rng.choice(deploys)
    excepted.timeout = rng.choice((90, 120))
    rng.choice([d for d in deploys if d is not excepted]).secret = f"s3cr3t-{rng.randint(100, 999)}"
    world.exceptions.append(
        PolicyException(
            "EX-1", "R5", excepted.path, f"APR-{rng.randint(100, 999)}", audit + timedelta(days=rng.randint(30, 200))
        )
    )
    world.approvals[world.exceptions[0].approval] = ("R5", excepted.path)
    return world


# -- the reference result -------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    rule: str
    file: str
    line: int
    detail: str


def candidates(world: World) -> list[Finding]:
    """Every violation of the rules in force, before scope, exceptions and waivers."""
    found: list[Finding] = []
    configs = world.configs()
    workflows = [(p, c) for p, c in configs if isinstance(c, Workflow) and world.in_scope(p)]
    for path, config in configs:
        shown = config.render()
        at = shown.anchors
        if isinstance(config, Workflow):
            for job in config.jobs:
                for index, (action, ref) in enumerate(job.uses):
                    if not action.startswith("./") and not SHA.match(ref):
                        found.append(Finding("R1", path, at[f"uses:{job.name}:{index}"], f"{action}@{ref}"))
            if config.permissions is None:
                found.append(Finding("R2", path, 1, "no top-level permissions"))
            elif config.permissions == "write-all":
                found.append(Finding("R2", path, at["permissions"], "permissions: write-all"))
        elif isinstance(config, Settings):
            if version(config.tls) < version(world.r4_limit()):
                found.append(Finding("R4", path, at["tls"], f"TLS {config.tls}"))
            if config.token:
                found.append(Finding("R6", path, at["token"], "literal token"))
        elif isinstance(config, Deploy):
            if config.timeout > world.r5_limit():
                found.append(Finding("R5", path, at["timeout"], f"timeout {config.timeout}"))
            if config.secret:
                found.append(Finding("R6", path, at["secret"], "literal secret"))
        elif isinstance(config, ServiceConfig) and config.password:
            found.append(Finding("R6", path, at["password"], "literal password"))
    found += debug_findings(world)
    if world.implicit:
        found += convention_findings(workflows)
    return [f for f in found if f.rule not in world.withdrawn]


def debug_findings(world: World) -> list[Finding]:
    """R3 on each production service: the effective `debug`, located where its winning value is set."""
    found = []
    configs = [c for _, c in world.configs() if isinstance(c, ServiceConfig | EnvFile)]
    for base in [c for c in configs if isinstance(c, ServiceConfig) and not c.path.endswith("override.yaml")]:
        if base.environment != "production":
            continue
        folder = base.path.rsplit("/", 1)[0] + "/"
        layers: list[ServiceConfig | EnvFile] = [base]
        layers += [c for c in configs if c.path == folder + "config.override.yaml"]
        layers += [c for c in configs if c.path == folder + ".env"]
        winner = None
        for layer in layers:
            value = layer.app_debug if isinstance(layer, EnvFile) else layer.debug
            if value is not None:
                winner = (layer, value)
        if winner and winner[1]:
            layer = winner[0]
            found.append(Finding("R3", layer.path, layer.render().anchors["debug"], "debug enabled in production"))
    return found


def convention_findings(workflows: list[tuple[str, Workflow]]) -> list[Finding]:
    """R7: what every other in-scope job shares (a timeout, the runner image), checked per job."""
    jobs = [(p, w, j) for p, w in workflows for j in w.jobs]
    found = []
    with_timeout = sum(1 for _, _, j in jobs if j.timeout is not None)
    runners: dict[str, int] = {}
    for _, _, job in jobs:
        runners[job.runs_on] = runners.get(job.runs_on, 0) + 1
    usual = max(runners, key=lambda r: runners[r]) if runners else ""
    for path, workflow, job in jobs:
        at = workflow.render().anchors
        if job.timeout is None and with_timeout > len(jobs) / 2:
            found.append(Finding("R7", path, at[f"job:{job.name}"], "job without timeout-minutes"))
        if job.runs_on != usual:
            found.append(Finding("R7", path, at[f"runs-on:{job.name}"], f"runs-on {job.runs_on}"))
    return found


@dataclass
class Expected:
    findings: list[Finding]
    exceptions_applied: list[str]


def valid_exception(world: World, exception: PolicyException) -> bool:
    approved = world.approvals.get(exception.approval)
    return approved == (exception.rule, exception.file) and exception.expires >= world.audit


def expected(world: World) -> Expected:
    kept, applied = [], set()
    for finding in candidates(world):
        if not world.in_scope(finding.file.split("!/")[0]):
            continue
        excepted = [
            e
            for e in world.exceptions
            if e.rule == finding.rule and e.file == finding.file and valid_exception(world, e)
        ]
        if excepted:
            applied |= {e.id for e in excepted}
            continue
        if any(
            rule == finding.rule and path == finding.file and until >= world.audit
            for _, rule, path, until in world.waivers
        ):
            continue
        kept.append(finding)
    return Expected(sorted(kept, key=lambda f: (f.file, f.line, f.rule)), sorted(applied))

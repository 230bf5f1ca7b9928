"""Reference solver for the configuration-audit kit.

It reads the HTML policy (struck-through text included), its updates, exceptions, approvals, waivers
and the ownership rules, walks every configuration file of the repository (archives opened, nested ones
too), applies each rule in force at the audit date with the configuration layering the README
describes, and writes findings.csv, summary.json and report.md.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import yaml

from skill2env.kits.runtime import rt  # kit-runtime

SHA = re.compile(r"^[0-9a-f]{40}$")
SECRET = re.compile(r"""^\s*-?\s*"?([\w.]*?(?:password|token|secret))"?\s*[:=]\s*(.+?)\s*,?\s*$""", re.I)
SKIPPED = ("output/", "docs/", "policy/", "README.md", ".github/CODEOWNERS")


def text_of(relpath: str) -> str:
    path = rt.workspace() / relpath
    return rt.read_text(path) if path.exists() else ""


class Policy:
    def __init__(self) -> None:
        lines = rt.html_text(text_of("docs/policy.html")).splitlines()
        notes = text_of("README.md") + "\n".join(lines)
        struck_means_withdrawn = "struck" in notes.lower() and "withdrawn" in notes.lower()
        self.audit = date.fromisoformat(re.search(r"audit_date:\s*(\S+)", text_of("policy/audit.yaml")).group(1))  # type: ignore[union-attr]
        self.rules: dict[str, str] = {}
        for line in lines:
            match = re.match(r"^(~~)?(R\d):\s*(.*)$", line.strip())
            if match and not (match.group(1) and struck_means_withdrawn):
                self.rules[match.group(2)] = (
                    re.sub(r"~~.*?~~", "", match.group(3)) if struck_means_withdrawn else match.group(3)
                )
        scope = next((x for x in lines if x.startswith("Out of scope")), "")
        self.out = tuple(re.findall(r"([\w.-]+/)", scope))
        owners = re.search(r"CODEOWNERS\S* assigns to (@[\w-]+)", "\n".join(lines))
        self.team = owners.group(1) if owners else ""
        self.owners: dict[str, str] = {}
        default = ""
        for row in text_of(".github/CODEOWNERS").splitlines():
            parts = row.split()
            if len(parts) == 2 and parts[0] == "*":
                default = parts[1]
            elif len(parts) == 2 and parts[0].startswith("/"):
                self.owners[parts[0][1:]] = parts[1]
        self.default_owner = default
        self.r4 = re.search(r"at least\s+([\d.]+\d)", self.rules.get("R4", "")).group(1) if "R4" in self.rules else "0"  # type: ignore[union-attr]
        self.r5 = int(re.search(r"at most\s+(\d+)", self.rules.get("R5", "")).group(1)) if "R5" in self.rules else 10**9  # type: ignore[union-attr]
        updates = []
        for path in rt.files("policy/updates/*.md"):
            text = rt.read_text(path)
            head = re.search(r"rule (R\d)", text)
            when = re.search(r"Effective (\d{4}-\d{2}-\d{2})", text)
            value = re.search(r"is at (?:most|least) ([\d.]+\d)", text)
            if head and when and value and "draft" not in text.lower():
                updates.append((date.fromisoformat(when.group(1)), head.group(1), value.group(1)))
        for effective, rule, limit in sorted(updates):
            if effective <= self.audit and rule in self.rules:
                if rule == "R5":
                    self.r5 = int(limit)
                elif rule == "R4":
                    self.r4 = limit

    def in_scope(self, path: str) -> bool:
        top = path.split("!/")[0]
        if top.startswith(self.out):
            return False
        if self.team:
            owner = next(
                (t for p, t in sorted(self.owners.items(), key=lambda x: -len(x[0])) if top.startswith(p)),
                self.default_owner,
            )
            return owner == self.team
        return True


def version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def config_files() -> dict[str, list[str]]:
    """Every configuration file by the name findings use, as lines (archives opened, nested too)."""
    found: dict[str, list[str]] = {}
    for path in rt.files("**/*"):
        name = rt.rel(path)
        if name.startswith(SKIPPED):
            continue
        for member, data in rt.members(name, path.read_bytes()):
            found[member] = rt.decode(data).splitlines()
    return found


def workflow_findings(name: str, lines: list[str]) -> tuple[list[tuple[str, int, str]], list[dict[str, Any]]]:
    findings, jobs = [], []
    permissions = None
    job: dict[str, Any] | None = None
    for number, line in enumerate(lines, start=1):
        if line.startswith("permissions:"):
            permissions = (number, line.split(":", 1)[1].strip())
        job_head = re.match(r"^  ([\w-]+):\s*$", line)
        if job_head:
            job = {"file": name, "line": number, "timeout": False, "runs_on": None}
            jobs.append(job)
        if job is not None and line.strip().startswith("runs-on:"):
            job["runs_on"] = (number, line.split(":", 1)[1].strip())
        if job is not None and line.strip().startswith("timeout-minutes:"):
            job["timeout"] = True
        uses = re.match(r"^\s*-?\s*uses:\s*(\S+)@(\S+)", line)
        if uses and not uses.group(1).startswith("./") and not SHA.match(uses.group(2)):
            findings.append(("R1", number, f"{uses.group(1)}@{uses.group(2)} is not pinned to a commit SHA"))
    if permissions is None:
        findings.append(("R2", 1, "no top-level permissions"))
    elif permissions[1] == "write-all":
        findings.append(("R2", permissions[0], "permissions: write-all"))
    return findings, jobs


def value_line(lines: list[str], pattern: str) -> tuple[int, str] | None:
    for number, line in enumerate(lines, start=1):
        match = re.search(pattern, line)
        if match:
            return number, match.group(1)
    return None


def main() -> None:
    policy = Policy()
    files = config_files()
    raw: list[tuple[str, str, int, str]] = []
    all_jobs: list[dict[str, Any]] = []
    for name, lines in sorted(files.items()):
        base = name.rsplit("!/", 1)[-1]
        if ".github/workflows/" in name and base.endswith((".yml", ".yaml")):
            findings, jobs = workflow_findings(name, lines)
            raw += [(rule, name, line, detail) for rule, line, detail in findings]
            if policy.in_scope(name):
                all_jobs += jobs
            continue
        if base.endswith(".json"):
            tls = value_line(lines, r'"(?:tls_)?min_version"\s*:\s*"([\d.]+)"')
            if tls and version(tls[1]) < version(policy.r4):
                raw.append(("R4", name, tls[0], f"TLS minimum {tls[1]}"))
        if base.endswith(".toml"):
            timeout = value_line(lines, r'^timeout(?:_seconds)?\s*=\s*"?(\d+)s?"?')
            if timeout and int(timeout[1]) > policy.r5:
                raw.append(("R5", name, timeout[0], f"timeout {timeout[1]} s"))
        for number, line in enumerate(lines, start=1):
            secret = SECRET.match(line)
            if secret and base.endswith((".json", ".toml", ".yaml", ".yml", ".env")):
                value = secret.group(2).strip().strip(",").strip('"').strip("'")
                if not value.startswith("${"):
                    raw.append(("R6", name, number, f"literal value for {secret.group(1)}"))
    for name, lines in sorted(files.items()):
        base = name.rsplit("/", 1)[-1]
        if not (base.startswith("config") and base.endswith(".yaml")) or base == "config.override.yaml":
            continue
        environment = value_line(lines, r"^environment:\s*(\S+)")
        if not environment or environment[1] != "production":
            continue
        folder = name.rsplit("/", 1)[0] + "/"
        winner = None
        for layer, pattern in (
            (name, r"^debug:\s*(\S+)"),
            (folder + "config.override.yaml", r"^debug:\s*(\S+)"),
            (folder + ".env", r"^APP_DEBUG=(\S+)"),
        ):
            found = value_line(files.get(layer, []), pattern)
            if found:
                winner = (layer, found[0], found[1] == "true")
        if winner and winner[2]:
            raw.append(("R3", winner[0], winner[1], "debug enabled in production"))
    if "R7" in policy.rules and all_jobs:
        with_timeout = sum(1 for j in all_jobs if j["timeout"])
        runners: dict[str, int] = {}
        for job in all_jobs:
            runners[job["runs_on"][1]] = runners.get(job["runs_on"][1], 0) + 1
        usual = max(runners, key=lambda r: runners[r])
        for job in all_jobs:
            if not job["timeout"] and with_timeout > len(all_jobs) / 2:
                raw.append(("R7", job["file"], job["line"], "job without timeout-minutes"))
            if job["runs_on"][1] != usual:
                raw.append(("R7", job["file"], job["runs_on"][0], f"runs-on {job['runs_on'][1]}"))
    exceptions = yaml.safe_load(text_of("policy/exceptions.yaml")) or {}
    approvals = {}
    for path in rt.files("policy/approvals/*.md"):
        match = re.search(r"Approves: (R\d) for `([^`]+)`", rt.read_text(path))
        if match:
            approvals[path.stem] = (match.group(1), match.group(2))
    valid = [
        e
        for e in exceptions.get("exceptions") or []
        if approvals.get(e["approval"]) == (e["rule"], e["file"])
        and date.fromisoformat(str(e["expires"])) >= policy.audit
    ]
    waivers = [
        (rule, path)
        for rule, path, until in re.findall(
            r"rule (R\d) is waived for `([^`]+)` until (\S+)\.", text_of("policy/waivers.md")
        )
        if date.fromisoformat(until) >= policy.audit
    ]
    kept: list[tuple[str, str, int, str]] = []
    applied: set[str] = set()
    for rule, name, where, detail in sorted(set(raw), key=lambda f: (f[1], f[2], f[0])):
        if rule not in policy.rules or not policy.in_scope(name):
            continue
        excepted = [e["id"] for e in valid if e["rule"] == rule and e["file"] == name]
        if excepted:
            applied |= set(excepted)
            continue
        if (rule, name) in waivers:
            continue
        kept.append((rule, name, where, detail))
    rt.write_csv("findings.csv", ["rule", "file", "line", "detail"], [list(f) for f in kept])
    if rt.partial_mode():
        return
    by_rule: dict[str, int] = {}
    for rule, *_ in kept:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    rt.write_json(
        "summary.json",
        {"findings": len(kept), "by_rule": dict(sorted(by_rule.items())), "exceptions_applied": sorted(applied)},
    )
    report = ["# Configuration audit", "", f"Findings: {len(kept)}", ""]
    report += [f"- {rule}: {count} finding(s)." for rule, count in sorted(by_rule.items())]
    rt.write_text("report.md", "\n".join(report) + "\n")


if __name__ == "__main__":
    main()

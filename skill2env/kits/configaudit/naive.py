"""Naive baseline for the configuration-audit kit: grep each file for the rules as first written.

It walks the repository's plain files (skipping `vendor/`, never opening archives), judges a config's
environment by its file name, checks every YAML for `debug: true` on its own, reads TLS and timeout
keys only under their usual names, takes the policy's first thresholds (no updates, no struck text),
applies every listed exception and waiver, and knows nothing of unwritten conventions.
"""

from __future__ import annotations

import re

from skill2env.kits.runtime import rt  # kit-runtime

SHA = re.compile(r"^[0-9a-f]{40}$")
SECRET = re.compile(r"""^\s*"?([\w.]*?(?:password|token|secret))"?\s*[:=]\s*(.+?)\s*,?\s*$""", re.I)


def main() -> None:
    policy = rt.html_text(rt.read_text(rt.workspace() / "docs" / "policy.html"))
    r4 = re.search(r"at least (\d\.\d)", policy)
    r5 = re.search(r"at most (\d+) seconds", policy)
    tls_min = tuple(int(x) for x in (r4.group(1) if r4 else "1.2").split("."))
    timeout_max = int(r5.group(1)) if r5 else 60
    findings = []
    for path in rt.files("**/*"):
        name = rt.rel(path)
        if name.startswith(("vendor/", "docs/", "policy/", "output/")) or name.endswith((".zip", ".gz", ".md")):
            continue
        lines = rt.read_text(path).splitlines()
        if ".github/workflows/" in name:
            if not any(x.startswith("permissions:") for x in lines):
                findings.append(["R2", name, 1, "no permissions"])
            for number, line in enumerate(lines, start=1):
                if line.startswith("permissions: write-all"):
                    findings.append(["R2", name, number, "write-all"])
                uses = re.search(r"uses:\s*(\S+)@(\S+)", line)
                if uses and not uses.group(1).startswith("./") and not SHA.match(uses.group(2)):
                    findings.append(["R1", name, number, "unpinned"])
            continue
        for number, line in enumerate(lines, start=1):
            if name.endswith(".yaml") and "staging" not in name and line.strip() == "debug: true":
                findings.append(["R3", name, number, "debug"])
            tls = re.search(r'"tls_min_version":\s*"(\d\.\d)"', line)
            if tls and tuple(int(x) for x in tls.group(1).split(".")) < tls_min:
                findings.append(["R4", name, number, "tls"])
            timeout = re.match(r"timeout_seconds\s*=\s*(\d+)", line)
            if timeout and int(timeout.group(1)) > timeout_max:
                findings.append(["R5", name, number, "timeout"])
            secret = SECRET.match(line)
            if secret and not secret.group(2).strip("\",' ").startswith("${"):
                findings.append(["R6", name, number, "literal secret"])
    waived = set(
        re.findall(r"rule (R\d) is waived for `([^`]+)`", rt.read_text(rt.workspace() / "policy" / "waivers.md"))
        if (rt.workspace() / "policy" / "waivers.md").exists()
        else []
    )
    exceptions = re.findall(
        r"id: (\S+)\s+rule: (\S+)\s+file: (\S+)", rt.read_text(rt.workspace() / "policy" / "exceptions.yaml")
    )
    kept, applied = [], set()
    for finding in findings:
        matched = [eid for eid, rule, file in exceptions if rule == finding[0] and file == finding[1]]
        if matched:
            applied |= set(matched)
        elif (finding[0], finding[1]) not in waived:
            kept.append(finding)
    rt.write_csv("findings.csv", ["rule", "file", "line", "detail"], kept)
    by_rule: dict[str, int] = {}
    for rule, *_ in kept:
        by_rule[rule] = by_rule.get(rule, 0) + 1
    rt.write_json("summary.json", {"findings": len(kept), "by_rule": by_rule, "exceptions_applied": sorted(applied)})
    rt.write_text("report.md", f"Findings: {len(kept)}\n\n" + "\n".join(f"- {r}: {n}" for r, n in by_rule.items()))


if __name__ == "__main__":
    main()

"""The security screen: reject skills that carry malware lures or hidden malicious behaviour.

Real registries contain lures (download a password-protected archive and run what is inside,
paste a base64 string into a shell, `curl … | bash` from an unknown host), reverse shells,
credential theft and hidden backdoors. Each such security signal fails the skill with
`malicious:<signal>`.

Download-and-execute signals are judged by host: well-known installer and code hosts pass, raw
IP addresses, paste / file-sharing / tunnel hosts and plain HTTP fail, and any other host fails
a pipe into a shell (the classic lure) but not a downloaded release binary.

A skill about detecting or explaining attacks quotes them in its references (samples, patterns,
indicators): those quotes are not the skill's doing. The same text in SKILL.md or in a script is.
"""

from __future__ import annotations

import ipaddress
import re

from skill2env.catalog.models import Signal, SkillRecord
from skill2env.catalog.signals import CODE_SUFFIXES, SECURITY_CODES, evidence_line
from skill2env.curation.models import Criterion, Outcome, Verdict
from skill2env.curation.practical import skill_subject

ALWAYS_MALICIOUS = frozenset(
    {
        "base64-to-shell",
        "password-archive",
        "reverse-shell",
        "hidden-backdoor",
        "credential-exfiltration",
        "obfuscated-exec",
    }
)
"""Signals that are malicious wherever they appear; `backdoor-mention` is a topic, not a design."""

TRUSTED_HOSTS = frozenset(
    {
        "github.com", "raw.githubusercontent.com", "objects.githubusercontent.com", "gist.githubusercontent.com",
        "gitlab.com", "bitbucket.org", "codeload.github.com",
        "astral.sh", "bun.sh", "deno.land", "sh.rustup.rs", "static.rust-lang.org", "get.docker.com",
        "download.docker.com", "brew.sh", "install.python-poetry.org", "get.pnpm.io", "pyenv.run", "get.rvm.io",
        "get.sdkman.io", "sdkman.io", "nodejs.org", "deb.nodesource.com", "rpm.nodesource.com", "ollama.com",
        "ollama.ai", "claude.ai", "anthropic.com", "openclaw.ai", "starship.rs", "volta.sh", "fnm.vercel.app",
        "go.dev", "dl.google.com", "packages.cloud.google.com", "sdk.cloud.google.com", "awscli.amazonaws.com",
        "aka.ms", "cli.github.com", "foundry.paradigm.xyz", "release.solana.com", "get.helm.sh",
        "dl.k8s.io", "storage.googleapis.com", "releases.hashicorp.com", "apt.releases.hashicorp.com",
        "pkg.go.dev", "pypi.org", "files.pythonhosted.org", "registry.npmjs.org", "npmjs.com", "crates.io",
        "download.pytorch.org", "repo.anaconda.com", "micro.mamba.pm", "install.determinate.systems",
        "nixos.org", "tailscale.com", "fly.io", "cli.vercel.com", "supabase.com", "cursor.com",
        "opencode.ai", "mise.run", "mise.jdx.dev", "get.jenkins.io", "apt.llvm.org",
    }
)  # fmt: skip
SUSPICIOUS_HOSTS = frozenset(
    {
        "pastebin.com", "paste.ee", "hastebin.com", "ghostbin.com", "rentry.co", "rentry.org", "glot.io",
        "transfer.sh", "file.io", "0x0.st", "anonfiles.com", "mega.nz", "mediafire.com", "dropboxusercontent.com",
        "drive.google.com", "cdn.discordapp.com", "ngrok.io", "ngrok-free.app", "trycloudflare.com", "bit.ly",
        "tinyurl.com", "is.gd", "t.co", "goo.gl", "shorturl.at", "duckdns.org", "no-ip.com", "no-ip.org",
        "serveo.net", "localtunnel.me", "loca.lt", "temp.sh", "catbox.moe", "pixeldrain.com",
    }
)  # fmt: skip
"""Hosts that serve anonymous uploads, tunnels or short links: nothing to install from."""

_URL_HOST = re.compile(r"(https?|ftp)://([^/\s:'\"`|)>]+)", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
_BREW_TARGET = re.compile(r"brew\s+--prefix|/opt/homebrew/|/usr/local/(?:bin|cellar)/", re.IGNORECASE)
# What a skill that detects, audits or explains attacks says it is about: its references quote the
# attacks (samples, patterns, indicators) without the skill running them.
_DEFENSIVE_SUBJECT = re.compile(
    r"\b(?:security|malware|malicious|threats?|vulnerabilit(?:y|ies)|attacks?|exploits?|forensics?"
    r"|incident\s+response|iocs?|indicators?\s+of\s+compromise|pen(?:etration\s+)?test(?:s|ing)?|red[- ]team"
    r"|intrusions?|phishing|cves?|yara|siem|supply[- ]chain|backdoors?|reverse\s+shells?"
    r"|leak(?:ed|s)?\s+(?:tokens?|secrets?|credentials?|keys?)|secrets?\s+(?:scann|detect)\w*)\b",
    re.IGNORECASE,
)


def judge_safe(record: SkillRecord) -> Verdict:
    """Judge the security screen: any malicious signal fails with `malicious:<signal>`."""
    reasons: list[str] = []
    evidence: list[str] = []
    vendors: frozenset[str] | None = None  # only a pipe-to-shell installer asks whose host it is
    defensive: bool | None = None  # only a signal outside SKILL.md and the scripts asks
    for signal in record.signals:
        if signal.code not in SECURITY_CODES:
            continue
        if _reference_material(signal, record):
            if defensive is None:
                defensive = is_defensive(record)
            if defensive:
                continue
        if vendors is None and signal.code == "pipe-to-shell":
            vendors = _vendor_words(record)
        if not is_malicious(signal, vendors or frozenset()):
            continue
        reason = f"malicious:{signal.code}"
        if reason not in reasons:
            reasons.append(reason)
        if len(evidence) < 6:
            evidence.append(evidence_line(signal))
    if reasons:
        return Verdict(criterion=Criterion.safe, outcome=Outcome.fail, reasons=reasons, evidence=evidence)
    return Verdict(criterion=Criterion.safe, outcome=Outcome.pass_)


def clean_evidence(record: SkillRecord) -> list[str]:
    """Why a skill passes the security screen: what was screened, and each security signal found
    harmless with the reason (a well-known installer host, a Homebrew binary, a topic not a design)."""
    files = max(record.n_files, 1)
    found = [
        f"{record.skill_md_file}: no download-and-execute lure, reverse shell, obfuscated code, credential theft or "
        f"hidden backdoor in the skill's {files} file{'s' if files != 1 else ''}"
    ]
    for signal in [s for s in record.signals if s.code in SECURITY_CODES][:3]:
        if _reference_material(signal, record) and is_defensive(record):
            why = "quoted in the reference material of a skill that detects it, not a step the skill runs"
        else:
            why = _why_harmless(signal)
        found.append(f"{evidence_line(signal)} ({signal.code}: {why})")
    return found


def is_defensive(record: SkillRecord) -> bool:
    """Whether the skill says it is about detecting, auditing or explaining attacks."""
    return _DEFENSIVE_SUBJECT.search(skill_subject(record)) is not None


def _reference_material(signal: Signal, record: SkillRecord) -> bool:
    """A signal in a file the skill reads rather than runs: neither SKILL.md nor a script."""
    return signal.file != record.skill_md_file and not signal.file.lower().endswith(CODE_SUFFIXES)


def _why_harmless(signal: Signal) -> str:
    if signal.code == "pipe-to-shell":
        return "installer from a well-known or the vendor's own host"
    if signal.code == "run-downloaded-binary":
        return "a release binary from a host that is not a file drop"
    if signal.code == "quarantine-bypass":
        return "clears quarantine on a Homebrew-installed binary"
    return "a mention, not a design"


def is_malicious(signal: Signal, vendors: frozenset[str] = frozenset()) -> bool:
    """Whether one security signal is malicious (see the module docstring for the host rules).

    `vendors` are words naming what the skill is about; an installer served from a domain named
    after one of them (`run.linkerd.io` for a Linkerd skill) is the vendor's own.
    """
    if signal.code in ALWAYS_MALICIOUS:
        return True
    if signal.code == "quarantine-bypass":
        # clearing quarantine on a Homebrew-installed binary is an install step, not a lure
        return not _BREW_TARGET.search(signal.excerpt)
    if signal.code == "pipe-to-shell":
        return host_risk(signal.excerpt, vendors) != "trusted"
    if signal.code == "run-downloaded-binary":
        return host_risk(signal.excerpt) == "suspicious"
    return False


def host_risk(text: str, vendors: frozenset[str] = frozenset()) -> str:
    """`trusted`, `unknown` or `suspicious`: the riskiest host of the URLs in `text`.

    No URL at all (the address sits in a variable) is `unknown`; a host named after one of
    `vendors` counts as trusted.
    """
    hosts = [(scheme.lower(), host.lower().rstrip(".")) for scheme, host in _URL_HOST.findall(text)]
    if not hosts:
        return "unknown"
    risks = [_risk(scheme, host, vendors) for scheme, host in hosts]
    for risk in ("suspicious", "unknown"):
        if risk in risks:
            return risk
    return "trusted"


def _risk(scheme: str, host: str, vendors: frozenset[str]) -> str:
    if host in {"localhost", "127.0.0.1", "0.0.0.0"}:  # noqa: S104 - a host name being compared, not bound
        return "trusted"
    if _is_ip(host) or scheme != "https" or _within(host, SUSPICIOUS_HOSTS):
        return "suspicious"
    if _within(host, TRUSTED_HOSTS):
        return "trusted"
    labels = host.split(".")
    if len(labels) >= 2 and labels[-2] in vendors:
        return "trusted"
    return "unknown"


def _vendor_words(record: SkillRecord) -> frozenset[str]:
    """Words of the skill's name, folder and description: the tools it is about."""
    text = " ".join(str(part or "") for part in (record.name, record.path, record.description))
    return frozenset(word for word in _WORD.findall(text.lower()) if len(word) >= 3)


def _within(host: str, domains: frozenset[str]) -> bool:
    """`host` is one of `domains` or a subdomain of one."""
    labels = host.split(".")
    return any(".".join(labels[i:]) in domains for i in range(len(labels) - 1))


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True

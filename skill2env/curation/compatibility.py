"""Criterion 2, runtime compatibility: can the skill run in a Linux container?

Fails `needs:macos`, `needs:windows`, `needs:gui`, `needs:gpu` and `needs:hardware` (with the
kind of device, e.g. `needs:hardware:smart-home`). Evidence is weighed by where it is: what the
skill says it is about (name, description, first heading) counts most, then SKILL.md, then the
other files; a skill that also supports Linux does not fail on incidental macOS or Windows
mentions. ClawHub's `os` list is decisive when it leaves Linux out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from skill2env.catalog.models import Signal, SkillRecord
from skill2env.catalog.signals import SUBJECT_PATH, evidence_line, literal_starts, search_from_starts
from skill2env.curation.models import Criterion, Outcome, Verdict
from skill2env.curation.practical import lower_text, mentions_any, skill_body, skill_subject, subject_signals

_MACOS_CODES = frozenset({"macos-only", "macos-tool", "macos-app", "apple-silicon"})
_WINDOWS_CODES = frozenset({"windows-only", "windows-tool"})
_STRONG_CODES = frozenset({"macos-only", "windows-only", "gpu-required", "gpu-launch"})
"""Explicit statements of a requirement: one is enough."""
_SUBJECT_ONLY_CODES = frozenset({"apple-silicon"})
"""Apple Silicon / MLX is usually an optional accelerator; it is a need when it is the subject."""

_PROGRAM_NEEDS = {
    "osascript": "macos", "pbcopy": "macos", "pbpaste": "macos", "screencapture": "macos", "shortcuts": "macos",
    "xcrun": "macos", "xcodebuild": "macos", "launchctl": "macos", "mdfind": "macos", "imsg": "macos",
    "peekaboo": "gui", "cliclick": "gui", "xdotool": "gui", "ydotool": "gui", "pyautogui": "gui",
    "nvidia-smi": "gpu", "systemctl": "systemd", "journalctl": "systemd",
    "lp": "hardware", "lpstat": "hardware", "lpadmin": "hardware", "bluetoothctl": "hardware", "imagesnap": "hardware",
}  # fmt: skip
"""Programs a skill runs (or ClawHub requires) that only exist with the platform or device."""
_LINUX_SUPPORT = re.compile(
    r"\blinux\b|\bubuntu\b|\bdebian\b|\bapt(?:-get)?\s+install\b|\b(?:dnf|yum)\s+install\b|\bpacman\s+-S\b"
    r"|\bxdg-open\b|\bxclip\b|\bwl-copy\b|\bnotify-send\b|\bcross[- ]platform\b",
    re.IGNORECASE,
)
# What a skill says it is about: "on macOS", "Xcode", "Windows PCs" name the platform it needs.
_SUBJECT_PLATFORM = {
    "macos": re.compile(
        r"\b(?:macos|mac\s?os(?:\s?x)?|osx|os\s+x|macbook|apple\s+silicon|xcode|ios\s+simulator)\b"
        r"|\bon\s+(?:a\s+|your\s+)?mac\b",
        re.IGNORECASE,
    ),
    # a container runs neither an init system nor, without privileges, a Docker engine of its own
    "docker": re.compile(
        r"\((?:via\s+|in\s+|using\s+)?docker\)|\b(?:runs?|running)\s+(?:in|inside|via)\s+docker\b"
        r"|\b(?:in|inside)\s+docker\s*[.,;)]",
        re.IGNORECASE,
    ),
    "windows": re.compile(
        r"\bon\s+windows\b|\bwindows\s+(?:10|11|pcs?|machines?|desktops?|only)\b|\bpowershell\b|\bwin32\b",
        re.IGNORECASE,
    ),
}
_LINUX_NEEDLES = (
    "linux", "ubuntu", "debian", "apt", "dnf ", "yum ", "pacman", "xdg-open", "xclip", "wl-copy", "notify-send",
    "cross",
)  # fmt: skip
"""Cheap substring tests before `_LINUX_SUPPORT` runs over the whole body."""
_LINUX_STARTS = literal_starts(_LINUX_SUPPORT.pattern)
_SUBJECT_PLATFORM_STARTS = {need: literal_starts(pattern.pattern) for need, pattern in _SUBJECT_PLATFORM.items()}
_SUBJECT_PLATFORM_NEEDLES = {"docker": ("docker",), "windows": ("windows", "powershell", "win32")}
"""Words every match of a subject platform pattern holds, where its starts are common words ("in")."""
_GPU_HARDWARE_SUBJECT = re.compile(r"\b(?:dgx|a100|h100|h200|b200|gb200)\b", re.IGNORECASE)
_BODY_THRESHOLD = {"macos": 2, "windows": 3, "gui": 2, "gpu": 99, "hardware": 5, "systemd": 99, "docker": 99}
"""How many SKILL.md signals of a need make it a requirement when the subject is silent.

GPU mentions (CUDA, multi-GPU) describe options far more often than requirements, so only
explicit statements count for the GPU."""


@dataclass
class _Need:
    """Evidence for one need, split by where it was found."""

    subject: list[Signal] = field(default_factory=list)
    skill_md: list[Signal] = field(default_factory=list)
    other: list[Signal] = field(default_factory=list)
    programs: list[str] = field(default_factory=list)
    named_in_subject: str | None = None
    """The platform named in the subject ("on macOS"), with where it was found."""

    def strong(self) -> bool:
        return any(signal.code in _STRONG_CODES for signal in self.subject + self.skill_md)

    def evidence(self) -> list[str]:
        found = [self.named_in_subject] if self.named_in_subject else []
        found += [evidence_line(signal) for signal in (self.subject + self.skill_md + self.other)[:4]]
        return found + [f"programs: {program}" for program in self.programs[:2]]


@cache
def need_of(code: str) -> str | None:
    """The need (`macos`, `windows`, `gui`, `gpu`, `hardware`) a platform signal code points at."""
    if code in _MACOS_CODES:
        return "macos"
    if code in _WINDOWS_CODES:
        return "windows"
    if code == "gui-automation":
        return "gui"
    if code.startswith("gpu-"):
        return "gpu"
    if code.startswith("hardware-"):
        return "hardware"
    return None


def judge_compatible(record: SkillRecord) -> Verdict:
    """Judge whether the skill can run in a Linux container (no macOS, Windows, GUI, GPU, devices)."""
    needs = _collect(record)
    linux: bool | None = None  # only macOS and Windows needs ask, and most skills have neither
    reasons: list[str] = []
    evidence: list[str] = []
    os_reason = _clawhub_os_reason(record)
    if os_reason:
        reasons.append(os_reason)
        evidence.append(f"frontmatter: metadata os = {record.clawhub.os if record.clawhub else []}")
    for need, found in needs.items():
        if linux is None and need in {"macos", "windows"}:
            linux = _supports_linux(record)
        reason = _decide(need, found, bool(linux))
        if reason and reason not in reasons:
            reasons.append(reason)
            evidence.extend(found.evidence())
    if reasons:
        return Verdict(criterion=Criterion.compatible, outcome=Outcome.fail, reasons=reasons, evidence=evidence)
    return Verdict(criterion=Criterion.compatible, outcome=Outcome.pass_)


BASE_IMAGE_PROGRAMS = frozenset(
    {
        "bash", "sh", "cat", "cp", "mv", "rm", "ls", "mkdir", "rmdir", "ln", "chmod", "chown", "touch", "head", "tail",
        "wc", "sort", "uniq", "cut", "tr", "tee", "date", "sleep", "echo", "printf", "env", "dirname", "basename",
        "realpath", "readlink", "stat", "du", "df", "seq", "xargs", "find", "test", "timeout", "nohup", "kill",
        "pkill", "ps", "which", "id", "file", "less", "base64", "sha256sum", "md5sum", "split", "paste", "join",
        "comm", "expr", "true", "false", "yes", "nl", "fold", "od", "mktemp", "install",
        "unzip", "zip", "7z", "xz", "bzip2", "tar", "gzip", "gunzip", "zcat",
        "jq", "sqlite3", "git", "curl", "awk", "gawk", "sed", "grep", "egrep", "diff", "cmp", "patch",
        "python", "python3", "pip", "pip3", "pytest",
        "pdftotext", "pdfinfo", "pdftoppm", "pdfimages", "pdfseparate", "pdfunite", "tesseract",
    }
)  # fmt: skip
"""Programs of the task base image (`skill2env.sandbox.base_image.BaseImageRecipe`): coreutils and the
shell, archives, text tools, Python with pytest, poppler and tesseract. Anything else a skill runs is
installed (apt, pip, npm) when its task image is built."""


def runtime_evidence(record: SkillRecord) -> list[str]:
    """Why a skill passes as compatible: the programs it runs, split into those the base image has and
    those its task image installs, each with the SKILL.md line that first runs it, and what the
    platform screen looked at."""
    where = record.skill_md_file
    text = record.skill_md_text or ""
    required = set(record.clawhub.bins + record.clawhub.any_bins) if record.clawhub else set()
    programs = sorted(set(record.programs) | required)
    found: list[str] = []
    in_image = [program for program in programs if program.lower() in BASE_IMAGE_PROGRAMS]
    installed = [program for program in programs if program.lower() not in BASE_IMAGE_PROGRAMS]
    for label, group in (("in the base image", in_image), ("installed when the task image is built", installed)):
        if not group:
            continue
        first = _first_use(text, group[0])
        cited = f"{where}:{first[0]}: {first[1]} " if first else f"{where}: "
        found.append(f"{cited}(runs {', '.join(group[:8])}{', …' if len(group) > 8 else ''}: {label})")
    mentions = [
        signal
        for signal in record.signals
        if need_of(signal.code) and not signal.code.endswith("-mention") and signal.code not in _SUBJECT_ONLY_CODES
    ]
    if mentions:
        found.append(f"{evidence_line(mentions[0])} (incidental: no stated need, the workflow runs on Linux)")
    found.append(f"{where}: no macOS, Windows, GUI, GPU or device requirement in what the skill says or runs")
    return found


def _first_use(text: str, program: str) -> tuple[int, str] | None:
    """The 1-based line and text of the first line of `text` that runs `program` (names it as a word)."""
    at = text.find(program)
    while at != -1:
        before = text[at - 1 : at] if at else " "
        after = text[at + len(program) : at + len(program) + 1]
        if not (before.isalnum() or before in "_/.-") and not (after.isalnum() or after in ("_", "-")):
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            line = " ".join(text[start : len(text) if end == -1 else end].split())[:140]
            return text.count("\n", 0, at) + 1, line
        at = text.find(program, at + 1)
    return None


def _clawhub_os_reason(record: SkillRecord) -> str | None:
    systems = {system.lower() for system in (record.clawhub.os if record.clawhub else [])}
    if not systems or "linux" in systems:
        return None
    if systems & {"darwin", "macos", "mac"}:
        return "needs:macos"
    if systems & {"win32", "windows"}:
        return "needs:windows"
    return None


def _supports_linux(record: SkillRecord) -> bool:
    systems = {system.lower() for system in (record.clawhub.os if record.clawhub else [])}
    if "linux" in systems:
        return True
    body = skill_body(record)
    lower = lower_text(body)
    return any(needle in lower for needle in _LINUX_NEEDLES) and bool(
        search_from_starts(_LINUX_SUPPORT, body, _LINUX_STARTS, lower)
    )


def _collect(record: SkillRecord) -> dict[str, _Need]:
    needs: dict[str, _Need] = {}
    subject = skill_subject(record)
    _add(needs, subject_signals(subject), "subject", record)
    subject_lower = subject.lower()
    for need, pattern in _SUBJECT_PLATFORM.items():
        needles = _SUBJECT_PLATFORM_NEEDLES.get(need)
        if needles and not mentions_any(subject, subject_lower, needles):
            continue
        match = search_from_starts(pattern, subject, _SUBJECT_PLATFORM_STARTS[need], subject_lower)
        if match:
            found = needs.setdefault(need, _Need())
            found.named_in_subject = f"{SUBJECT_PATH}: {match.group()}"
    _add(needs, record.signals, None, record)
    required = set(record.clawhub.bins + record.clawhub.any_bins) if record.clawhub else set()
    for program in sorted(set(record.programs) | required):
        program_need = _PROGRAM_NEEDS.get(program.lower())
        if program_need:
            needs.setdefault(program_need, _Need()).programs.append(program)
    if "hardware" in needs:
        _drop_name_only(needs["hardware"], record)
    return needs


def _drop_name_only(found: _Need, record: SkillRecord) -> None:
    """Leave out devices named only by the skill's name (its frontmatter line, a heading restating it):
    a product in a name ("garmin-csv-report") is what the files came from, not a device the workflow
    drives, unless the skill's text names the same kind of device too."""
    name = _slug(record.name)
    if not name:
        return

    def naming(signal: Signal) -> bool:
        return _slug(signal.excerpt.removeprefix("name:")) == name

    named = {signal.code for signal in found.subject + found.skill_md if not naming(signal)}
    found.subject = [signal for signal in found.subject if signal.code in named or not naming(signal)]
    found.skill_md = [signal for signal in found.skill_md if signal.code in named or not naming(signal)]


def _slug(text: str | None) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", (text or "").lower()))


def _add(needs: dict[str, _Need], signals: Iterable[Signal], where: str | None, record: SkillRecord) -> None:
    seen: set[tuple[str, int, str]] = set()
    for signal in signals:
        need = need_of(signal.code)
        if need is None:
            continue
        found = needs.setdefault(need, _Need())
        if where == "subject":
            found.subject.append(signal)
        elif signal.code.endswith("-mention") or signal.code in _SUBJECT_ONLY_CODES:
            continue  # evidence only when the skill says it is about it
        elif (signal.file, signal.line, need) in seen:
            continue  # one line is one piece of evidence, however many words it matches
        elif signal.file == record.skill_md_file:
            found.skill_md.append(signal)
        else:
            found.other.append(signal)
        seen.add((signal.file, signal.line, need))


def _decide(need: str, found: _Need, linux: bool) -> str | None:
    reason = f"needs:{need}"
    if need == "hardware":
        reason = f"needs:hardware:{_hardware_kind(found)}"
    if need in {"macos", "windows"} and linux:
        # a Linux path exists: only an explicit "only" statement condemns the skill
        return reason if found.strong() else None
    if need == "gpu":
        explicit = found.strong() or bool(found.programs)
        explicit = explicit or any(_GPU_HARDWARE_SUBJECT.search(s.excerpt) for s in found.subject)
        return reason if explicit else None
    if found.subject or found.named_in_subject or found.strong() or found.programs:
        return reason
    # other files often repeat SKILL.md (a README copy); for devices only SKILL.md counts
    weight = len(found.skill_md) + (0 if need == "hardware" else len(found.other) / 3)
    return reason if weight >= _BODY_THRESHOLD[need] else None


def _hardware_kind(found: _Need) -> str:
    counts: dict[str, int] = {}
    for signal in found.subject * 3 + found.skill_md:
        kind = signal.code.removeprefix("hardware-").removesuffix("-mention")
        counts[kind] = counts.get(kind, 0) + 1
    if not counts:
        return "device"
    return max(sorted(counts), key=lambda kind: counts[kind])

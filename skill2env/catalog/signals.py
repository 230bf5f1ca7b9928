"""Text signal detectors, run at catalog time over every text file of a skill.

A signal is a *fact* with a stable code, a file, a 1-based line and a short excerpt; curation
rules decide what the facts mean (a `pipe-to-shell` from a well-known installer host is not the
same as one from a raw IP address). Codes come in three families, listed in `FAMILIES`.

How much of a file is scanned:

* *primary* files (SKILL.md, scripts and configuration) get
  every detector, over their first `PRIMARY_SCAN_CHARS` characters (security: the whole file);
* other files (long prose references, data) get the security checks that matter anywhere:
  download-and-execute, password-protected archives, quarantine bypass, reverse shells.
  Platform and vendor mentions in long references are incidental; what a skill needs is said
  in SKILL.md and done in its scripts.

Speed: tens of thousands of skills are scanned per run, and a regex alternation costs tens of
nanoseconds per character in CPython, so no detector runs its full pattern over a whole text.
Security checks run only when a needle (a plain substring, found at C speed) is present, then
verify candidates on their own line. Platform and feasibility rules share one *locator* regex
that finds their anchor words (run over a byte copy of the text in which every non-word
character is a space, so the engine looks for a literal space); each rule's pattern then runs
only around its anchors. Regexes start with a literal or a character class where they can (see
`literal_first`), which the engine finds in C instead of trying every offset. Line numbers are
computed for matches only, and matches are capped per code (the most decisive kept).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from skill2env.catalog.models import Signal

MAX_PER_CODE = 5
"""At most this many signals of one code per file: enough evidence, bounded cost. A later signal takes
the place of a kept one that is less decisive (a command or a stated need over a passing mention)."""
EXCERPT_CHARS = 200
PRIMARY_SCAN_CHARS = 32_000
"""SKILL.md is scanned this far for platform and feasibility signals."""
OTHER_SCAN_CHARS = 8_000
"""Other primary files (scripts, configuration) are scanned this far for them."""

SECURITY = "security"
PLATFORM = "platform"
FEASIBILITY = "feasibility"

_MAX_HITS_PER_RULE = 32
_WINDOW_BEFORE = 120
_WINDOW_AFTER = 160
CODE_SUFFIXES = (
    ".py", ".sh", ".bash", ".zsh", ".fish", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rb", ".pl",
    ".php", ".go", ".rs", ".swift", ".ps1", ".psm1", ".bat", ".cmd", ".applescript", ".scpt", ".lua",
    ".java", ".kt", ".cs", ".r", ".jl",
)  # fmt: skip
_CONFIG_SUFFIXES = (".toml", ".cfg", ".ini", ".json", ".yaml", ".yml", ".env", ".example")
SUBJECT_PATH = "<subject>"
"""Path to give `scan_text` for what a skill says about itself (name, description): scanned like SKILL.md."""
_SKILL_MD_NAMES = ("skill.md", "skills.md", SUBJECT_PATH)
_PRIMARY_NAMES = (*_SKILL_MD_NAMES, "dockerfile", "makefile", "requirements.txt", "package.json")


# --- evidence ---------------------------------------------------------------------------------


def _line_bounds(text: str, pos: int, before: int = 0, after: int = 0) -> tuple[int, int]:
    """Start and end offsets of the line holding `pos`, widened by whole lines."""
    start = text.rfind("\n", 0, pos) + 1
    for _ in range(before):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    end = text.find("\n", pos)
    for _ in range(after):
        if end == -1:
            break
        end = text.find("\n", end + 1)
    return start, len(text) if end == -1 else end


def _line_of(text: str, pos: int) -> str:
    start, end = _line_bounds(text, pos)
    return text[start:end]


def _excerpt(source: str, start: int) -> str:
    """The line holding `start`, whitespace-collapsed and trimmed to `EXCERPT_CHARS`, match in view."""
    line_start, line_end = _line_bounds(source, start)
    if line_end - line_start > EXCERPT_CHARS:
        # keep the match in view, starting at a word boundary so no name is cut in half
        cut = max(line_start, start - 40)
        space = source.find(" ", cut, start)
        line_start = space + 1 if space != -1 else start
    return " ".join(source[line_start:line_end].split())[:EXCERPT_CHARS]


# How decisive a line is for what it shows: a command, or a statement of need, outweighs a passing
# mention; an optional or example line weighs least. Only asked once a code has its cap of signals.
_COMMAND_LINE = re.compile(r"`[^`\n]+`|^\s*\$\s")
_NEED_LINE = re.compile(r"\b(?:requires?|required|must|needs?|needed|mandatory|every|always|first|your)\b", re.I)
_TENTATIVE_LINE = re.compile(
    r"\boptional(?:ly)?\b|\bif\s+you\s+(?:have|want)\b|\be\.g\.|\bfor\s+example\b|\bsuch\s+as\b"
    r"|\bnot\s+(?:required|needed)\b",
    re.IGNORECASE,
)


_MOST_DECISIVE = 2


def _decisiveness(line: str) -> int:
    return (
        (_COMMAND_LINE.search(line) is not None)
        + (_NEED_LINE.search(line) is not None)
        - (_TENTATIVE_LINE.search(line) is not None)
    )


@dataclass
class _Found:
    """Signals of one file, at most `MAX_PER_CODE` per code: the most decisive, the first among equals."""

    path: str
    source: str
    is_code: bool
    signals: list[Signal] = field(default_factory=list)
    starts: dict[str, list[int]] = field(default_factory=dict)
    """Per code, the offsets of its signals kept, in the order of `signals`."""
    last_line: tuple[int, int] = (0, 1)
    """The offset and line of the last signal: lines are counted on from there when they can be."""
    weights: dict[str, list[int]] = field(default_factory=dict)
    """Per capped code, the decisiveness of its signals kept (parallel to `starts`), once the cap is reached."""

    def add(self, code: str, start: int) -> None:
        starts = self.starts.setdefault(code, [])
        if len(starts) >= MAX_PER_CODE:
            self._displace(code, start, starts)
            return
        starts.append(start)
        self.signals.append(self._signal(code, start))

    def _signal(self, code: str, start: int) -> Signal:
        offset, line = self.last_line
        if start < offset:
            offset, line = 0, 1
        line += self.source.count("\n", offset, start)
        self.last_line = (start, line)
        return Signal(code=code, file=self.path, line=line, excerpt=_excerpt(self.source, start))

    def _decisiveness(self, start: int) -> int:
        """`_decisiveness` of the line around `start`, as far as its excerpt reaches."""
        line_start, line_end = _line_bounds(self.source, start)
        return _decisiveness(self.source[max(line_start, start - EXCERPT_CHARS) : min(line_end, start + EXCERPT_CHARS)])

    def _displace(self, code: str, start: int, starts: list[int]) -> None:
        """Put the signal at `start` in place of the least decisive one of `code` kept, if it is more decisive."""
        weights = self.weights.get(code)
        if weights is None:
            weights = self.weights[code] = [self._decisiveness(kept) for kept in starts]
        least = min(weights)
        if least >= _MOST_DECISIVE:
            return
        weight = self._decisiveness(start)
        if weight <= least:
            return
        weakest = max(index for index, kept in enumerate(weights) if kept == least)  # the first among equals stay
        kept = [signal for signal in self.signals if signal.code == code]
        self.signals.remove(kept[weakest])
        del starts[weakest], weights[weakest]
        starts.append(start)
        weights.append(weight)
        self.signals.append(self._signal(code, start))


# --- security -------------------------------------------------------------------------------

_I = re.IGNORECASE
_IM = re.IGNORECASE | re.MULTILINE
_DOWNLOADER = re.compile(r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring)\b", _I)
_SENSITIVE = re.compile(
    r"~/\.ssh|~/\.aws|~/\.gnupg|\bid_rsa|\bid_ed25519|\.aws/credentials|/etc/shadow|login\.keychain"
    r"|^\s*(?:env|printenv|set)\s*$|\bprintenv\b|\$\((?:env|printenv)\)|find-(?:generic|internet)-password",
    _I,
)
# Starts with a literal `|` so the engine scans for it in C; the case-insensitive part is scoped.
# Markdown tables hold most pipes: the lookahead turns them away on the first letter of the cell
# (every alternative after it starts with one of those letters, in any case).
_PIPE_ENTRY = re.compile(
    r"\|[ \t]*(?=(?i:[sbzdkfipnrcw]))(?i:sudo[ \t]+(?:-\S+[ \t]+)*)?(?P<target>(?i:(?:ba|z|da|k|fi)?sh(?![\w.-])|iex\b"
    r"|(?:python[0-9.]*|node|perl|ruby)(?:[ \t]+-)?[ \t]*(?:$|\))|curl\b|wget\b|nc\b|ncat\b|netcat\b))",
    re.MULTILINE,
)
_BASE64_DECODE = re.compile(r"\bbase64\s+(?:-d|--decode|-D)\b|frombase64string|\bb64decode\b", _I)
_SUBSHELL_ENTRY = re.compile(r"[<$]\(\s*(?:curl|wget|echo|printf)\b[^\n)]*", _I)
_SUBSHELL_RUNNER = re.compile(
    r"(?:\b(?:ba|z)?sh\s+(?:-\w+\s+)*-c|\beval|\bsource|(?:^|\s)\.|\b(?:ba|z)?sh)\s*[\"']?$", _I
)
_DEV_TCP = re.compile(r"/dev/(?:tcp|udp)/[\w.\-]+/\d+")
# The lookahead after `nc` turns away `nc` inside words at once (both branches need a blank next);
# `socat` and `touch` below start with a class of their cases (ſ is a case-insensitive s), which
# the engine scans for in C where a case-insensitive literal would be tried at every offset.
_REVERSE_ENTRIES = (
    re.compile(r"nc(?:at)?(?=[ \t])(?:[ \t][^\n|]*?)?[ \t]-[ec][ \t]+/?(?:bin/)?(?:ba)?sh\b"),
    re.compile(r"[sS\u017f](?i:ocat\b[^\n]*\bexec:[^\n]*(?:sh|pty))"),
    re.compile(r"pty\.spawn\("),
)
_SOCKET_NEAR = re.compile(r"socket\.socket\(|\.connect\(\(")
_EXFIL_ENTRY = re.compile(r"\.(?:ssh|aws|gnupg)/|id_(?:rsa|ed25519)\b")
_EXFIL_SEND = re.compile(
    r"\b(?:curl|wget|http|httpie)\b[^\n]*(?:\s-d|--data[\w-]*|\s-F|--form|\s-T|--upload-file|--post-file)"
    r"|\|\s*(?:curl|nc|ncat|wget)\b|\brequests\.post\(|\bfetch\(",
    _I,
)
_EXEC_ENTRY = re.compile(r"e(?:xec|val)[ \t]*\(")
_OBFUSCATED_ARG = re.compile(
    r"[ \t]*(?:base64\.b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|marshal\.loads|atob\s*\("
    r"|unescape\s*\(|buffer\.from\([^\n)]*base64|__import__\(\s*[\"']base64|compile\(\s*base64"
    r"|[\"'](?:\\x[0-9a-f]{2}){16}|[\"'][a-z0-9+/]{160})",
    _I,
)
_ENCODED_POWERSHELL = re.compile(r"-enc(?:odedcommand)?[ \t]+[a-z0-9+/=]{40,}", _I)
_QUARANTINE_ENTRIES = (
    re.compile(r"xattr[ \t]+(?:-\w+[ \t]+)*-[a-z]*d[a-z]*[ \t]+(?:-\w+[ \t]+)*com\.apple\.quarantine"),
    re.compile(r"xattr[ \t]+(?:-\w+[ \t]+)*-[a-z]*c[a-z]*[ \t]+\S"),
    re.compile(r"spctl[ \t]+--master-disable"),
)
_CHMOD_ENTRY = re.compile(r"chmod[ \t]+(?:[ugoa]*\+x|0?7[0-7]{2})\b")
_DOWNLOAD_LINE = re.compile(r"\b(?:curl|wget)\b[^\n]*$", _IM)
# `(?i:p)ass(?:word|phrase|wd)|PASSWORD|密码`, starting with a character class the engine scans for in C
_PASSWORD_ENTRY = re.compile(r"[pP密](?:(?<=[pP])ass(?:word|phrase|wd)|(?<=P)ASSWORD|(?<=密)码)")
_ARCHIVE = re.compile(r"\.(?:zip|7z|rar)\b|\b(?:unzip|7z|unrar|extract)\b|压缩包|解压", _I)
_PASSWORD_VALUE = re.compile(
    r"(?:password|passphrase|passwd|pass|pwd|密码)\s*(?:is\s*)?[:=：]\s*[`\"'*]*[^\s`\"'*]{3,}"
    r"|\bunzip\b[^\n]*\s-P\s*\S|\s-p\S{3,}",
    _I,
)
_DOWNLOAD_HINT = re.compile(r"https?://|\bdownload|\breleases?\b|下载", _I)
# `(?i:b)ackdoor|BACKDOOR|后门`, starting with a character class the engine scans for in C
_BACKDOOR_ENTRY = re.compile(r"[bB后](?:(?<=[bB])ackdoor|(?<=B)ACKDOOR|(?<=后)门)")
_MARKER_ENTRIES = (
    re.compile(
        r"[tT](?i:ouch[ \t]+[\"']?(?:/tmp/|/var/tmp/|\$TMPDIR|\$\{TMPDIR|%TEMP%)[^\n]*&[ \t\r]*(?:$|#|2>))", re.M
    ),
    re.compile(r"[/\\]pwned\b", _I),
)
_HIDDEN_WORDS = re.compile(r"hidden|secret|covert|silent|stealth|隐藏|秘密|悄悄|偷偷", _I)
_COMMENT_LINE = re.compile(r"^\s*(?:#(?!#)|//|--|/\*|\*)")


def _in_code_fence(text: str, pos: int) -> bool:
    return text.count("```", 0, pos) % 2 == 1


def _check_pipes(text: str, found: _Found) -> None:
    for match in _PIPE_ENTRY.finditer(text):
        start, _ = _line_bounds(text, match.start())
        before = text[start : match.start()]
        target = match.group("target").lower()
        if target.startswith(("curl", "wget", "nc", "ncat", "netcat")):
            if _SENSITIVE.search(before):
                found.add("credential-exfiltration", start)
            elif target.startswith(("nc", "ncat", "netcat")) and "mkfifo" in before:
                found.add("reverse-shell", start)
        elif _BASE64_DECODE.search(before):
            found.add("base64-to-shell", start)
        elif _downloads_something(before):
            found.add("pipe-to-shell", start)


def _downloads_something(before_pipe: str) -> bool:
    """A download command with an argument before the pipe: not the bare phrase `curl | bash`."""
    downloads = list(_DOWNLOADER.finditer(before_pipe))
    return bool(downloads) and bool(before_pipe[downloads[-1].end() :].strip(" \t`'\"("))


def _check_subshells(text: str, found: _Found) -> None:
    for match in _SUBSHELL_ENTRY.finditer(text):
        start, _ = _line_bounds(text, match.start())
        if not _SUBSHELL_RUNNER.search(text[start : match.start()]):
            continue
        if _BASE64_DECODE.search(match.group()):
            found.add("base64-to-shell", start)
        elif _DOWNLOADER.search(match.group()):
            found.add("pipe-to-shell", start)


def _check_dev_tcp(text: str, found: _Found) -> None:
    for match in _DEV_TCP.finditer(text):
        found.add("reverse-shell", match.start())


def _check_reverse_shells(text: str, found: _Found) -> None:
    for entry in _REVERSE_ENTRIES:
        for match in entry.finditer(text):
            matched = match.group()
            if matched.startswith("nc") and match.start() > 0 and text[match.start() - 1].isalnum():
                continue
            if matched.startswith("pty"):
                window_start, _ = _line_bounds(text, match.start(), before=6)
                if not _SOCKET_NEAR.search(text, window_start, match.start()):
                    continue
            found.add("reverse-shell", match.start())


def _check_exfiltration(text: str, found: _Found) -> None:
    for match in _EXFIL_ENTRY.finditer(text):
        if _EXFIL_SEND.search(_line_of(text, match.start())):
            found.add("credential-exfiltration", match.start())


def _check_obfuscation(text: str, found: _Found) -> None:
    for match in _EXEC_ENTRY.finditer(text):
        if _OBFUSCATED_ARG.match(text, match.end()):
            found.add("obfuscated-exec", match.start())
    for match in _ENCODED_POWERSHELL.finditer(text):
        found.add("obfuscated-exec", match.start())


def _check_quarantine(text: str, found: _Found) -> None:
    for entry in _QUARANTINE_ENTRIES:
        for match in entry.finditer(text):
            found.add("quarantine-bypass", match.start())


def _check_downloaded_binaries(text: str, found: _Found) -> None:
    for match in _CHMOD_ENTRY.finditer(text):
        window_start, line_end = _line_bounds(text, match.start(), before=4)
        downloads = [line for line in _DOWNLOAD_LINE.finditer(text, window_start, line_end) if "://" in line.group()]
        if downloads:
            # the signal points at the download line: it names the host, which the rule judges
            found.add("run-downloaded-binary", downloads[-1].start())


def _check_password_archives(text: str, found: _Found) -> None:
    verdicts: dict[tuple[int, int], bool] = {}  # mentions on neighbouring lines share a window
    for match in _PASSWORD_ENTRY.finditer(text):
        bounds = _line_bounds(text, match.start(), before=2, after=2)
        lure = verdicts.get(bounds)
        if lure is None:
            window = text[bounds[0] : bounds[1]]
            lure = bool(_ARCHIVE.search(window) and _PASSWORD_VALUE.search(window) and _DOWNLOAD_HINT.search(window))
            verdicts[bounds] = lure
        if lure:
            found.add("password-archive", match.start())


def _check_backdoors(text: str, found: _Found) -> None:
    for match in _BACKDOOR_ENTRY.finditer(text):
        line = _line_of(text, match.start())
        in_code = found.is_code or _in_code_fence(text, match.start())
        # a backdoor named in a code comment or described as hidden is a design, not a topic
        if in_code and (_COMMENT_LINE.match(line) or _HIDDEN_WORDS.search(line)):
            found.add("hidden-backdoor", match.start())
        else:
            found.add("backdoor-mention", match.start())


def _check_markers(text: str, found: _Found) -> None:
    for entry in _MARKER_ENTRIES:
        for match in entry.finditer(text):
            found.add("hidden-backdoor", match.start())


@dataclass(frozen=True)
class _SecurityCheck:
    run: Callable[[str, _Found], None]
    anchors: str
    """Words that trigger the check in the scanned head of a primary file (found by the locator)."""
    needles: tuple[str, ...]
    """Case-sensitive substrings that trigger the check elsewhere (a cheap `in` test each)."""
    everywhere: bool = False
    """Also run on files that are not primary (long references, data); otherwise primary only."""
    requires: str = ""
    """A substring the text must also contain."""


_DOWNLOAD_WORDS = "curl wget iwr irm invoke-webrequest invoke-restmethod downloadstring"
_SECURITY_CHECKS = (
    _SecurityCheck(
        _check_pipes,
        f"{_DOWNLOAD_WORDS} base64 frombase64string b64decode printenv env mkfifo ssh aws gnupg id_rsa "
        "id_ed25519 keychain find-generic-password find-internet-password shadow",
        needles=("|",),
        everywhere=True,
        requires="|",
    ),
    _SecurityCheck(_check_dev_tcp, "dev", needles=("/dev/",), everywhere=True),
    _SecurityCheck(_check_quarantine, "xattr spctl", needles=("xattr", "spctl"), everywhere=True),
    _SecurityCheck(_check_downloaded_binaries, "chmod", needles=("chmod",), everywhere=True),
    _SecurityCheck(
        _check_password_archives,
        "password passwords passphrase passwd 密码",
        needles=("assword", "密码"),
        everywhere=True,
    ),
    _SecurityCheck(_check_subshells, "curl wget base64", needles=("(curl", "(wget", "base64")),
    _SecurityCheck(_check_backdoors, "backdoor backdoors 后门", needles=("ackdoor", "后门")),
    _SecurityCheck(_check_reverse_shells, "nc ncat netcat socat pty", needles=("bin/", "socat", "pty.spawn")),
    _SecurityCheck(_check_exfiltration, "ssh aws gnupg id_rsa id_ed25519", needles=(".ssh", ".aws", ".gnupg", "id_")),
    _SecurityCheck(_check_obfuscation, "exec eval enc encodedcommand", needles=("exec", "eval", "-enc", "-Enc")),
    _SecurityCheck(_check_markers, "pwned touch", needles=("pwned", "touch ")),
)

SECURITY_CODES = frozenset(
    {
        "pipe-to-shell",
        "base64-to-shell",
        "password-archive",
        "reverse-shell",
        "hidden-backdoor",
        "backdoor-mention",
        "credential-exfiltration",
        "obfuscated-exec",
        "quarantine-bypass",
        "run-downloaded-binary",
    }
)


_EVERYWHERE_NEEDLES = tuple((index, check.needles) for index, check in enumerate(_SECURITY_CHECKS) if check.everywhere)
_ALL_NEEDLES = tuple((index, check.needles) for index, check in enumerate(_SECURITY_CHECKS))


def _needle_checks(text: str, *, everywhere_only: bool, start: int = 0, known: set[int] | None = None) -> set[int]:
    """The checks with a needle in `text[start:]` (checks in `known` are not looked for again)."""
    triggered: set[int] = set()
    for index, needles in _EVERYWHERE_NEEDLES if everywhere_only else _ALL_NEEDLES:
        if known and index in known:
            continue
        for needle in needles:
            if (text.find(needle, start) != -1) if start else (needle in text):
                triggered.add(index)
                break
    return triggered


def _scan_security(text: str, found: _Found, triggered: set[int]) -> None:
    for index in sorted(triggered):
        check = _SECURITY_CHECKS[index]
        if check.requires in text:
            check.run(text, found)


# --- platform and feasibility -------------------------------------------------------------------


def _literal_prefix(pattern: str) -> str:
    """The characters every match of `pattern` starts with: its literal characters up to the first
    operator (a character made optional by the quantifier after it is left out)."""
    return _literal_span(pattern)[0]


def _literal_span(pattern: str) -> tuple[str, int]:
    """`_literal_prefix`, and the index in `pattern` where reading it stopped."""
    chars: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            if index + 1 >= len(pattern) or pattern[index + 1].isalnum():
                break  # a class or an assertion (`\\b`, `\\s`), not a character
            literal, width = pattern[index + 1], 2
        elif char in _REGEX_SPECIAL:
            break
        else:
            literal, width = char, 1
        following = pattern[index + width : index + width + 1]
        if following and following in "?*{":
            break
        chars.append(literal)
        index += width
        if following == "+":
            break
    return "".join(chars), index


_REGEX_SPECIAL = frozenset(".^$*+?{}[]|()")


# --- regex helpers ---------------------------------------------------------------------------------


def search_from_starts(
    pattern: re.Pattern[str], text: str, starts: tuple[str, ...], lower: str | None = None
) -> re.Match[str] | None:
    """`pattern.search(text)`, tried only where the lower-cased text has one of `starts`.

    For patterns whose every match begins with one of `starts` (lower-case ASCII, matched
    case-insensitively, as `literal_starts` finds them): a long text is then searched at a few
    places instead of at every character. `lower` is `text.lower()` when the caller has it.
    Texts with a non-ASCII character that a case-insensitive regex takes for an ASCII letter
    (which `str.lower` does not, and which would shift offsets) are searched in full.
    """
    if has_ascii_twins(text):
        return pattern.search(text)
    if lower is None:
        lower = text.lower()
    positions: set[int] = set()
    for start in starts:
        at = lower.find(start)
        while at != -1:
            positions.add(at)
            at = lower.find(start, at + 1)
    for at in sorted(positions):
        match = pattern.match(text, at)
        if match:
            return match
    return None


def has_ascii_twins(text: str) -> bool:
    """Whether `text` holds İ, ı, ſ or the Kelvin sign: the non-ASCII characters that
    `re.IGNORECASE` matches to the ASCII letters i, s and k (and `str.lower` does not map there)."""
    return not text.isascii() and any(twin in text for twin in _ASCII_TWINS)


_ASCII_TWINS = ("\u0130", "\u0131", "\u017f", "\u212a")


def literal_starts(pattern: str) -> tuple[str, ...]:
    """The literal text that every match of `pattern` starts with, one per alternative, lower-cased.

    Understands what the rule patterns use: top-level alternatives, each opening with an optional
    `\\b`, then literal characters or a non-capturing group of alternatives. Raises ValueError
    when an alternative does not start with a literal, so a pattern it cannot read fails loudly.
    """
    starts: list[str] = []
    for alternative in _split_alternatives(pattern):
        body = alternative.removeprefix("\\b")
        if body.startswith("(?:"):
            close = _closing_paren(body, 0)
            if body[close + 1 : close + 2] in ("?", "*", "{"):
                raise ValueError(f"optional group at the start of {alternative!r}")
            starts.extend(literal_starts(body[3:close]))
            continue
        literal = _literal_prefix(body)
        if not literal or not literal.isascii():
            raise ValueError(f"no literal start in {alternative!r}")
        starts.append(literal.lower())
    unique = dict.fromkeys(starts)
    # a start that begins with another start adds no place to look
    return tuple(start for start in unique if not any(start != other and start.startswith(other) for other in unique))


def _split_alternatives(pattern: str) -> list[str]:
    parts: list[str] = []
    depth, in_class, begin, index = 0, False, 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            if pattern[index + 1 : index + 2] == "]":
                index += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[begin:index])
            begin = index + 1
        index += 1
    parts.append(pattern[begin:])
    return parts


def _closing_paren(pattern: str, opening: int) -> int:
    depth, index = 0, opening
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if char == "[":
            index = pattern.index("]", index + 2)
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    raise ValueError(f"unbalanced group in {pattern!r}")


def literal_first(pattern: str) -> str:
    """`pattern` rewritten so that each of its top-level alternatives starts with a literal
    character, the same matches found in the same order.

    The regex engine then looks for those first characters at C speed instead of trying every
    alternative at every offset: `\\bword` becomes `w(?<=\\bw)ord` (the same boundary test, made
    once the first character is there), and a leading non-capturing group is spread over the rest
    of its alternative (`\\b(?:a|b)c` becomes `\\bac|\\bbc`, tried in the same order). A pattern with
    capturing groups, or an alternative that does not start with a literal, is returned as is.
    """
    if re.compile(pattern).groups:
        return pattern
    alternatives: list[str] = []
    for alternative in _split_alternatives(pattern):
        rewritten = _literal_first(alternative, boundary=False)
        if rewritten is None:
            return pattern
        alternatives.extend(rewritten)
    return "|".join(alternatives)


def _literal_first(alternative: str, *, boundary: bool) -> list[str] | None:
    """`alternative` (after a `\\b` when `boundary`) as alternatives that start with a literal."""
    if alternative.startswith("\\b"):
        return None if boundary else _literal_first(alternative[2:], boundary=True)
    if alternative.startswith("(?:"):
        close = _closing_paren(alternative, 0)
        rest = alternative[close + 1 :]
        if rest[:1] in ("?", "*", "+", "{"):
            return None
        spread: list[str] = []
        for inner in _split_alternatives(alternative[3:close]):
            rewritten = _literal_first(inner + rest, boundary=boundary)
            if rewritten is None:
                return None
            spread.extend(rewritten)
        return spread
    width = 2 if alternative[:1] == "\\" and alternative[1:2] and not alternative[1:2].isalnum() else 1
    first = alternative[:width]
    if not first or (width == 1 and first in _REGEX_SPECIAL) or alternative[width : width + 1] in ("?", "*", "+", "{"):
        return None
    if not boundary:
        return [alternative]
    if not (first.isascii() and (first.isalnum() or first == "_")):
        return None
    return [f"{first}(?<=\\b{first}){alternative[1:]}"]


@dataclass(frozen=True)
class _Rule:
    """A platform or feasibility rule, matched only around its anchors in lower-cased text.

    Every match of `pattern` contains an anchor: a whole word, or a word start when the anchor
    ends with `*`. `entry` is a regex beginning with a literal, for anchors that sit inside words
    (`.app`, `/dev/tty`), run over the whole primary text.
    """

    family: str
    code: str
    anchors: tuple[str, ...]
    pattern: re.Pattern[str]
    entry: re.Pattern[str] | None = None


def _rule(family: str, code: str, anchors: str, pattern: str, entry: str | None = None) -> _Rule:
    return _Rule(
        family,
        code,
        tuple(anchors.split()),
        re.compile(literal_first(pattern), re.MULTILINE),
        re.compile(entry) if entry else None,
    )


_P, _F = PLATFORM, FEASIBILITY
_RULES: tuple[_Rule, ...] = (
    # macOS
    _rule(
        _P,
        "macos-only",
        "macos mac osx",
        r"\b(?:macos|mac\s?os\s?x|osx|mac)[- ]only\b"
        r"|\bonly\s+(?:works\s+|runs\s+|available\s+|supported\s+)?on\s+(?:macos|a\s+mac|mac)\b",
    ),
    _rule(
        _P,
        "macos-only",
        "macos mac osx",
        r"\b(?:requires?|must\s+run\s+on|needs?)\s+(?:a\s+)?(?:macos|mac\s?os\s?x|mac)\b(?!\s+or\b|\s*/)"
        r"|\b(?:macos|mac)\s+(?:is\s+)?required\b",
    ),
    _rule(
        _P,
        "macos-tool",
        "osascript applescript jxa launchctl pbcopy pbpaste mdfind screencapture caffeinate "
        "xcrun xcodebuild simctl xcode",
        r"\b(?:osascript|applescript|jxa|launchctl|pbcopy|pbpaste|mdfind|screencapture|caffeinate)\b"
        r"|\b(?:xcrun|xcodebuild|simctl|xcode)\b",
    ),
    _rule(_P, "macos-tool", "shortcuts defaults", r"\bshortcuts\s+run\b|\bdefaults\s+(?:write|read)\s+com\."),
    # Homebrew installs anywhere, but its services run under launchd
    _rule(_P, "macos-tool", "brew", r"\bbrew\s+services\s+(?:start|stop|restart|run|list|info)\b"),
    _rule(_P, "macos-tool", "", r"\bopen\s+-a\s+\S", entry=r"open -a "),
    _rule(_P, "macos-tool", "", r"\btell\s+application\s+\"", entry=r"tell application \""),
    _rule(
        _P,
        "macos-app",
        "imessage imessages healthkit findmy apple",
        r"\bimessages?\b|\bhealthkit\b|\bfindmy\b"
        r"|\bapple\s+(?:photos|notes|reminders|shortcuts|music|health|find\s?my|contacts|calendar|mail)\b",
    ),
    _rule(
        _P,
        "macos-app",
        "",
        r"\b(?:messages|photos|notes|reminders|contacts|calendar|mail|music|finder|safari|shortcuts)\.app\b"
        r"|/applications/[^\n/]{1,60}\.app\b",
        entry=r"\.app\b",
    ),
    _rule(
        _P,
        "macos-app",
        "",
        r"~/library/(?:messages|application\s+support|group\s+containers|mobile\s+documents|keychains)\b",
        entry=r"~/library/",
    ),
    _rule(
        _P,
        "apple-silicon",
        "apple mlx* m1 m2 m3 m4",
        r"\bapple\s+silicon\b|\bmlx(?:[-_]\w+)?\b|\bm[1-4]\s+(?:pro|max|ultra|mac|chip)\b",
    ),
    # Windows
    _rule(
        _P,
        "windows-only",
        "windows",
        r"\bwindows[- ]only\b|\bonly\s+(?:works\s+|runs\s+)?on\s+windows\b|\brequires?\s+windows\b"
        r"|\bwindows\s+(?:10\s+|11\s+)?(?:is\s+)?required\b",
    ),
    _rule(
        _P,
        "windows-tool",
        "powershell powershell.exe pwsh hkey_local_machine hkey_current_user hklm hkcu regedit winget choco",
        r"\b(?:powershell(?:\.exe)?|pwsh)\b|\bhkey_(?:local_machine|current_user)\b|\bhk(?:lm|cu):|\bregedit\b"
        r"|\bwinget\s+install\b|\bchoco\s+install\b",
    ),
    _rule(_P, "windows-tool", "", r"\bc:\\\\?(?:users|program\s+files|windows)\b", entry=r"c:\\"),
    # desktop GUI automation
    _rule(
        _P,
        "gui-automation",
        "pyautogui pynput xdotool cliclick autohotkey robotjs nut-js nut.js sikuli sikulix ydotool wmctrl axuielement",
        r"\b(?:pyautogui|pynput|xdotool|cliclick|autohotkey|robotjs|nut-js|nut\.js|sikulix?|ydotool|wmctrl"
        r"|axuielement)\b",
    ),
    _rule(
        _P,
        "gui-automation",
        "automation automate",
        r"\b(?:desktop|gui|ui)\s+automation\b|\bautomate\s+(?:the\s+)?(?:desktop|mac\s+ui|macos\s+ui|gui)\b",
    ),
    _rule(
        _P,
        "gui-automation",
        "mouse keyboard keystrokes",
        r"\bmouse\s+(?:clicks?|movements?|control|cursor)\b"
        r"|\b(?:simulate|synthesi[sz]e)[sd]?\s+(?:mouse|keyboard|keystrokes)\b",
    ),
    _rule(
        _P,
        "gui-automation",
        "screen screenshot screenshots capture captures",
        r"\b(?:screenshots?|captures?)\s+(?:of\s+)?(?:the\s+)?(?:entire\s+|whole\s+|full\s+)?(?:screen|desktop|display)\b"
        r"|\bscreen\s+(?:capture|recording)\b",
    ),
    _rule(_P, "gui-automation", "accessibility", r"\baccessibility\s+(?:api|permissions?|tree)\b"),
    # GPU
    _rule(
        _P,
        "gpu-required",
        "gpu gpus",
        r"\b(?:requires?|needs?|must\s+have)\s+(?:an?\s+|one\s+or\s+more\s+|at\s+least\s+one\s+)?"
        r"(?:nvidia\s+|cuda[- ]capable\s+|dedicated\s+)?gpus?\b|\bgpus?\s+(?:is\s+|are\s+)?(?:required|mandatory)\b",
    ),
    _rule(_P, "gpu-required", "cuda", r"\bcuda\s+(?:is\s+)?required\b"),
    # launching one process per GPU, or NCCL (NVIDIA's collectives): the workflow runs on GPUs
    _rule(_P, "gpu-launch", "torchrun nccl", r"\btorchrun\b[^\n]*--nproc[_-]per[_-]node\b|\bnccl\b"),
    _rule(_P, "gpu-cuda", "cuda nvidia-smi nvcc cudnn", r"\bcuda\b|\bnvidia-smi\b|\bnvcc\b|\bcudnn\b"),
    _rule(_P, "gpu-cuda", "", r"\.cuda\(\)", entry=r"\.cuda\("),
    _rule(
        _P,
        "gpu-datacenter",
        "a100 h100 h200 b200 gb200 dgx tpu multi-gpu multi-node gpus torchrun deepspeed fsdp megatron",
        r"\b(?:a100|h100|h200|b200|gb200|dgx|tpu\s?v\d|multi[- ]gpu|multi[- ]node|\d+\s*x\s*(?:a100|h100|gpus?))\b"
        r"|\btorchrun\b[^\n]*--nproc|\bdeepspeed\b|\bfsdp\b|\bmegatron\b",
    ),
    # physical hardware
    _rule(
        _P,
        "hardware-bluetooth",
        "bluetooth bluetoothctl ble bleak bluez",
        r"\bbluetooth\b|\bble\s+(?:device|scan|peripheral)s?\b|\bbleak\b|\bbluez\b|\bbluetoothctl\b",
    ),
    _rule(
        _P,
        "hardware-serial",
        "serial pyserial uart minicom",
        r"\bserial\s+(?:port|console|connection)\b|\bpyserial\b|\buart\b|\bminicom\b",
    ),
    _rule(_P, "hardware-serial", "", r"/dev/tty(?:usb|acm|s)\d*", entry=r"/dev/tty"),
    _rule(
        _P,
        "hardware-usb",
        "usb libusb lsusb",
        r"\busb\s+(?:device|serial|cable|port|connection)s?\b|\blibusb\b|\blsusb\b",
    ),
    _rule(
        _P,
        "hardware-robot",
        "robot robotic ros ros2 gripper grippers servo drone drones quadcopter quadcopters px4 ardupilot",
        r"\brobot(?:ic)?\s+(?:arms?|control|gripper|vacuum)\b|\bros2?\s+(?:node|topic|launch)\b|\bgrippers?\b"
        r"|\bservo\s+motors?\b|\bdrones?\b|\bquadcopters?\b|\bpx4\b|\bardupilot\b",
    ),
    _rule(
        _P,
        "hardware-printer",
        "cups lpstat lpadmin 3d klipper moonraker octoprint bambu bambulab",
        r"\bcups\b(?!\s+of)|\blpstat\b|\blpadmin\b|\b3d\s+print|\bklipper\b|\bmoonraker\b|\boctoprint\b"
        r"|\bbambu\s?lab\b",
    ),
    # documents are printed all the time: a printer is a need only when it is the subject
    _rule(_P, "hardware-printer-mention", "printer printers", r"\bprinters?\b"),
    _rule(
        _P,
        "hardware-camera",
        "webcam webcams camera cameras onvif imagesnap",
        r"\bwebcams?\b|\b(?:ip|security|rtsp|onvif)\s+cameras?\b|\bonvif\b|\bimagesnap\b"
        r"|\bcamera\s+(?:feed|stream|snapshot|capture)s?\b",
    ),
    _rule(_P, "hardware-camera", "", r"\brtsp://", entry=r"rtsp://"),
    _rule(
        _P,
        "hardware-smart-home",
        "philips hue openhue homekit assistant homeassistant dirigera smartthings homebridge homey mijia zigbee z-wave",
        r"\bphilips\s+hue\b|\bhue\s+(?:bridge|lights?)\b|\bopenhue\b|\bhomekit\b|\bhome\s?assistant\b|\bdirigera\b"
        r"|\bsmartthings\b|\bhomebridge\b|\bhomey\b|\bmijia\b|\bzigbee\b|\bz-wave\b",
    ),
    _rule(
        _P,
        "hardware-smart-home",
        "smart",
        r"\bsmart\s+(?:home|plugs?|lights?|bulbs?|thermostats?|locks?|speakers?|devices?)\b",
    ),
    _rule(
        _P,
        "hardware-gpio",
        "gpio raspberry arduino esp32 esp8266 i2c",
        r"\bgpio\b|\braspberry\s+pi\b|\barduino\b|\besp32\b|\besp8266\b|\bi2c\b",
    ),
    _rule(
        _P,
        "hardware-wearable",
        "oura eight eightsleep whoop garmin fitbit apple withings",
        r"\boura\b|\beight\s?sleep\b|\bwhoop\b|\bgarmin\b|\bfitbit\b|\bapple\s+watch\b|\bwithings\b",
    ),
    _rule(
        _P,
        "hardware-vehicle",
        "tesla teslapy obd-ii obdii",
        r"\btesla\s+(?:vehicles?|cars?|owner\s+api|fleet\s+api)\b|\bteslapy\b|\bobd-?ii\b",
    ),
    _rule(
        _P,
        "hardware-audio-device",
        "airplay sonos chromecast devialet airfoil microphone",
        r"\bairplay\b|\bsonos\b|\bchromecast\b|\bdevialet\b|\bairfoil\b|\bmicrophone\s+(?:input|access|recording)\b",
    ),
    _rule(_P, "hardware-display", "e-ink eink trmnl", r"\be-?ink\s+(?:display|screen)s?\b|\btrmnl\b"),
    # accounts and keys
    _rule(
        _F,
        "api-key-signup",
        "key keys token password",
        r"\b(?:get|obtain|grab|create|generate|request)\s+(?:your|an?|the)\s+(?:free\s+|own\s+|personal\s+)?"
        r"(?:api[- ]?key|api\s+token|access\s+token|developer\s+token|app\s+password)\b",
    ),
    _rule(
        _F,
        "api-key-signup",
        "key",
        r"\bapi[- ]?key\s+(?:is\s+)?(?:required|needed|mandatory)\b"
        r"|\brequires?\s+(?:an?\s+|your\s+)?(?:[\w.-]+\s+)?api[- ]?key\b",
    ),
    _rule(
        _F,
        "api-key-signup",
        "signup sign account",
        r"\bsign\s?up\s+(?:for\s+[\w.-]+\s+)?(?:at|on)\s+\S+|\bcreate\s+an?\s+(?:free\s+)?account\s+(?:at|on)\b",
    ),
    _rule(
        _F,
        "api-key-signup",
        "key keys auth authenticate",
        r"\bapi[- ]key\s+auth(?:entication)?\b|\b(?:use|with|pass|send|include)\s+(?:an?\s+|your\s+)?api[- ]key\b"
        r"|\b(?:configure|set\s*up|add|provide|enter)\s+(?:an?\s+|your\s+)?(?:[\w-]+\s+)?api[- ]?keys?\b"
        r"|\bauthenticate\s+(?:with|using)\s+(?:an?\s+|your\s+)?(?:api[- ]key|token|access\s+token)\b"
        r"|\b(?:verify|check|ensure)\s+(?:that\s+)?(?:the\s+|your\s+)?(?:[\w-]+\s+)?api[- ]key\b"
        r"|\bkey\b[^\n.]{0,40}\bgenerate\s+(?:one|a\s+new\s+one)\s+(?:at|in|from)\b",
    ),
    _rule(
        _F,
        "live-account",
        "oauth oauth2 login log sign",
        r"\boauth\s?2?\b|\b(?:auth|account)\s+login\b|\blog\s?in\s+(?:to|with)\s+your\b"
        r"|\bsign\s+in\s+(?:to|with)\s+your\b",
    ),
    _rule(
        _F,
        "live-account",
        "login",
        # a CLI logging in to its service: `bw login`, `gh auth login`, `vercel login`
        r"(?:`|^[ \t]*(?:\$[ \t]*)?)[a-z][\w.-]*[ \t]+(?:auth[ \t]+)?login\b",
    ),
    _rule(
        _F,
        "live-account",
        "bot personal app-specific cookie cookies refresh refresh_token",
        r"\bbot\s+token\b|\bpersonal\s+access\s+token\b|\bapp[- ]specific\s+password\b"
        r"|\bsession\s+cookies?\b|\brefresh[_ ]token\b",
    ),
    _rule(
        _F,
        "api-auth-header",
        "authorization x-api-key api-key apikey api_key access_token key token",
        # a request that sends a credential: the header or query parameter of a keyed API
        r"\bauthorization[\"']?\s*:\s*[\"']?(?:bearer|token|basic|apikey|key)\b|\bx-api-key\s*:"
        r"|[?&](?:api_?key|apikey|access_token|key|token)=",
    ),
    _rule(
        _F,
        "subscription-required",
        "subscription subscriptions paid premium",
        r"\b(?:paid|pro|premium|plus|business|enterprise)\s+(?:subscription|plan|account|tier)\s+(?:is\s+)?"
        r"(?:required|needed)\b|\brequires?\s+(?:an?\s+)?(?:paid|pro|premium|active)\s+(?:[\w.-]+\s+)?"
        r"(?:subscription|plan|account)\b",
    ),
    _rule(_F, "remote-mcp", "mcp-remote", r"\bmcp-remote\b"),
    _rule(_F, "remote-mcp", "", r"https://mcp\.[\w.-]+(?:/\S*)?", entry=r"://mcp\."),
    _rule(_F, "remote-mcp", "", r"https://[\w.-]+/mcp\b(?:/\S*)?", entry=r"/mcp\b"),
    # requests to a remote service: a declared base URL / endpoint / socket, or a request command
    _rule(
        _F,
        "remote-api-base",
        "base_url baseurl api_url apiurl api_base api_root endpoint server_url wss ws",
        r"\b(?:base[_ ]?url|api[_ ]?url|api[_ ]?base|api[_ ]?root|endpoint|server[_ ]?url)\b[*`\"' ]*[:=]"
        r"[*`\"'\s]*(?:https?|wss?)://[a-z0-9.-]+\.[a-z]{2,}|\bwss?://[a-z0-9.-]+\.[a-z]{2,}",
    ),
    _rule(
        _F,
        "remote-api-call",
        "curl wget httpie fetch requests axios urlopen httpx",
        r"(?:\bcurl\b|\bwget\b|\bhttpie?\b|\bfetch\(|\brequests\.\w+\(|\baxios\.\w+\(|\burlopen\(|\bhttpx\.\w+\()"
        r"[^\n]{0,120}?\bhttps?://[a-z0-9.-]+\.[a-z]{2,}",
    ),
    # real money
    _rule(
        _F,
        "real-money-trade",
        "order orders trade trades position positions",
        r"\b(?:place|placing|submit|execute|open)s?\s+(?:an?\s+|the\s+)?(?:live\s+|real\s+)?"
        r"(?:market\s+|limit\s+|stop\s+|buy\s+|sell\s+)?(?:orders?|trades?|positions?)\b",
    ),
    _rule(
        _F,
        "real-money-trade",
        "trading futures",
        r"\b(?:live|real[- ]money|real[- ]funds?)\s+trading\b|\bspot\s+(?:and|&)\s+futures\b|\bfutures\s+trading\b"
        r"|\bmargin\s+trading\b",
    ),
    _rule(
        _F,
        "real-money-payment",
        "payment payments money funds usdc btc eth sol bitcoin crypto micropayment micropayments",
        r"\b(?:send|make|transfer|sign)s?\s+(?:an?\s+)?(?:payments?|money|funds|usdc|btc|eth|sol|bitcoin|crypto"
        r"|micropayments?)\b|\bpayment\s+(?:api|gateway|processing)\b",
    ),
    _rule(_F, "real-money-payment", "x402 checkout", r"\bx402\b|\bcheckout\b"),
    _rule(
        _F,
        "real-money-wallet",
        "wallet seed mainnet self-custodial",
        r"\b(?:wallet|seed)\s+(?:private\s+key|phrase|mnemonic)\b|\bprivate[_ ]key\b[^\n]{0,40}\bwallet\b"
        r"|\bwallet\b[^\n]{0,40}\bprivate[_ ]key\b|\bmainnet\b|\bself-custodial\b",
    ),
    _rule(
        _F,
        "real-money-claim",
        "real actual financial",
        r"\breal\s+(?:money|funds|assets)\b|\bactual\s+funds\b|\bfinancial\s+loss(?:es)?\b",
    ),
)

# Credential-like environment variable names: case-sensitive so prose does not match, found by
# their uppercase suffix because the anchor sits inside the name (`OPENAI_API_KEY`).
_CREDENTIAL_SUFFIX = (
    r"(?:API_?KEY|APIKEY|KEY|TOKEN|AUTHTOKEN|APITOKEN|SECRET|SECRET_KEY|ACCESS_KEY(?:_ID)?|ACCESS_TOKEN|AUTH_TOKEN"
    r"|BEARER_TOKEN|CLIENT_SECRET|PASSWORD|PRIVATE_KEY|APP_KEY)\b"
)
_CREDENTIAL_ENTRY = re.compile("_" + _CREDENTIAL_SUFFIX)
CREDENTIAL_NAME = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_" + _CREDENTIAL_SUFFIX)
"""An environment variable named like a credential (`OPENAI_API_KEY`, `NGROK_AUTHTOKEN`)."""

_Trie = dict[str, "_Trie"]


def trie_pattern(words: Iterable[str]) -> str:
    """A regex alternation shaped as a trie, so shared prefixes are tested once."""
    root: _Trie = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: _Trie) -> str:
        branches = [re.escape(char) + emit(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root) or "(?!)"


def _build_locator() -> tuple[re.Pattern[str], dict[str, tuple[tuple[int, ...], tuple[int, ...]]]]:
    """One regex for the anchors of every rule and security check, and what each anchor triggers.

    A match is a boundary character followed by the anchor word; each word maps to the indices
    of its rules and of its security checks.
    """
    owners: dict[str, list[int]] = {}
    prefixes: set[str] = set()
    anchor_lists = [rule.anchors for rule in _RULES] + [tuple(check.anchors.split()) for check in _SECURITY_CHECKS]
    for index, anchors in enumerate(anchor_lists):
        for anchor in anchors:
            word = anchor.rstrip("*")
            if anchor.endswith("*"):
                prefixes.add(word)
            owners.setdefault(word, []).append(index)
    whole = trie_pattern(word for word in owners if word not in prefixes)
    # The leading class and the first-character lookahead are cheap tests the engine makes at
    # each offset before trying the trie (texts get a newline in front so a word at offset 0 is
    # found); the trailing lookahead keeps near misses (`sign` in `signal`) out of Python. No
    # capturing groups: the anchor is the match less its first character.
    first_chars = "".join(sorted({re.escape(word[0]) for word in owners}))
    pattern = re.compile(rf"[^a-z0-9_](?=[{first_chars}])(?:{whole}(?![a-z0-9_])|{trie_pattern(prefixes)})")
    n_rules = len(_RULES)
    triggered = {
        word: (
            tuple(index for index in indices if index < n_rules),
            tuple(index - n_rules for index in indices if index >= n_rules),
        )
        for word, indices in owners.items()
    }
    return pattern, triggered


_LOCATOR, _ANCHOR_OWNERS = _build_locator()
_ENTRY_RULES = tuple(
    (index, _literal_prefix(rule.entry.pattern), rule.entry)
    for index, rule in enumerate(_RULES)
    if rule.entry is not None
)
"""Rules with an entry regex, each with the literal text its matches start with (a cheap `in` test first)."""


# --- the word locator -----------------------------------------------------------------------------
#
# `_LOCATOR` tests a character class at every offset, which costs a few nanoseconds a character.
# `_anchor_hits` runs the same search over a byte copy of the text in which every character
# other than [a-z0-9_] is a space: the regex then starts with a literal space, which the engine
# finds at C speed, and each match is a whole word (or a `*` anchor's prefix) looked up in
# `_WORD_ROLES`. Anchors with punctuation (`api-key`, `nut.js`) are found by their first word and
# then checked against the text; entry literals with a word between non-word characters (`app`
# in `.app`, `mcp` in `://mcp.`) get their candidates from that word instead of a scan of their
# own. The result is what `_anchor_hits_regex` computes; texts holding the first character of a
# non-ASCII anchor (`后门`) take that path.


@dataclass(frozen=True)
class _WordRole:
    """What a whole word found by `_WORD_LOCATOR` stands for."""

    anchor: str | None
    """The anchor that is this word, if any."""
    longer: tuple[str, ...]
    """Anchors with punctuation that start with this word, longest first."""
    entries: tuple[tuple[int, int], ...]
    """Entry rules (index into `_ENTRY_RULES`) whose literal holds this word, and its offset there."""


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_TO_SPACES = bytes(byte if byte in _WORD_BYTES else 0x20 for byte in range(256))
_FIRST_WORD = re.compile(r"[a-z0-9_]+")


def _entry_word(entry: re.Pattern[str]) -> tuple[str, int] | None:
    """A word of the entry's literal with non-word characters on both sides in every match
    (inside the literal, or a `\\b` right after it), and its offset; the longest one."""
    literal, stop = _literal_span(entry.pattern)
    ends_at_boundary = entry.pattern.startswith("\\b", stop)
    best: tuple[str, int] | None = None
    for word in _FIRST_WORD.finditer(literal):
        closed = word.end() < len(literal) or ends_at_boundary
        long_enough = len(word.group()) >= 3  # a short word (`a` in `open -a`) is everywhere: scan instead
        if word.start() > 0 and closed and long_enough and (best is None or len(word.group()) > len(best[0])):
            best = (word.group(), word.start())
    return best


def _build_word_locator() -> tuple[re.Pattern[bytes], dict[bytes, _WordRole], tuple[str, ...], tuple[str, ...]]:
    """The byte regex of `_anchor_hits`, the role of each whole word it finds, the `*` anchors
    (longest first), and the characters that send a text to `_anchor_hits_regex`."""
    prefixes = {anchor.rstrip("*") for rule in _RULES for anchor in rule.anchors if anchor.endswith("*")}
    regex_only = sorted({word[0] for word in _ANCHOR_OWNERS if not word.isascii()})
    anchors: dict[str, str | None] = {}
    longer: dict[str, list[str]] = {}
    entries: dict[str, list[tuple[int, int]]] = {}
    for word in _ANCHOR_OWNERS:
        if not word.isascii() or word in prefixes:
            continue
        first = _FIRST_WORD.match(word)
        if first is None:
            raise ValueError(f"anchor {word!r} does not start with a word character")
        if first.group() == word:
            anchors[word] = word
        else:
            longer.setdefault(first.group(), []).append(word)
            anchors.setdefault(first.group(), None)
    for slot, (_, _, entry) in enumerate(_ENTRY_RULES):
        found = _entry_word(entry)
        if found is not None:
            entries.setdefault(found[0], []).append((slot, found[1]))
            anchors.setdefault(found[0], None)
    for prefix in prefixes:
        if not _FIRST_WORD.fullmatch(prefix):
            raise ValueError(f"prefix anchor {prefix!r} is not a plain word")
    roles = {
        word.encode(): _WordRole(
            anchor,
            tuple(sorted(longer.get(word, ()), key=len, reverse=True)),
            tuple(entries.get(word, ())),
        )
        for word, anchor in anchors.items()
    }
    first_chars = "".join(sorted({re.escape(word[0]) for word in [*anchors, *prefixes]}))
    pattern = re.compile(
        rf" (?=[{first_chars}])(?:{trie_pattern(anchors)}(?![a-z0-9_])|{trie_pattern(prefixes)})".encode()
    )
    return pattern, roles, tuple(sorted(prefixes, key=len, reverse=True)), tuple(regex_only)


_WORD_LOCATOR, _WORD_ROLES, _PREFIX_ANCHORS, _REGEX_ONLY_CHARS = _build_word_locator()
_PLAIN_WORDS = {
    word: role.anchor for word, role in _WORD_ROLES.items() if role.anchor and not role.longer and not role.entries
}
"""Words that are simply an anchor (most): no punctuated anchor or entry literal starts with them."""
_ENTRY_SCANS = frozenset(range(len(_ENTRY_RULES))) - {slot for role in _WORD_ROLES.values() for slot, _ in role.entries}
"""Entry rules found by their own scan (their literal has no enclosed word)."""

PLATFORM_CODES = frozenset(rule.code for rule in _RULES if rule.family == PLATFORM)
FEASIBILITY_CODES = frozenset({"api-credential"} | {rule.code for rule in _RULES if rule.family == FEASIBILITY})
FAMILIES: dict[str, frozenset[str]] = {
    SECURITY: SECURITY_CODES,
    PLATFORM: PLATFORM_CODES,
    FEASIBILITY: FEASIBILITY_CODES,
}
"""Every signal code `scan_text` can emit, by family."""


def evidence_line(signal: Signal) -> str:
    """A signal as curation evidence: `file:line: excerpt`."""
    return f"{signal.file}:{signal.line}: {signal.excerpt}"


def family_of(code: str) -> str | None:
    """The family (`security`, `platform`, `feasibility`) a signal code belongs to, or None."""
    for family, codes in FAMILIES.items():
        if code in codes:
            return family
    return None


def _anchor_hits(lower: str) -> tuple[dict[int, list[int]], set[int]]:
    """Offsets of rule anchors in `lower` by rule, and the security checks whose anchors occur.

    The word locator's way (see above) to the result of `_anchor_hits_regex`.
    """
    if not lower.isascii() and any(char in lower for char in _REGEX_ONLY_CHARS):
        return _anchor_hits_regex(lower)
    words = b" " + lower.encode("ascii", "replace").translate(_TO_SPACES)
    size = len(words)
    hits: dict[int, list[int]] = {}
    checks: set[int] = set()
    candidates: dict[int, list[int]] = {}  # entry slot -> where its literal may start
    next_free = 0  # the regex locator's matches do not overlap (each takes a boundary and a word)
    for match in _WORD_LOCATOR.finditer(words):
        # the space in front stands for the boundary: `offset` is the word's offset in `lower`
        offset, end = match.span()
        word = words[offset + 1 : end]
        whole = end == size or words[end] == 0x20
        anchor = _PLAIN_WORDS.get(word) if whole else None
        if anchor is None:
            anchor = _resolve_word(lower, words, offset, word if whole else None, candidates)
        if anchor is None or offset < next_free:
            continue
        next_free = offset + len(anchor) + 1
        rules, triggered = _ANCHOR_OWNERS[anchor]
        if triggered:
            checks.update(triggered)
        for index in rules:
            offsets = hits.setdefault(index, [])
            if len(offsets) < _MAX_HITS_PER_RULE:
                offsets.append(offset)
    for slot, (index, literal, entry) in enumerate(_ENTRY_RULES):
        if slot in _ENTRY_SCANS:
            if literal not in lower:
                continue
            matches: Iterable[re.Match[str] | None] = entry.finditer(lower)
        else:
            matches = (entry.match(lower, start) for start in candidates.get(slot, ()) if start >= 0)
        entry_end = 0
        for found in matches:
            if found is None or found.start() < entry_end:
                continue
            entry_end = found.end()
            offsets = hits.setdefault(index, [])
            if len(offsets) >= _MAX_HITS_PER_RULE:
                break
            offsets.append(found.start())
    return hits, checks


def _resolve_word(
    lower: str, words: bytes, offset: int, word: bytes | None, candidates: dict[int, list[int]]
) -> str | None:
    """The anchor at `offset` for a word that is not plainly an anchor (`word` is None when the
    match is only a `*` anchor's prefix), noting the entry candidates the word points at."""
    role = _WORD_ROLES.get(word) if word is not None else None
    if role is not None:
        for slot, before in role.entries:
            candidates.setdefault(slot, []).append(offset - before)
        for longer in role.longer:
            after = offset + len(longer) + 1
            if lower.startswith(longer, offset) and (after >= len(words) or words[after] == 0x20):
                return longer
        if role.anchor is not None:
            return role.anchor
    return next((prefix for prefix in _PREFIX_ANCHORS if lower.startswith(prefix, offset)), None)


def _anchor_hits_regex(lower: str) -> tuple[dict[int, list[int]], set[int]]:
    """`_anchor_hits` with `_LOCATOR` and a scan per entry rule."""
    hits: dict[int, list[int]] = {}
    checks: set[int] = set()
    for match in _LOCATOR.finditer("\n" + lower):
        # offsets shift by one for the leading newline, which the class character makes up for
        rules, triggered = _ANCHOR_OWNERS[match.group()[1:]]
        if triggered:
            checks.update(triggered)
        for index in rules:
            offsets = hits.setdefault(index, [])
            if len(offsets) < _MAX_HITS_PER_RULE:
                offsets.append(match.start())
    for index, literal, entry in _ENTRY_RULES:
        if literal not in lower:
            continue
        for match in entry.finditer(lower):
            offsets = hits.setdefault(index, [])
            if len(offsets) >= _MAX_HITS_PER_RULE:
                break
            offsets.append(match.start())
    return hits, checks


def _windows(text: str, offsets: list[int], lines: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    """Merged ranges around the given offsets, within their lines (long paragraphs are clipped).

    `lines` remembers the line bounds of offsets already seen (rules share anchors).
    """
    windows: list[tuple[int, int]] = []
    current_start = current_end = -1
    for offset in sorted(offsets):
        bounds = lines.get(offset)
        if bounds is None:
            bounds = lines[offset] = _line_bounds(text, offset)
        start = max(bounds[0], offset - _WINDOW_BEFORE)
        end = min(bounds[1], offset + _WINDOW_AFTER)
        if current_end >= 0 and start <= current_end:
            current_end = max(current_end, end)
            continue
        if current_end >= 0:
            windows.append((current_start, current_end))
        current_start, current_end = start, end
    if current_end >= 0:
        windows.append((current_start, current_end))
    return windows


_QUOTED_TITLE = re.compile(r"\"([A-Z][^\"\n`$=(){}<>\\/]{10,200})\"|\u201c([A-Z][^\u201d\n]{10,200})\u201d")
"""A title quoted in prose ("How I Control My Lights From a Pi"): a capital, then four words or more."""


def _in_quoted_title(text: str, pos: int) -> bool:
    """Whether `pos` sits in a title quoted on a prose line (an example headline, not a statement)."""
    start, end = _line_bounds(text, pos)
    if '"' not in text[start:end] and "\u201c" not in text[start:end]:
        return False
    for match in _QUOTED_TITLE.finditer(text, start, end):
        inner = match.start(1) if match.group(1) is not None else match.start(2)
        if inner <= pos < match.end() - 1 and len(match.group().split()) >= 4:
            return not _in_code_fence(text, pos)
    return False


def _scan_rules(text: str, lower: str, hits: dict[int, list[int]], found: _Found) -> None:
    lines: dict[int, tuple[int, int]] = {}
    windows: dict[tuple[int, ...], list[tuple[int, int]]] = {}  # rules sharing anchors share windows
    for index, offsets in hits.items():
        rule = _RULES[index]
        key = tuple(offsets)
        ranges = windows.get(key)
        if ranges is None:
            ranges = windows[key] = _windows(lower, offsets, lines)
        for start, end in ranges:
            for match in rule.pattern.finditer(lower, start, end):
                if rule.family == PLATFORM and not found.is_code and _in_quoted_title(text, match.start()):
                    continue  # an example title names a device or a platform; the skill does not use it
                found.add(rule.code, match.start())
    for match in _CREDENTIAL_ENTRY.finditer(text):
        window_start = max(0, match.start() - 64)
        for name in CREDENTIAL_NAME.finditer(text, window_start, match.end() + 16):
            if name.end() >= match.end():
                found.add("api-credential", name.start())
                break


# --- entry point ----------------------------------------------------------------------------


def _is_primary(name: str) -> bool:
    return name in _PRIMARY_NAMES or name.endswith(_PRIMARY_SUFFIXES)


_PRIMARY_SUFFIXES = CODE_SUFFIXES + _CONFIG_SUFFIXES


def _same_length_lower(text: str) -> str:
    """Lower-case `text` keeping every offset: characters whose lower case is longer stay as they are."""
    lower = text.lower()
    if len(lower) == len(text):
        return lower
    return "".join(char if len(char.lower()) != 1 else char.lower() for char in text)


def scan_text(path: str, text: str) -> list[Signal]:
    """Detect security, platform and feasibility signals in one text file of a skill.

    `path` is relative to the skill folder; it decides how deeply the file is scanned (see the
    module docstring). Returns at most `MAX_PER_CODE` signals per code, in detector order.
    Never raises on odd text (empty, binary-ish, huge).
    """
    if not text:
        return []
    name = path.rsplit("/", 1)[-1].lower()
    found = _Found(path=path, source=text, is_code=name.endswith(CODE_SUFFIXES))
    if not _is_primary(name):
        _scan_security(text, found, _needle_checks(text, everywhere_only=True))
        return found.signals
    head = text[: PRIMARY_SCAN_CHARS if name in _SKILL_MD_NAMES else OTHER_SCAN_CHARS]
    lower = _same_length_lower(head)
    hits, checks = _anchor_hits(lower)
    if len(head) < len(text):
        # anchors beyond the scanned head are unknown: fall back to needles for the rest
        checks |= _needle_checks(text, everywhere_only=False, start=len(head), known=checks)
    _scan_security(text, found, checks)
    _scan_rules(head, lower, hits, found)
    return found.signals

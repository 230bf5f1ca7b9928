"""Criterion 1, practical value: does the skill describe a real, usable workflow?

Fails stubs and placeholders, SKILL.md files that are really code, persona / role-play prompts
and marketing text with no procedure, and skills that are not loadable as published (no or
broken frontmatter, no name or description, a SKILL.md too large to load as instructions).
Passes when there is a procedure: steps, commands, code, tool instructions or scripts.

The text views `skill_body` and `skill_subject` are shared with the other rule modules.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

from skill2env.catalog.files import SCRIPT_LANGUAGES
from skill2env.catalog.models import Signal, SkillRecord, SkillStatus
from skill2env.catalog.signals import SUBJECT_PATH, has_ascii_twins, literal_first, scan_text
from skill2env.curation.models import Criterion, Outcome, Verdict

SKILL_MD_MAX_BYTES = 64 * 1024
"""Beyond ~16k tokens a SKILL.md cannot be loaded as instructions without crowding the context
(the Agent Skills guidance is a body under ~5k tokens); such files are document dumps."""
MIN_BODY_WORD_CHARS = 150
"""Fewer word characters than this in the body is a stub, whatever it says."""
SHORT_BODY_WORD_CHARS = 1_500
"""Placeholder and test markers only condemn bodies shorter than this."""
NO_WORKFLOW_STUB_WORD_CHARS = 600
"""A body this short with no procedure at all is a stub; a longer one is left undecided."""

AGENT_PROCESS_MAX_BLOCKS = 3
"""A skill about the agent's own process (plans, subagents, reviews) with this few command blocks is
meta-process advice; more blocks than this make a concrete procedure (worktrees, test runners)."""

PERSONA_MAX_BLOCKS = 3
"""A skill whose name or description casts the agent as a character (role-play, a game) with this few
command blocks is a persona: its blocks are sample dialogue or a demo."""
PROSE_MAX_BLOCKS = 2
"""A skill whose deliverable is persuasive or personal writing with this few command blocks is advice."""

SUBJECT = "<subject>"
# What a skill delivers when it is writing judged by taste: proposals, blog posts, essays, copy.
_PROSE_DELIVERABLE = re.compile(
    r"\b(?:writ(?:e|es|ing)|draft(?:s|ing)?|compos(?:e|es|ing)|ghost-?writ\w*|craft(?:s|ing)?)\s+(?:\w+\s+){0,3}?"
    r"(?:(?:research|grant)\s+proposals?|proposals?|blog\s+posts?|articles?|essays?|narratives?|marketing\s+copy"
    r"|copy|cover\s+letters?|speeches|stories|poems?|newsletters?|press\s+releases?|long-form\s+content)\b",
    re.IGNORECASE,
)
_PROSE_NEEDLES = ("writ", "draft", "compos", "craft")
"""Every `_PROSE_DELIVERABLE` match holds one of these (lower-cased): most subjects skip the regex."""
_ACCURATE_OUTPUT = re.compile(r"\b(?:templates?|latex|schema|validat\w*|lint\w*|format(?:s|ting)?\s+checks?)\b", re.I)
"""Writing with a checkable form (a template, a schema, a linter) is not judged by taste alone."""
# The agent's own way of working, as a skill's name or description states it: planning, dispatching
# subagents, answering review feedback, what to do before coding or claiming completion.
_AGENT_PROCESS = re.compile(
    r"\bsub-?agents?\b|\b(?:independent|parallel)\s+(?:tasks|agents)\b|\bimplementation\s+plans?\b"
    r"|\bmulti-step\s+(?:task|project)s?\b|\bcode\s+review\s+feedback\b|\bbrainstorm(?:s|ing)?\b"
    r"|\bbefore\s+(?:any\s+(?:creative\s+work|response)|touching\s+code|claiming|implementing)\b"
    r"|\bagent'?s\s+own\b|\bperformative\s+agreement\b",
    re.IGNORECASE,
)
_AGENT_PROCESS_NEEDLES = (
    "agent", "independent", "parallel", "implementation", "multi-step", "review", "brainstorm", "before",
    "performative",
)  # fmt: skip
"""Every `_AGENT_PROCESS` match holds one of these (lower-cased)."""
_STEP_LINE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,2}[.)])[ \t]+\S[^\n]*", re.MULTILINE)
_STEP_AFTER_NEWLINE = re.compile(r"\n([ \t]*(?:[-*+]|\d{1,2}[.)])[ \t]+\S[^\n]*)")
"""`_STEP_LINE` past the first line, spelled from the newline before it (a literal found at C speed)."""
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n.*?^---[ \t]*(?:\r?\n|\Z)", re.DOTALL | re.MULTILINE)
_HEAD_CHARS = 8_000
_SHORT_BODY_CHARS = 6_000
"""A body this long holds more than SHORT_BODY_WORD_CHARS word characters: no need to look for placeholders."""
# a fence left open at the end of the file still holds code
_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
"""What a fenced block is; `_iter_fences` finds the same blocks without running it over the body."""
_FENCE_OPENING = re.compile(r"[ \t]*(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n")
"""The opening line of `_FENCE` (from a line start): its marker and language."""
_INLINE_COMMAND = re.compile(r"`[a-z][\w.-]*(?: +[^`\n ]+)+`")
_IMPERATIVE_ITEM = re.compile(
    r"^[ \t]*(?:[-*+]|\d{1,2}[.)])[ \t]+(?:\*\*)?(?:use|run|apply|check|create|add|write|verify|ensure|avoid|set|"
    r"install|open|read|list|call|define|configure|build|test|review|identify|generate|keep|prefer|include|follow|"
    r"start|update|remove|select|choose|compare|document|map|measure|analy[sz]e|extract|convert|validate|load|"
    r"save|export|import|deploy|commit|ask|confirm|report|never|always|do\s+not|don't)\b",
    re.MULTILINE,
)
# A Markdown heading, `^#{1,6}[ \t]+(.+?)[ \t#]*$` in effect (same matches, same group), written to
# start with a literal `#` found at C speed (the lookbehind puts it at a line start) and with the
# lazy title spelled greedily: the title ends at its last character that is not a space, tab or `#`.
_HEADING = re.compile(r"#(?<![^\n]#)#{0,5}[ \t]+([^\n]*[^ \t#\n]|[^\n])[ \t#]*$", re.MULTILINE)
_NUMBERED_STEP = re.compile(
    r"^[ \t]*(?:\d{1,2}[.)]|step\s+\d+[:.]|第[一二三四五六七八九十\d]+步)[ \t]*\S", re.MULTILINE
)
_PROCEDURAL_HEADING = re.compile(
    r"\b(?:steps?|workflow|process|procedure|usage|how\s+to|quick\s?start|getting\s+started|instructions"
    r"|commands?|setup|installation|install|examples?|checklist|phases?|run(?:ning)?|api|tools?|scripts?)\b"
    r"|流程|步骤|用法|使用|命令|示例|手順|使い方",
    re.IGNORECASE,
)
_CODE_LANGS = frozenset(
    {
        "bash", "sh", "shell", "zsh", "fish", "console", "terminal", "shellsession", "powershell", "ps1", "pwsh",
        "cmd", "bat", "python", "py", "python3", "ipython", "pycon", "javascript", "js", "mjs", "typescript", "ts",
        "jsx", "tsx", "node", "json", "jsonc", "yaml", "yml", "toml", "ini", "env", "dotenv", "sql", "psql", "mysql",
        "sqlite", "go", "golang", "rust", "rs", "java", "kotlin", "kt", "swift", "c", "cpp", "c++", "cs", "csharp",
        "ruby", "rb", "php", "r", "julia", "jl", "lua", "perl", "scala", "html", "xml", "css", "scss", "graphql",
        "hcl", "terraform", "tf", "dockerfile", "docker", "makefile", "make", "nginx", "diff", "patch", "dot",
        "mermaid", "latex", "tex", "bibtex", "solidity", "sol", "vue", "svelte", "elixir", "haskell", "ocaml", "zig",
        "nix", "applescript", "vb", "proto", "protobuf",
    }
)  # fmt: skip
# _COMMAND_LINE, _FLAGGED_LINE and _CODE_KEYWORDS search a block with a newline in front: their `^`
# is spelled as that newline, a literal the engine finds at C speed instead of trying every offset.
_COMMAND_LINE = re.compile(
    r"\n[ \t]*(?:\$[ \t]+|>>>[ \t]|#!|(?:sudo|npm|npx|pnpm|yarn|bun|pip3?|uv|uvx|python3?|node|deno|git|gh|curl|wget|"
    r"cd|ls|cat|echo|export|mkdir|cp|mv|rm|docker|kubectl|helm|terraform|make|cargo|go|java|mvn|gradle|brew|apt|"
    r"apt-get|conda|jq|sed|awk|grep|find|ffmpeg|sqlite3|psql|openclaw|clawdbot|clawhub|claude)\b[ \t]?\S*)",
    re.MULTILINE,
)
_FLAGGED_LINE = re.compile(r"\n[ \t]*(?:\$[ \t]+)?[a-z][\w.-]*[ \t]+(?:\S+[ \t]+)*--?[a-z][\w-]*", re.MULTILINE)
_PROGRAM_LINE = re.compile(r"[ \t]*[a-z][\w.-]*[ \t]+\S")
_CODE_KEYWORDS = re.compile(
    r"\n\s*(?:def|class|import|from\s+\S+\s+import|function|const|let|var|return|if\s*\(|for\s*\(|#include|package)\b"
    r"|=>|\)\s*\{|;\s*$|\n\s*[\w.]+\([^)\n]*\)\s*$|\n\s*[\w\"'-]+\s*:\s*[\[{]",
    re.MULTILINE,
)
_CODE_FILE_START = re.compile(
    r"\A\s*(?:#!|\"\"\"|'''|import\s+\w|from\s+[\w.]+\s+import|def\s+\w+\(|class\s+\w+|package\s+\w|#include"
    r"|<\?php|using\s+System|function\s+\w+\s*\(|(?:const|let|var)\s+\w+\s*=|module\.exports|\{\s*\")"
)
_CODE_LINE = re.compile(
    r"^(?:[ \t]+\S|(?:import|from|def|class|return|if|for|while|try|except|with|elif|else)\b|[})\]]|@\w)",
    re.MULTILINE,
)
# literal_first(): each alternative starts with a literal character (see there), same matches
_ARTIFACT = re.compile(
    literal_first(
        r"\.(?<=\w\.)(?:md|json|jsonl|csv|tsv|txt|py|sh|js|ts|yaml|yml|html|pdf|png|jpe?g|svg|docx|xlsx|pptx|sqlite|db|ics|xml"
        r"|log)\b|\b(?:save|write|export|store|append)s?\s+(?:it\s+|them\s+|the\s+\w+\s+)?(?:to|into|in)\s+"
        r"(?:a\s+|the\s+)?(?:file|disk|folder|directory)\b"
    )
)
_MARKDOWN_STRUCTURE = re.compile(r"^(?:#{1,6}[ \t]+\S|[-*+][ \t]+\S|\d+\.[ \t]+\S|>[ \t]|\|.*\|)", re.MULTILINE)
# The last three alternatives are `^[ \t]*test[ \t]*$` (a line that says "test"), spelled from the line's
# first character (`t`, a space or a tab, none after another character but a newline), so that every
# alternative starts with a literal: the engine then tries only the places where one is.
_PLACEHOLDER = re.compile(
    literal_first(
        r"\blorem\s+ipsum\b|\bcoming\s+soon\b|\bplaceholder\b|\bnothing\s+here\b"
        r"|\b(?:your|a)\s+skill\s+description\s+here\b|\[(?:add|insert|describe|your)\b[^\]\n]{0,60}\]"
        r"|\breplace\s+(?:this|me)\b|\binsert\s+[\w\s]{0,30}\s+here\b|\bhello,?\s+world\b"
        r"|t(?<![^\n]t)est[ \t]*$| (?<![^\n] )[ \t]*test[ \t]*$|\t(?<![^\n]\t)[ \t]*test[ \t]*$"
    ),
    re.MULTILINE,
)
_PLACEHOLDER_NEEDLES = (
    "lorem", "coming soon", "placeholder", "nothing here", "description here", "[add", "[insert", "[describe",
    "[your", "replace this", "replace me", "insert ", "hello", "test",
)  # fmt: skip
_PLACEHOLDER_MARKS = re.compile(literal_first(r"\b(?:TODO|TBD|FIXME)\b"))
"""Upper case only: the Spanish word "todo" is not a placeholder."""
_TEST_NAME = re.compile(
    r"(?:^|[-_\s])(?:test|testing|demo|example|sample|hello|my-skill|untitled|foo|tmp)(?:$|[-_\s\d])", re.I
)
# Strong cues cast the agent as someone; weak cues only describe how it sounds. These patterns,
# _ARTIFACT and _MARKETING run on lower-cased text (faster than IGNORECASE).
_PERSONA_STRONG = re.compile(
    literal_first(
        r"\byou\s+are\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}(?:assistant|expert|teacher|tutor|coach|mentor|advisor|"
        r"adviser|therapist|companion|friend|persona|character|guide|consultant|investor|writer|agent)\b"
        r"|\b(?:act|respond|reply|speak|talk|behave|answer)\s+(?:as|like)\s+(?:an?\s+|the\s+)?\w+"
        r"|\bresponds?\s+to\s+\w+\s+(?:respectfully|politely|warmly|with)\b|\brole-?play(?:ing)?\b|\bin\s+character\b"
        r"|你是一[位个名]|扮演|角色扮演|模拟[^\n，。]{0,12}(?:老师|导师|专家|顾问|助手)|人设"
        r"|あなたは|として振る舞|になりきり|アドバイザー|アドバイスを提供"
    )
)
_PERSONA_WEAK = re.compile(
    literal_first(
        r"\bpersonality(?:\s+traits)?\b|\bcore\s+identity\b|\bresponse\s+style\b|\btone\s+of\s+voice\b|\bpersona\b"
        r"|\bcatchphrases?\b|\bspeaking\s+style\b|语气|口調|思考法|回答します"
    )
)
# Every persona alternative contains one of these: most skills are ruled out without a regex.
_PERSONA_STRONG_NEEDLES = (
    "you are", "act ", "respond", "reply", "speak", "talk", "behave", "answer", "role", "in character",
    "你是一", "扮演", "模拟", "人设", "あなたは", "として振る舞", "になりきり", "アドバイ",
)  # fmt: skip
_PERSONA_WEAK_NEEDLES = (
    "personality", "identity", "response style", "tone of voice", "persona", "catchphrase", "speaking style",
    "语气", "口調", "思考法", "回答します",
)  # fmt: skip
_MARKETING = re.compile(
    r"\b(?:revolutionary|game[- ]chang(?:ing|er)|cutting[- ]edge|world[- ]class|best[- ]in[- ]class|"
    r"supercharge|unleash|unlock\s+(?:the|your)|skyrocket|10x|effortless(?:ly)?|seamless(?:ly)?|"
    r"next[- ]level|limited\s+time|sign\s+up\s+now|buy\s+now|get\s+started\s+today|transform\s+your)\b|🚀|🔥|💯",
)


@dataclass(frozen=True)
class BodyProfile:
    """What the SKILL.md body contains, as far as practical value is concerned."""

    word_chars: int
    code_blocks: int
    command_blocks: int
    """Fenced blocks holding code or commands (not prompts, sample dialogue or output)."""
    numbered_steps: int
    procedural_headings: int
    inline_commands: int
    imperative_items: int
    artifacts: int
    """Files the skill reads or writes: paths with extensions, "save to a file" and the like."""
    persona_cues: tuple[str, ...]
    """Strong persona cues ("you are a tutor", "act as"), then weak ones ("personality")."""
    strong_persona_cues: int
    placeholder_cues: tuple[str, ...]
    marketing_cues: int
    looks_like_code: bool


def skill_body(record: SkillRecord) -> str:
    """SKILL.md without its YAML frontmatter (the whole text when there is none)."""
    text = record.skill_md_text or ""
    # every rule module asks for the body of the same record in turn: remember the last one
    cached = _BODY_MEMO[0]
    if cached[0] is text:
        return cached[1]
    normalized = text.replace("\r\n", "\n")
    match = _FRONTMATTER.match(normalized)
    body = normalized[match.end() :] if match else normalized
    _BODY_MEMO[0] = (text, body)
    return body


def skill_subject(record: SkillRecord) -> str:
    """What the skill says it is about: name, description, and the first heading and paragraph.

    The first heading and paragraph matter for skills without frontmatter, whose description is
    the opening of the body.
    """
    name = str(record.name or record.frontmatter.get("name") or "")
    description = _description(record)
    key = (record.skill_md_text or "", name, description)
    cached = _SUBJECT_MEMO[0]
    if cached is not None and cached[0][0] is key[0] and cached[0][1:] == key[1:]:
        return cached[1]
    parts = [name, str(description or "")]
    body = skill_body(record).lstrip()
    heading = _HEADING.search(body[:2_000])
    if heading:
        parts.append(heading.group(1))
    if not description:
        paragraphs = [p for p in re.split(r"\n\s*\n", body[:3_000]) if p.strip() and not p.lstrip().startswith("#")]
        if paragraphs:
            parts.append(paragraphs[0][:600])
    subject = "\n".join(part for part in parts if part)
    _SUBJECT_MEMO[0] = (key, subject)
    return subject


def lower_text(text: str) -> str:
    """`text.lower()`, remembered for the last text asked (the body, asked for by several rules)."""
    cached = _LOWER_MEMO[0]
    if cached[0] is text:
        return cached[1]
    lower = text.lower()
    _LOWER_MEMO[0] = (text, lower)
    return lower


def subject_signals(subject: str) -> tuple[Signal, ...]:
    """`scan_text(SUBJECT_PATH, subject)` for a `skill_subject`, remembered for the last subject (the
    compatibility and feasibility rules both ask)."""
    cached = _SUBJECT_SIGNALS_MEMO[0]
    if cached[0] is subject:
        return cached[1]
    signals = tuple(scan_text(SUBJECT_PATH, subject))
    _SUBJECT_SIGNALS_MEMO[0] = (subject, signals)
    return signals


def mentions_any(text: str, lower: str, needles: tuple[str, ...]) -> bool:
    """Whether a case-insensitive pattern whose every match holds one of `needles` (lower-case
    ASCII) can match `text`: `lower` (`text.lower()`) holds a needle, or `text` has a character
    that the pattern takes for an ASCII letter (`has_ascii_twins`)."""
    return any(map(lower.__contains__, needles)) or has_ascii_twins(text)


def first_step_line(text: str) -> tuple[int, str] | None:
    """The start and text of `_STEP_LINE.search(text)`, the first list item or numbered step."""
    match = _STEP_LINE.match(text)
    if match:
        return match.start(), match.group()
    match = _STEP_AFTER_NEWLINE.search(text)
    return (match.start(1), match.group(1)) if match else None


# One-entry memos, keyed by the identity of the (immutable) text they were computed from.
_BODY_MEMO: list[tuple[str, str]] = [("", "")]
_SUBJECT_SIGNALS_MEMO: list[tuple[str, tuple[Signal, ...]]] = [("", ())]
_SUBJECT_MEMO: list[tuple[tuple[str, str, str | None], str] | None] = [None]
_LOWER_MEMO: list[tuple[str, str]] = [("", "")]


def _description(record: SkillRecord) -> str | None:
    value = record.description or record.frontmatter.get("description")
    return value if isinstance(value, str) and value.strip() else None


def _name(record: SkillRecord) -> str | None:
    value = record.name or record.frontmatter.get("name")
    return value if isinstance(value, str) and value.strip() else None


def profile_body(body: str, subject: str = "") -> BodyProfile:
    """Count the structures that make a body a procedure (or a stub, code, persona, advert).

    `subject` (name and description) is searched for persona cues too.
    """
    view = _Body(body, subject)
    return BodyProfile(
        word_chars=view.word_chars,
        code_blocks=view.code_blocks,
        command_blocks=view.command_blocks,
        numbered_steps=view.numbered_steps,
        inline_commands=view.inline_commands,
        imperative_items=view.imperative_items,
        artifacts=view.artifacts,
        procedural_headings=view.procedural_headings,
        persona_cues=view.persona_cues,
        strong_persona_cues=len(view.strong_cues),
        placeholder_cues=view.placeholder_cues,
        marketing_cues=view.marketing_cues,
        looks_like_code=view.looks_like_code,
    )


class _Body:
    """The measures of `BodyProfile`, each computed when first asked for.

    Rules mostly need only a few of them (a body with a command block is rarely asked about its
    numbered steps), and thresholds (`at_least`) stop counting once they are reached.
    """

    def __init__(self, body: str, subject: str) -> None:
        self.body = body
        self.subject = subject
        self._fences: list[_Fence] = []
        self._more_fences: Iterator[_Fence] | None = _iter_fences(body)
        self._counts: dict[str, tuple[int, bool]] = {}

    def fences(self) -> Iterator[_Fence]:
        """The blocks of `_FENCE.finditer(body)`, found as far as the callers go and remembered."""
        yield from self._fences
        if self._more_fences is None:
            return
        for fence in self._more_fences:
            self._fences.append(fence)
            yield fence
        self._more_fences = None

    @cached_property
    def word_chars(self) -> int:
        return _count_word_chars(self.body)

    @cached_property
    def code_blocks(self) -> int:
        return sum(1 for _ in self.fences())

    @cached_property
    def command_blocks(self) -> int:
        return sum(1 for _, _, lang, content in self.fences() if _is_command_block(lang.lower(), content))

    @cached_property
    def first_command_block(self) -> _Fence | None:
        return next((fence for fence in self.fences() if _is_command_block(fence[2].lower(), fence[3])), None)

    @cached_property
    def has_command_block(self) -> bool:
        return self.first_command_block is not None

    @cached_property
    def lower(self) -> str:
        return lower_text(self.body)

    @cached_property
    def head(self) -> str:
        """The opening of the body, lower-cased: personas and adverts announce themselves up front."""
        return self.body[:_HEAD_CHARS].lower()

    @cached_property
    def without_code(self) -> str:
        """`_FENCE.sub("", body)`."""
        pieces = []
        last = 0
        for start, end, _, _ in self.fences():
            pieces.append(self.body[last:start])
            last = end
        pieces.append(self.body[last:])
        return "".join(pieces)

    @cached_property
    def headings(self) -> list[str]:
        return _HEADING.findall(self.body)

    @cached_property
    def numbered_steps(self) -> int:
        return len(_NUMBERED_STEP.findall(self.lower))

    @cached_property
    def inline_commands(self) -> int:
        return len(_INLINE_COMMAND.findall(self.without_code))

    @cached_property
    def imperative_items(self) -> int:
        return len(_IMPERATIVE_ITEM.findall(self.without_code.lower()))

    @cached_property
    def artifacts(self) -> int:
        return len(_ARTIFACT.findall(self.head))

    @cached_property
    def procedural_headings(self) -> int:
        return sum(1 for heading in self.headings if _PROCEDURAL_HEADING.search(heading))

    @cached_property
    def subject_lower(self) -> str:
        return self.subject.lower()

    @cached_property
    def persona_text(self) -> str:
        return f"{self.subject_lower}\n{self.head}"

    @cached_property
    def strong_cues(self) -> tuple[str, ...]:
        return _cues(_PERSONA_STRONG, _PERSONA_STRONG_NEEDLES, self.persona_text)

    @cached_property
    def persona_cues(self) -> tuple[str, ...]:
        return self.strong_cues + _cues(_PERSONA_WEAK, _PERSONA_WEAK_NEEDLES, self.persona_text)

    @cached_property
    def placeholder_cues(self) -> tuple[str, ...]:
        return _placeholders(self.body) if len(self.body) < _SHORT_BODY_CHARS else ()

    @cached_property
    def marketing_cues(self) -> int:
        return len(_MARKETING.findall(self.head))

    @cached_property
    def looks_like_code(self) -> bool:
        return _looks_like_code(self.body)

    def at_least(self, name: str, threshold: int) -> bool:
        """Whether the count `name` (numbered_steps, inline_commands, imperative_items,
        procedural_headings) reaches `threshold`, counting no further than needed."""
        if name in self.__dict__:  # counted in full already
            return bool(self.__dict__[name] >= threshold)
        count, complete = self._counts.get(name, (0, False))
        if count >= threshold or complete:
            return count >= threshold
        if name == "numbered_steps":
            matches: Iterator[object] = _NUMBERED_STEP.finditer(self.lower)
        elif name == "inline_commands":
            matches = _INLINE_COMMAND.finditer(self.without_code)
        elif name == "imperative_items":
            matches = _IMPERATIVE_ITEM.finditer(self.without_code.lower())
        else:
            matches = (heading for heading in self.headings if _PROCEDURAL_HEADING.search(heading))
        count, complete = 0, True
        for _ in matches:
            count += 1
            if count >= threshold:
                complete = False
                break
        self._counts[name] = (count, complete)
        return count >= threshold


def _count_word_chars(text: str) -> int:
    """`len(re.sub(r"[\\W_]+", "", text))`: the alphanumeric characters of `text`, counted at C speed."""
    if text.isascii():
        return len(text.encode("ascii").translate(None, _ASCII_NON_ALNUM))
    raw = text.encode("utf-8", "surrogatepass")
    ascii_alnum = len(raw.translate(None, _NON_ASCII_ALNUM_BYTES))
    # the other characters, decoded from their (multi-byte) UTF-8 sequences
    others = raw.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
    return ascii_alnum + sum(map(str.isalnum, others))


_ASCII_BYTES = bytes(range(128))
_ASCII_NON_ALNUM = bytes(byte for byte in range(128) if not chr(byte).isalnum())
_NON_ASCII_ALNUM_BYTES = _ASCII_NON_ALNUM + bytes(range(128, 256))


_Fence = tuple[int, int, str, str]
"""A fenced block: start, end, language and content (`_FENCE`'s span and groups 2 and 3)."""


def _iter_fences(body: str) -> Iterator[_Fence]:
    """The blocks of `_FENCE.finditer(body)`, found from the fence markers with `str.find`."""
    if "```" not in body and "~~~" not in body:
        return
    end = 0
    # found as far as the caller goes: most ask only whether there is a command block
    for start in heapq.merge(_marker_lines(body, "```"), _marker_lines(body, "~~~")):
        if start < end:
            continue
        fence = _fence_at(body, start)
        if fence is not None:
            end = fence[1]
            yield fence


def _marker_lines(body: str, marker: str) -> Iterator[int]:
    """The starts of the lines where `marker` comes after nothing but spaces and tabs, in order (a line
    has one: a second marker on it comes after the first)."""
    at = body.find(marker)
    while at != -1:
        line_start = body.rfind("\n", 0, at) + 1
        if not body[line_start:at].strip(" \t"):
            yield line_start
        at = body.find(marker, at + 3)


def _fence_at(body: str, start: int) -> _Fence | None:
    """`_FENCE.match(body, start)` for a line start: the opening line, then the content up to the
    first line that is the same marker alone (between spaces and tabs), or up to the end."""
    opening = _FENCE_OPENING.match(body, start)
    if opening is None:
        return None
    marker, lang = opening.group(1), opening.group(2)
    content_start = at = opening.end()
    while (at := body.find(marker, at)) != -1:
        line_start = body.rfind("\n", 0, at) + 1
        line_end = body.find("\n", at)
        line_end = len(body) if line_end == -1 else line_end
        if not body[line_start:at].strip(" \t") and not body[at + 3 : line_end].strip(" \t"):
            return start, line_end, lang, body[content_start:line_start]
        at += 1
    return start, len(body), lang, body[content_start:]


def _placeholders(body: str) -> tuple[str, ...]:
    return _distinct(_PLACEHOLDER_MARKS.finditer(body)) + _cues(_PLACEHOLDER, _PLACEHOLDER_NEEDLES, lower_text(body))


def _cues(pattern: re.Pattern[str], needles: tuple[str, ...], text: str) -> tuple[str, ...]:
    """Distinct matches of `pattern`, searched only when one of its needles is in `text` (cheap)."""
    if not any(map(text.__contains__, needles)):
        return ()
    return _distinct(pattern.finditer(text))


def _distinct(matches: Iterable[re.Match[str]], limit: int = 8) -> tuple[str, ...]:
    return tuple(dict.fromkeys(match.group().lower() for match in matches))[:limit]


def _is_command_block(lang: str, content: str) -> bool:
    """Code or commands, as opposed to prompts, sample dialogue, formulas or program output."""
    if lang in _CODE_LANGS:
        return True
    lines = "\n" + content  # each line, the first included, after a newline
    if _COMMAND_LINE.search(lines) or _CODE_KEYWORDS.search(lines) or _FLAGGED_LINE.search(lines):
        return True
    # the same lower-case program starting several lines: `tool search …`, `tool show …`
    programs = [line.split(None, 1)[0] for line in content.splitlines() if _PROGRAM_LINE.match(line)]
    return len(programs) >= 2 and len(set(programs)) < len(programs)


def _looks_like_code(body: str) -> bool:
    """A source file saved as SKILL.md: starts like code, mostly code lines, no Markdown structure."""
    head = body[:8_000]
    if not _CODE_FILE_START.match(head) or "```" in head:
        return False
    lines = [line for line in head.splitlines() if line.strip()]
    if len(lines) < 5:
        return False
    code_lines = len(_CODE_LINE.findall(head))
    markdown_lines = len(_MARKDOWN_STRUCTURE.findall(head))
    return code_lines >= 0.4 * len(lines) and markdown_lines <= 0.1 * len(lines)


def has_procedure(profile: BodyProfile, record: SkillRecord) -> bool:
    """Steps, commands, code or scripts: something an agent can actually do."""
    return (
        profile.command_blocks >= 1
        or _has_scripts(record)
        or profile.numbered_steps >= 3
        or profile.inline_commands >= 2
        or profile.imperative_items >= 4
        or (profile.procedural_headings >= 1 and profile.numbered_steps >= 1)
        or profile.procedural_headings >= 3
    )


def _has_procedure(view: _Body, record: SkillRecord) -> bool:
    """`has_procedure` on a lazy view: the same tests in the same order, each computed on demand."""
    return (
        view.has_command_block
        or _has_scripts(record)
        or view.at_least("numbered_steps", 3)
        or view.at_least("inline_commands", 2)
        or view.at_least("imperative_items", 4)
        or (view.at_least("procedural_headings", 1) and view.at_least("numbered_steps", 1))
        or view.at_least("procedural_headings", 3)
    )


def judge_practical(record: SkillRecord) -> Verdict:
    """Judge practical value: a real, clear workflow rather than a stub, code dump, persona or advert."""
    if record.status == SkillStatus.unreadable:
        return _verdict(Outcome.fail, [f"unreadable:{_slug(record.reason) or 'skill-md'}"], [])
    reasons, evidence = _format_problems(record)
    view = _view(record)
    content_reasons, content_evidence = _content_problems(record, view)
    reasons += content_reasons
    evidence += content_evidence
    if reasons:
        return _verdict(Outcome.fail, reasons, evidence)
    if not _has_procedure(view, record):
        detail = f"{view.word_chars} word characters, no steps, commands or scripts"
        return _verdict(Outcome.undecided, ["workflow:unclear"], [f"{record.skill_md_file}: {detail}"])
    return _verdict(Outcome.pass_, [], [])


_SCRIPT_PATH = re.compile(literal_first(r"\b(?:scripts?|bin|tools|src)/[\w./-]+\.(?:py|sh|js|mjs|ts|rb|go|pl|r|jl)\b"))
_SCRIPT_SLASH = re.compile(
    r"/(?:(?<=\bscripts/)|(?<=\bscript/)|(?<=\bbin/)|(?<=\btools/)|(?<=\bsrc/))[\w./-]+\.(?:py|sh|js|mjs|ts|rb|go|pl|r|jl)\b"
)
"""`_SCRIPT_PATH` from its slash (a literal found at C speed): the slash of its first match."""
_INPUT_SUFFIX = re.compile(
    r"\.(?:csv|tsv|json|jsonl|xlsx|xls|docx|pptx|pdf|txt|md|html|xml|yaml|yml|log|sqlite|db|png|jpe?g|svg|wav|mp3"
    r"|mp4|ics|parquet|ipynb|tex|bib)\b",
    re.IGNORECASE,
)
_PATH_RUN = re.compile(r"[\w./-]*")
EVIDENCE_SCAN_CHARS = 8_000
"""Pass evidence is looked for in the opening of the body."""


def procedure_evidence(record: SkillRecord, view: _Body | None = None) -> list[str]:
    """Why a skill passes as practical, as `file:line: excerpt` lines: the first command block, the
    scripts it runs, its first step and the local files it works on."""
    where = record.skill_md_file
    view = view or _view(record)
    body = view.body
    # the body is the end of SKILL.md (line ends normalized, which keeps the count of newlines): the
    # lines before it are those of the text less those of the body
    lines_before = (record.skill_md_text or "").count("\n") - body.count("\n")
    found: list[str] = []
    block = view.first_command_block
    if block is not None:
        start, _, lang, content = block
        first = next((line.strip() for line in content.splitlines() if line.strip()), "")
        line = lines_before + body.count("\n", 0, start) + 2
        found.append(f"{where}:{line}: {lang or 'code'} block: {first[:120]} (command block)")
    head = body[:EVIDENCE_SCAN_CHARS]  # what a procedure does shows early
    script = _first_script(head)
    if script:
        line = lines_before + body.count("\n", 0, script.start()) + 1
        found.append(f"{where}:{line}: {_line_at(body, script.start())[:140]} (runs {script.group()})")
    elif _has_scripts(record):
        found.append(f"{where}: scripts in {', '.join(lang for lang in record.languages if lang in SCRIPT_LANGUAGES)}")
    step = first_step_line(head)
    if step:
        line = lines_before + body.count("\n", 0, step[0]) + 1
        found.append(f"{where}:{line}: {' '.join(step[1].split())[:140]} (first step)")
    inputs = _local_files(head)
    if inputs:
        found.append(f"{where}: local files: {', '.join(inputs)}")
    return found or [f"{where}: a procedure: steps, commands or scripts"]


def _first_script(text: str) -> re.Match[str] | None:
    """`_SCRIPT_PATH.search(text)`, started at the folder name before the slash of its first match
    (`_SCRIPT_SLASH`): the name ends at that slash and is at most "scripts" long."""
    slash = _SCRIPT_SLASH.search(text)
    return _SCRIPT_PATH.search(text, max(slash.start() - len("scripts"), 0)) if slash else None


def _local_files(text: str, limit: int = 5) -> list[str]:
    """File names (with a data or document suffix) that `text` names, in order, SKILL.md left out."""
    found: dict[str, None] = {}
    for match in _INPUT_SUFFIX.finditer(text):
        # the path characters right before the suffix, within 80 characters, read backwards
        run = _PATH_RUN.match(text[max(0, match.start() - 80) : match.start()][::-1])
        stem = run.group()[::-1] if run else ""
        if not stem or stem.endswith((".", "/")) or stem.startswith("."):
            continue
        name = stem + match.group()
        if not name.lower().endswith("skill.md"):
            found[name] = None
            if len(found) >= limit:
                break
    return list(found)


def _line_at(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return " ".join(text[start : len(text) if end == -1 else end].split())


def _view(record: SkillRecord) -> _Body:
    """The lazy measures of the record's body, remembered for the last record (its pass evidence asks again)."""
    body, subject = skill_body(record), skill_subject(record)
    cached = _VIEW_MEMO[0]
    if cached is not None and cached.body is body and cached.subject is subject:
        return cached
    view = _VIEW_MEMO[0] = _Body(body, subject)
    return view


_VIEW_MEMO: list[_Body | None] = [None]


def _format_problems(record: SkillRecord) -> tuple[list[str], list[str]]:
    reasons: list[str] = []
    evidence: list[str] = []
    if record.status == SkillStatus.no_frontmatter:
        reasons.append("format:no-frontmatter")
        evidence.append(f"{record.skill_md_file}:1: {_first_line(record.skill_md_text)}")
    elif record.status == SkillStatus.frontmatter_error:
        reasons.append("format:frontmatter-error")
        evidence.append(f"{record.skill_md_file}: {record.reason or 'frontmatter is not a YAML mapping'}"[:240])
    else:
        if _name(record) is None:
            reasons.append("format:missing-name")
        if _description(record) is None:
            reasons.append("format:missing-description")
        if "format:missing-name" in reasons or "format:missing-description" in reasons:
            keys = ", ".join(sorted(str(key) for key in record.frontmatter)[:8]) or "none"
            evidence.append(f"{record.skill_md_file}: frontmatter keys: {keys}")
    size = record.skill_md_size or len((record.skill_md_text or "").encode("utf-8", "replace"))
    if size > SKILL_MD_MAX_BYTES:
        reasons.append("format:skillmd-too-large")
        evidence.append(f"{record.skill_md_file}: {size} bytes (limit {SKILL_MD_MAX_BYTES})")
    return reasons, evidence


def _content_problems(record: SkillRecord, view: _Body) -> tuple[list[str], list[str]]:
    where = record.skill_md_file
    word_count = view.word_chars
    short = word_count < SHORT_BODY_WORD_CHARS
    if word_count < MIN_BODY_WORD_CHARS:
        return ["stub:near-empty"], [f"{where}: {word_count} word characters in the body"]
    if short and view.placeholder_cues:
        return ["stub:placeholder"], [f"{where}: " + "; ".join(view.placeholder_cues)]
    if short and _is_test_skill(record):
        return ["stub:test-skill"], [f"{where}: name {_name(record) or record.path!r}"]
    if view.looks_like_code:
        return ["code:skillmd-is-code"], [f"{where}:1: {_first_line(skill_body(record))}"]
    # scripts count when the body shows how to run them; a script nobody runs is a demo
    doing = view.has_command_block or (_has_scripts(record) and view.at_least("inline_commands", 1))
    subject, subject_lower = view.subject, view.subject_lower
    subject_persona = _cues(_PERSONA_STRONG, _PERSONA_STRONG_NEEDLES, subject_lower)
    if subject_persona and view.command_blocks <= PERSONA_MAX_BLOCKS:
        # the skill says what it is: a character or a game to play; sample blocks are not a workflow
        return ["persona:no-workflow"], [f"{SUBJECT}: " + "; ".join(subject_persona[:4])]
    prose = _PROSE_DELIVERABLE.search(subject) if mentions_any(subject, subject_lower, _PROSE_NEEDLES) else None
    if prose and view.command_blocks <= PROSE_MAX_BLOCKS and not _ACCURATE_OUTPUT.search(view.subject):
        # persuasive or personal writing: judged by taste, and a demo block does not change that
        return ["advice:prose-deliverable"], [f"{SUBJECT}: {_around(view.subject, prose)}"]
    if not doing:
        # a persona that also never touches a file is pure conversation: nothing to execute or check
        talking_only = view.artifacts == 0
        strong, total = len(view.strong_cues), len(view.persona_cues)
        if (strong and (talking_only or total >= 2)) or total - strong >= 3:
            return ["persona:no-workflow"], [f"{where}: " + "; ".join(view.persona_cues[:4])]
    agent_process = (
        _AGENT_PROCESS.search(subject) if mentions_any(subject, subject_lower, _AGENT_PROCESS_NEEDLES) else None
    )
    if agent_process and view.command_blocks <= AGENT_PROCESS_MAX_BLOCKS:
        match = agent_process
        return ["advice:agent-process"], [f"{SUBJECT}: {_around(view.subject, match)}"]
    # with a command block, inline commands or scripts there is something to execute
    if doing or view.at_least("inline_commands", 2):
        return [], []
    if _has_procedure(view, record):
        # steps, but in prose only: a checklist or advice, nothing to run and nothing it produces to check
        return ["advice:no-executable-step"], [_first_step(record, view.body)]
    if view.marketing_cues >= 5:
        return ["marketing:no-workflow"], [f"{where}: {view.marketing_cues} promotional phrases, no procedure"]
    if word_count < NO_WORKFLOW_STUB_WORD_CHARS and view.code_blocks <= 1:
        return ["stub:no-workflow"], [f"{where}: {word_count} word characters, no steps or commands"]
    return [], []


def _around(text: str, match: re.Match[str]) -> str:
    return " ".join(text[max(0, match.start() - 60) : match.end() + 60].split())


def _first_step(record: SkillRecord, body: str) -> str:
    """`SKILL.md:<line>: <the first list item or numbered step>`, the evidence of a prose-only procedure."""
    where = record.skill_md_file
    step = first_step_line(body)
    if step is None:
        return f"{where}: steps in prose, no command, code block or script"
    text = (record.skill_md_text or "").replace("\r\n", "\n")
    offset = text.find(body[:200]) if body else 0
    line = text.count("\n", 0, max(offset, 0)) + 1
    line += body.count("\n", 0, step[0])
    return f"{where}:{line}: {' '.join(step[1].split())[:160]} (no command, code block or script)"


def _has_scripts(record: SkillRecord) -> bool:
    return any(language in SCRIPT_LANGUAGES for language in record.languages)


def _is_test_skill(record: SkillRecord) -> bool:
    name = _name(record) or record.path.rsplit("/", 1)[-1]
    return bool(_TEST_NAME.search(name))


def _first_line(text: str | None) -> str:
    for line in (text or "").splitlines():
        if line.strip():
            return " ".join(line.split())[:160]
    return ""


def _slug(text: str | None) -> str:
    return re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")[:60]


def _verdict(outcome: Outcome, reasons: list[str], evidence: list[str]) -> Verdict:
    return Verdict(criterion=Criterion.practical, outcome=outcome, reasons=reasons, evidence=evidence)

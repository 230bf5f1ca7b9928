"""The fast paths of the curation rules give the results of the plain regexes they replace."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from skill2env.catalog.signals import SUBJECT_PATH, scan_text
from skill2env.curation import compatibility, domains, feasibility, practical
from skill2env.curation.practical import profile_body, skill_body, skill_subject

from .conftest import RecordFactory

# the regexes as first written, which the fast paths must agree with
FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
PLACEHOLDER = re.compile(
    r"\blorem\s+ipsum\b|\bcoming\s+soon\b|\bplaceholder\b|\bnothing\s+here\b"
    r"|\b(?:your|a)\s+skill\s+description\s+here\b|\[(?:add|insert|describe|your)\b[^\]\n]{0,60}\]"
    r"|\breplace\s+(?:this|me)\b|\binsert\s+[\w\s]{0,30}\s+here\b|\bhello,?\s+world\b|^[ \t]*test[ \t]*$",
    re.MULTILINE,
)

BODIES = [
    "",
    "plain text, no code",
    "```bash\nls -la\n```\nafter",
    "  ```\nunclosed fence\nstill code",
    "~~~ python\nx = 1\n~~~\n```\n````\nnot closed by four\n```\n",
    "text ```inline``` text\n```js\nconsole.log(1)\n   ```   \nrest",
    "# Title\n\n## Steps ##\n\n#  \n####### too deep\n#\tTabbed # \n# #\n",
    "1. one\n2. two\nstep 3: three\n第四步 four\n- use it\n* run it\n`ls -la` and `git status`",
    "café naïve 日本語 ① ² _under_score_ 😀 ſ İ",
]


@pytest.mark.parametrize("body", BODIES)
def test_body_views_match_the_plain_regexes(body: str) -> None:
    expected = [(m.start(), m.end(), m.group(2), m.group(3)) for m in FENCE.finditer(body)]
    assert list(practical._iter_fences(body)) == expected
    view = practical._Body(body, "")
    assert view.without_code == FENCE.sub("", body)
    assert view.word_chars == len(re.sub(r"[\W_]+", "", body))
    assert [m.group(1) for m in practical._HEADING.finditer(body)] == HEADING.findall(body)
    profile = profile_body(body)
    for name, threshold in (("numbered_steps", 3), ("numbered_steps", 1), ("inline_commands", 2)):
        assert practical._Body(body, "").at_least(name, threshold) == (getattr(profile, name) >= threshold)
    assert view.has_command_block == (profile.command_blocks >= 1)


def test_body_and_subject_follow_the_record(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    first = make_record(make_skill("one", "First skill.", "# One\n\nBody one."))
    second = make_record(make_skill("two", "Second skill.", "# Two\n\nBody two."))
    assert skill_body(first).strip() == "# One\n\nBody one."
    assert skill_body(second).strip() == "# Two\n\nBody two."
    assert skill_subject(first).splitlines()[:2] == ["one", "First skill."]
    assert skill_subject(second).splitlines()[:2] == ["two", "Second skill."]
    second.name = "renamed"
    assert skill_subject(second).splitlines()[0] == "renamed"
    second.skill_md_text = make_skill("two", "Second skill.", "# Other\n\nNew body.")
    assert skill_body(second).strip() == "# Other\n\nNew body."


@pytest.mark.parametrize(
    "text",
    ["C#.NET developer tools", "c# and .net", "Python data-analysis, machine learning with PyTorch", "Abfuhr Termine"],
)
def test_keyword_scores_match_the_lookbehind_pattern(text: str) -> None:
    scores = [0.0] * len(domains.DOMAINS)
    domains._score_text(scores, text, 1.0)
    normalized = " ".join(text.lower().replace("_", "-").split())
    words = {whole or prefix for whole, prefix in domains._KEYWORDS.findall(normalized)}
    expected = {index for word in words for index in domains._OWNERS.get(word, ())}
    expected |= {index for term, index in domains._CJK if term in text}
    assert {index for index, score in enumerate(scores) if score} == expected


# Texts for the prefilters and fast searches below: cased, with the characters a case-insensitive
# regex takes for ASCII letters (ſ, K, İ), URLs, pipes and steps at the first line and later.
TEXTS = [
    "",
    "- first step\nmore",
    "intro\n  3) run the tool\n* second",
    "no steps here, just prose",
    "Write blog posts and ESSAYS for clients",
    "Compoſe a cover letter",
    "Dispatch SUB-AGENTS for independent tasks before claiming completion",
    "Runs inside Docker; (via docker) on Windows 11 with PowerShell",
    "Runs in DOCKER.",
    "API key is optional | no | if you have one, set TFL_APP_KEY (fallback: rate limits apply)",
    "OPTIONALLY set the key; İf you have one",
    "NOT REQUIRED: an api key. Higher rate limits with a token.",
    "see https://example.com/x and GitHub.com/org/repo, wss://feed and HTTP://A.B",
    "openclaw sessions list\n`openclaw cron add` then openclaw gateway websocket and sessions_send",
    "OpenClaw gateway websocket; $ clawdbot message send; moltbot nodes",
    "scripts/run.py and bin/tool.sh, subscripts/x.py, ./tools/a/b.ts and src/main.go",
    "no key needed, keyless; without an API key required; fully open",
    "Kelvin K and long ſ: ſcripts/x.py",
    "test\n  test  \n\ttest\nx test\ntests\n \t test\t\ntest",
    "TODO: [add a description] lorem ipsum, coming soon; replace me, insert your text here. Hello, world",
    "a skill description here\nnothing here\nyour   skill description here; FIXME TBD todo xTODO",
]


@pytest.mark.parametrize("text", TEXTS)
def test_fast_searches_match_the_plain_regexes(text: str) -> None:
    step = practical._STEP_LINE.search(text)
    assert practical.first_step_line(text) == ((step.start(), step.group()) if step else None)
    script = practical._SCRIPT_PATH.search(text)
    fast = practical._first_script(text)
    assert (fast.span() if fast else None) == (script.span() if script else None)
    operations = feasibility._finditer_from_starts(
        feasibility._HARNESS_OPERATION, text, feasibility._HARNESS_OPERATION_STARTS, text.lower()
    )
    assert [m.span() for m in operations] == [m.span() for m in feasibility._HARNESS_OPERATION.finditer(text)]
    assert feasibility._says_optional(text) == bool(feasibility._OPTIONAL_LINE.search(text))
    assert feasibility._without_urls(text) == feasibility._URL.sub(" ", text)
    assert practical._local_files(text) == local_files(text)
    for sample in (text, text.lower()):
        found = [(m.span(), m.group()) for m in practical._PLACEHOLDER.finditer(sample)]
        assert found == [(m.span(), m.group()) for m in PLACEHOLDER.finditer(sample)]
    assert practical._PLACEHOLDER_MARKS.findall(text) == re.findall(r"\b(?:TODO|TBD|FIXME)\b", text)


@pytest.mark.parametrize("text", TEXTS)
def test_needles_hold_every_match(text: str) -> None:
    lower = text.lower()
    pairs = [
        (practical._PROSE_DELIVERABLE, practical._PROSE_NEEDLES),
        (practical._AGENT_PROCESS, practical._AGENT_PROCESS_NEEDLES),
        (feasibility._KEYS_OPTIONAL, feasibility._KEYS_OPTIONAL_WORDS),
        *(
            (compatibility._SUBJECT_PLATFORM[need], needles)
            for need, needles in compatibility._SUBJECT_PLATFORM_NEEDLES.items()
        ),
    ]
    for pattern, needles in pairs:
        assert not pattern.search(text) or practical.mentions_any(text, lower, needles), pattern.pattern
    if feasibility._HARNESS_OPERATION.search(text) or feasibility._HARNESS_SUBJECT.search(text):
        assert any(needle in lower for needle in feasibility._HARNESS_NEEDLES)


def local_files(text: str, limit: int = 5) -> list[str]:
    """`practical._local_files` as first written: the path before each suffix split off a window."""
    found: dict[str, None] = {}
    for match in practical._INPUT_SUFFIX.finditer(text):
        stem = re.split(r"[^\w./-]+", text[max(0, match.start() - 80) : match.start()])[-1]
        if not stem or stem.endswith((".", "/")) or stem.startswith("."):
            continue
        name = stem + match.group()
        if not name.lower().endswith("skill.md"):
            found[name] = None
            if len(found) >= limit:
                break
    return list(found)


@pytest.mark.parametrize(
    "text",
    [
        "Read data/in.csv, `out/report.PDF` and ./x.json; skip SKILL.md and .env.json or dir/.json",
        "a" * 100 + ".csv and é-ü/ß.TXT, x.md y.md z.md w.md v.md u.md",
        ".csv at the start",
    ],
)
def test_local_files_read_the_path_before_each_suffix(text: str) -> None:
    assert practical._local_files(text) == local_files(text)
    assert "skill.md" not in " ".join(practical._local_files(text)).lower()


def test_subject_signals_are_the_subject_scan(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    record = make_record(make_skill("mac-notes", "Manage Apple Notes on macOS with your iCloud account.", "Body."))
    subject = skill_subject(record)
    assert practical.subject_signals(subject) == tuple(scan_text(SUBJECT_PATH, subject))
    assert practical.subject_signals(subject) is practical.subject_signals(subject)

"""The fast paths of the curation rules give the results of the plain regexes they replace."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from skill2env.curation import domains, practical
from skill2env.curation.practical import profile_body, skill_body, skill_subject

from .conftest import RecordFactory

# the regexes as first written, which the fast paths must agree with
FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)

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

"""One prompt and one reading of the reply for the judge, host and verifier alike: the host's
structured-output parsing with its `JudgeAnswer` accepts exactly the replies `parse_reply` accepts,
with the same verdict."""

from __future__ import annotations

import json

import pytest

from skill2env.llm.structured import parse_answer
from skill2env.rubric import judge, judge_prompt
from skill2env.rubric.judge import JudgeAnswer
from skill2env.rubric.judge_prompt import JudgeReplyError, parse_reply

GOOD = {"score": 0.5, "reasoning": "ok", "evidence": [{"path": "a.md", "quote": "x"}]}
REPLIES = {
    "plain": json.dumps(GOOD),
    "integer_score": json.dumps({**GOOD, "score": 1}),
    "fenced": "Here it is:\n```json\n" + json.dumps(GOOD) + "\n```\n",
    "prose_around": "My verdict: " + json.dumps({**GOOD, "score": 0}) + " — done.",
    "no_evidence": json.dumps({**GOOD, "evidence": []}),
    "quote_with_extra_key": json.dumps({**GOOD, "evidence": [{"path": "a.md", "quote": "x", "line": 3}]}),
    "empty": "   ",
    "prose": "It is fine.",
    "array": "[1, 2]",
    "score_too_high": json.dumps({**GOOD, "score": 1.5}),
    "score_negative": json.dumps({**GOOD, "score": -0.1}),
    "score_bool": json.dumps({**GOOD, "score": True}),
    "score_string": json.dumps({**GOOD, "score": "0.5"}),
    "score_null": json.dumps({**GOOD, "score": None}),
    "score_nan": '{"score": NaN, "reasoning": "", "evidence": []}',
    "extra_field": json.dumps({**GOOD, "verdict": "good"}),
    "no_reasoning": json.dumps({"score": 0.5, "evidence": []}),
    "reasoning_not_text": json.dumps({**GOOD, "reasoning": 3}),
    "evidence_not_list": json.dumps({**GOOD, "evidence": "x"}),
    "quote_without_path": json.dumps({**GOOD, "evidence": [{"quote": "x"}]}),
}
ACCEPTED = {"plain", "integer_score", "fenced", "prose_around", "no_evidence", "quote_with_extra_key"}


@pytest.mark.parametrize("name", sorted(REPLIES))
def test_the_host_and_the_verifier_read_a_reply_alike(name: str) -> None:
    reply = REPLIES[name]
    host, problems = parse_answer(reply, JudgeAnswer)
    try:
        verdict = parse_reply(reply)
    except JudgeReplyError:
        verdict = None

    assert (verdict is not None) == (name in ACCEPTED)
    assert (host is not None) == (name in ACCEPTED), problems
    if host is not None:
        assert host.model_dump() == verdict


def test_a_host_repair_message_says_what_is_wrong() -> None:
    _, problems = parse_answer(REPLIES["score_too_high"], JudgeAnswer)

    assert any("score must be a number between 0 and 1, not 1.5" in p for p in problems)


def test_the_host_judge_uses_the_shared_prompt_and_limits() -> None:
    assert judge.JUDGE_SYSTEM is judge_prompt.JUDGE_SYSTEM
    assert (judge.MAX_QUOTE_CHARS, judge.MAX_REASONING_CHARS) == (
        judge_prompt.MAX_QUOTE_CHARS,
        judge_prompt.MAX_REASONING_CHARS,
    )
    assert judge.DEFAULT_SEED == judge_prompt.JUDGE_SEED


def test_a_quote_is_found_in_its_file_or_any_file_when_the_name_matches_none() -> None:
    files = [{"path": "a.md", "text": "The Top\n  region"}, {"path": "b.md", "text": "other"}]

    assert judge_prompt.quote_found("./a.md", "the top region", files)
    assert not judge_prompt.quote_found("b.md", "the top region", files)
    assert judge_prompt.quote_found("nowhere.md", "OTHER", files)
    assert not judge_prompt.quote_found("a.md", "  ", files)

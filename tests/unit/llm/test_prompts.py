"""Prompt templates: rendering into messages, ids and content hashes."""

from __future__ import annotations

import hashlib

import jinja2
import pytest

from skill2env.llm.prompts import PROMPTS_DIR, Prompt, PromptNotFoundError, render, template_ids, template_version

UNDECIDED = [{"criterion": "practical", "reasons": ["workflow:unclear"], "evidence": ["SKILL.md: 900 word characters"]}]


def test_the_curator_template_renders_a_system_and_a_user_message() -> None:
    prompt = render("curator_settle", name="csv-report", description="Summarise CSVs", skill_md="# CSV\nbody",
                    truncated=False, undecided=UNDECIDED)  # fmt: skip

    system, user = prompt.messages
    assert system["role"] == "system" and "pass" in system["content"] and "practical" in system["content"]
    assert user["role"] == "user"
    assert "Skill: csv-report" in user["content"]
    assert "- practical: rules said undecided (workflow:unclear)" in user["content"]
    assert "evidence: SKILL.md: 900 word characters" in user["content"]
    assert "<skill_md>\n# CSV\nbody\n</skill_md>" in user["content"]
    assert prompt.template_id == "curator_settle"


def test_the_version_is_the_hash_of_the_template_source() -> None:
    source = (PROMPTS_DIR / "curator_settle.j2").read_bytes()
    assert template_version("curator_settle") == hashlib.sha256(source).hexdigest()[:16]
    assert "curator_settle" in template_ids()


def test_the_prompt_hash_follows_the_messages() -> None:
    a = Prompt.of("hello")
    assert a.prompt_hash == Prompt.of([{"role": "user", "content": "hello"}]).prompt_hash
    assert a.prompt_hash != Prompt.of("hello!").prompt_hash
    extended = a.extended([{"role": "assistant", "content": "hi"}])
    assert len(extended.messages) == 2 and extended.prompt_hash != a.prompt_hash


def test_a_missing_variable_fails_loudly() -> None:
    with pytest.raises(jinja2.UndefinedError):
        render("curator_settle", name="x")


def test_an_unknown_template() -> None:
    with pytest.raises(PromptNotFoundError, match="no prompt template 'nope'"):
        render("nope")

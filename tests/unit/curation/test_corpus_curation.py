"""Curation of real skills from the development corpus (skipped when the corpus is absent).

The corpus README lists deliberately odd cases; these tests pin down that they are rejected,
and for the right reasons, and that typical good skills from curated repositories pass.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from skill2env.catalog.models import SkillRecord
from skill2env.curation.curate import curate_skill
from skill2env.curation.domains import domain_slugs
from skill2env.curation.models import CurationRecord

LoadSkill = Callable[[str], SkillRecord]

OC = "openclaw-skills/"
# Every odd:* case of the README except the non-English ones and the nested-skills pack, which
# are judged on content.
ODD_CASES = [
    "baanish--pihole",
    "801c07--molt-trader-skill",
    "cmanfre7--test-runner",
    "ruhrpotter--oura",
    "aly-joseph--jarvis-skills",
    "nsampre--hevycli",
    "buddyh--todoist-cli",
    "kimoamer--respectful-responses-female",
    "theishangoswami--web-search-exa",
    "steipete--discord",
    "cnyezi--a-stock-analysis",
    "tristanmanchester--ios-simulator",
    "thesethrose--therapy-mode",
    "gumadeiras--parcel-package-tracking",
    "rdosec--tmux-2",
    "trungtin--tin-test",
    "pntrivedy--lancedb-memory",
    "hhhh124hhhh--ai-music-prompts",
    "demandgap--stock-evaluator",
    "steipete--peekaboo",
    "steipete--imsg",
    "tyler6204--apple-photos",
    "steipete--openhue",
    "steipete--camsnap",
    "falderebet--dirigera-control",
    "dhvanilpatel--printer",
    "steipete--eightctl",
    "0xterrybit--binance",
    "fobonacci404--evilcalc",
]


def curate(load: LoadSkill, path: str) -> CurationRecord:
    return curate_skill(load(path))


@pytest.mark.parametrize("name", ODD_CASES)
def test_odd_cases_are_rejected(load_corpus_skill: LoadSkill, name: str) -> None:
    result = curate(load_corpus_skill, OC + name)
    assert result.curated is False
    assert result.reasons


def test_evilcalc_is_malicious(load_corpus_skill: LoadSkill) -> None:
    result = curate(load_corpus_skill, OC + "fobonacci404--evilcalc")
    assert "malicious:hidden-backdoor" in result.reasons
    assert any("pwned" in line or "后门" in line for line in result.safe.evidence)


@pytest.mark.parametrize(
    "name", ["steipete--peekaboo", "steipete--imsg", "tyler6204--apple-photos", "dhvanilpatel--printer"]
)
def test_macos_skills_need_macos(load_corpus_skill: LoadSkill, name: str) -> None:
    assert "needs:macos" in curate(load_corpus_skill, OC + name).reasons


@pytest.mark.parametrize(
    "name",
    [
        "steipete--openhue",
        "steipete--camsnap",
        "falderebet--dirigera-control",
        "dhvanilpatel--printer",
        "aly-joseph--jarvis-skills",
    ],
)
def test_hardware_skills_need_hardware(load_corpus_skill: LoadSkill, name: str) -> None:
    reasons = curate(load_corpus_skill, OC + name).reasons
    assert any(reason.startswith("needs:hardware") for reason in reasons), reasons


def test_eight_sleep_needs_its_account(load_corpus_skill: LoadSkill) -> None:
    reasons = curate(load_corpus_skill, OC + "steipete--eightctl").reasons
    assert any(reason.startswith(("needs:hardware", "needs:live-account")) for reason in reasons), reasons


def test_binance_needs_real_money_and_keys(load_corpus_skill: LoadSkill) -> None:
    reasons = curate(load_corpus_skill, OC + "0xterrybit--binance").reasons
    assert "needs:real-money" in reasons
    assert any(reason.startswith("needs:paid-api-key:BINANCE") for reason in reasons)


@pytest.mark.parametrize("name", ["rdosec--tmux-2", "trungtin--tin-test"])
def test_placeholders_are_stubs(load_corpus_skill: LoadSkill, name: str) -> None:
    reasons = curate(load_corpus_skill, OC + name).reasons
    assert any(reason.startswith("stub:") for reason in reasons), reasons


def test_python_module_skill_md_is_code(load_corpus_skill: LoadSkill) -> None:
    assert "code:skillmd-is-code" in curate(load_corpus_skill, OC + "pntrivedy--lancedb-memory").reasons


@pytest.mark.parametrize(
    "path",
    [
        "obra-superpowers/test-driven-development",
        "obra-superpowers/systematic-debugging",
        "anthropics-skills/webapp-testing",
        "anthropics-skills/mcp-builder",
        "k-dense-scientific-skills/exploratory-data-analysis",
        "k-dense-scientific-skills/vaex",
        "k-dense-scientific-skills/scanpy",
        "wshobson-agents/k8s-manifest-generator",
        "wshobson-agents/linkerd-patterns",
    ],
)
def test_good_skills_pass(load_corpus_skill: LoadSkill, path: str) -> None:
    result = curate(load_corpus_skill, path)
    assert result.curated is True, result.reasons


def test_whole_corpus_curates_without_errors(corpus: Path, load_corpus_skill: LoadSkill) -> None:
    folders = sorted(p for source in corpus.iterdir() if source.is_dir() for p in source.iterdir() if p.is_dir())
    results = [curate(load_corpus_skill, str(folder.relative_to(corpus))) for folder in folders]
    assert len(results) == 324
    assert all(not reason.startswith("error:") for result in results for reason in result.reasons)
    assert {result.domain for result in results} <= set(domain_slugs())
    rate = sum(result.curated for result in results) / len(results)
    # a loose guard against rules that suddenly pass or reject nearly everything
    assert 0.2 <= rate <= 0.7

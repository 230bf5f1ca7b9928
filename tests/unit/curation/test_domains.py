"""Tests for the domain taxonomy and classifier."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from skill2env.catalog.discover import discover_skills
from skill2env.catalog.models import SkillStatus
from skill2env.catalog.profile import profile_skill
from skill2env.curation.domains import DOMAINS, OTHER, classify_domain, domain_scores, domain_slugs
from skill2env.home import EXAMPLE_SKILLS

from .conftest import RecordFactory

REQUIRED = {
    "software-engineering", "devops-cloud", "data-analytics", "office-documents", "finance-markets",
    "scientific-computing", "media-processing", "agent-memory", "security", "ml-ai", "web-automation",
    "marketing-content", "design-ui", "business-ops", "communication", "productivity", "education",
    "health-fitness", "crypto-web3", "travel-local", "games-entertainment", "smart-home-iot", "databases",
    "research-writing", "other",
}  # fmt: skip


def test_taxonomy_has_the_required_slugs_and_valid_partition_keys() -> None:
    slugs = domain_slugs()
    assert set(slugs) >= REQUIRED
    assert len(slugs) == len(set(slugs))
    assert all(re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", slug) for slug in slugs)
    assert slugs[-1] == OTHER
    assert all(domain.title for domain in DOMAINS)


@pytest.mark.parametrize(
    ("name", "description", "domain"),
    [
        (
            "test-driven-development",
            "Write the failing test first, then the code, then refactor.",
            "software-engineering",
        ),
        ("k8s-manifest-generator", "Create Kubernetes manifests for deployments and services.", "devops-cloud"),
        ("exploratory-data-analysis", "Exploratory data analysis of datasets with pandas and plots.", "data-analytics"),
        ("postgresql", "Design PostgreSQL schemas, indexes and queries.", "databases"),
        ("pptx-builder", "Build PowerPoint slide decks from outlines.", "office-documents"),
        ("stock-evaluator", "Evaluate stocks with valuation and fundamental analysis.", "finance-markets"),
        ("scanpy", "Single-cell RNA-seq analysis: clustering and marker genes.", "scientific-computing"),
        ("video-trimmer", "Trim video and extract audio with ffmpeg.", "media-processing"),
        ("memory", "Long-term memory for agents: remember facts and recall them.", "agent-memory"),
        ("secret-scanner", "Find leaked secrets and vulnerabilities in a repository.", "security"),
        ("fine-tuning", "Fine-tune LLMs with LoRA and evaluate the model.", "ml-ai"),
        ("web-scraper", "Scrape web pages with Playwright and a headless browser.", "web-automation"),
        ("seo-writer", "SEO marketing copy and social media campaigns.", "marketing-content"),
        ("tailwind-design-system", "Design tokens, typography and color palettes with Tailwind CSS.", "design-ui"),
        ("gdpr-compliance", "GDPR compliance, policies and legal contracts for a startup.", "business-ops"),
        ("slack-notifier", "Send messages to Slack channels and Discord.", "communication"),
        ("todoist", "Manage tasks, reminders and the calendar.", "productivity"),
        ("japanese-tutor", "A language tutor for vocabulary and grammar lessons.", "education"),
        ("oura", "Sleep and workout data from the Oura ring.", "health-fitness"),
        ("solana-wallet", "Send USDC from a Solana wallet.", "crypto-web3"),
        ("weather", "Weather forecast and travel directions.", "travel-local"),
        ("dnd", "Dungeons & Dragons dice, monsters and a text adventure game.", "games-entertainment"),
        ("hue", "Control Philips Hue lights and the thermostat in a smart home.", "smart-home-iot"),
        ("paper-lookup", "Search arXiv and PubMed for research papers and citations.", "research-writing"),
        ("xyz", "Does a thing.", "other"),
    ],
)
def test_clear_cases(
    make_record: RecordFactory, make_skill: Callable[..., str], name: str, description: str, domain: str
) -> None:
    assert classify_domain(make_record(make_skill(name, description, "# Usage\n"))) == domain


def test_name_counts_more_than_headings(make_record: RecordFactory, make_skill: Callable[..., str]) -> None:
    body = "# Docker\n## Kubernetes\n## Helm\n"
    record = make_record(make_skill("postgresql", "Tune queries.", body))
    assert classify_domain(record) == "databases"


def test_skill_without_frontmatter_uses_its_opening(make_record: RecordFactory) -> None:
    record = make_record("# Pi-hole\n\nControl your Pi-hole DNS server and blocked domains over SSH.\n")
    assert classify_domain(record) == "devops-cloud"


def test_deterministic_and_scores_cover_every_domain(
    make_record: RecordFactory, make_skill: Callable[..., str]
) -> None:
    record = make_record(make_skill("scanpy", "Single-cell RNA-seq analysis.", "# Usage\n"))
    assert {classify_domain(record) for _ in range(5)} == {"scientific-computing"}
    assert set(domain_scores(record)) == set(domain_slugs())


def test_odd_records_get_other(make_record: RecordFactory) -> None:
    assert classify_domain(make_record("", status=SkillStatus.unreadable)) == OTHER
    assert classify_domain(make_record("---\nname: [1, 2]\ndescription: {a: b}\n---\n")) == OTHER


@pytest.mark.parametrize(
    ("skill", "domain"),
    [
        ("log-analysis", "devops-cloud"),
        ("archive-triage", "security"),
        ("csv-cleaning", "data-analytics"),
        ("sqlite-reporting", "databases"),
        ("config-audit", "software-engineering"),
    ],
)
def test_the_bundled_example_skills_land_in_their_domains(skill: str, domain: str) -> None:
    folder = next(f for f in discover_skills(EXAMPLE_SKILLS) if f.relpath == skill)
    assert profile_skill(folder).domain == domain

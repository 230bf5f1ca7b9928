"""Tests for criterion 3, deployment feasibility."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from skill2env.catalog.models import ClawHubMeta
from skill2env.curation.feasibility import classify_credential, judge_feasible
from skill2env.curation.models import Criterion, Outcome

from .conftest import RecordFactory

Skill = Callable[..., str]


def test_local_skill_passes(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\nsqlite3 tasks.db 'select * from tasks'\n```\n"
    verdict = judge_feasible(make_record(make_skill("tasks", "Track tasks in SQLite.", body)))
    assert verdict.criterion == Criterion.feasible
    assert verdict.outcome == Outcome.pass_


def test_required_env_from_clawhub_is_a_paid_key(make_record: RecordFactory, make_skill: Skill) -> None:
    record = make_record(
        make_skill("search", "Web search.", "Run `search.sh QUERY`.\n"),
        clawhub=ClawHubMeta(key="clawdbot", env=["TAVILY_API_KEY"]),
    )
    verdict = judge_feasible(record)
    assert verdict.reasons == ["needs:paid-api-key:TAVILY_API_KEY"]
    assert verdict.evidence == ["frontmatter: requires.env TAVILY_API_KEY"]


def test_exported_key_in_skill_md_is_required(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "## Setup\n\n```bash\nexport OPENROUTER_API_KEY=sk-or-...\n```\n"
    assert judge_feasible(make_record(make_skill("ask", "Ask models.", body))).reasons == [
        "needs:paid-api-key:OPENROUTER_API_KEY"
    ]


def test_optional_key_is_not_required(make_record: RecordFactory, make_skill: Skill) -> None:
    body = (
        "| Database | Key | Required |\n|---|---|---|\n| NCBI | `NCBI_API_KEY` | No (higher rate limits) |\n\n"
        "```bash\nexport NCBI_API_KEY=...\n```\n"
    )
    assert judge_feasible(make_record(make_skill("papers", "Find papers.", body))).outcome == Outcome.pass_


def test_single_mention_in_an_example_is_not_a_requirement(make_record: RecordFactory, make_skill: Skill) -> None:
    body = 'A skill can declare its keys:\n\n```json\n{"env": ["GOOGLE_PLACES_API_KEY"]}\n```\n'
    assert judge_feasible(make_record(make_skill("skill-writer", "Write skills.", body))).outcome == Outcome.pass_


def test_self_made_and_local_secrets_are_fine(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\nexport JWT_SECRET=$(openssl rand -hex 32)\nexport DATABASE_PASSWORD=postgres\n```\n"
    assert judge_feasible(make_record(make_skill("api", "Build an API.", body))).outcome == Outcome.pass_


def test_auth_header_to_a_remote_api_needs_a_key(make_record: RecordFactory, make_skill: Skill) -> None:
    body = '```bash\ncurl https://api.moltplatform.io/v1/posts -H "Authorization: Bearer YOUR_API_KEY"\n```\n'
    verdict = judge_feasible(make_record(make_skill("platform", "Post to the platform.", body)))
    assert verdict.reasons == ["needs:paid-api-key:unnamed"]


def test_auth_header_to_localhost_is_fine(make_record: RecordFactory, make_skill: Skill) -> None:
    body = '```bash\ncurl http://localhost:8000/items -H "Authorization: Bearer test-token"\n```\n'
    assert judge_feasible(make_record(make_skill("api", "Test the local API.", body))).outcome == Outcome.pass_


def test_personal_account_service_fails(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\ntodoist add 'Buy milk'\ntodoist tasks --all\n```\n"
    verdict = judge_feasible(make_record(make_skill("todoist", "Manage Todoist tasks and projects.", body)))
    assert verdict.reasons == ["needs:live-account:todoist"]


def test_service_mentioned_as_a_target_format_is_fine(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```python\nfrom PIL import Image\nframes[0].save('out.gif', save_all=True)\n```\n"
    record = make_record(make_skill("gif", "Create animated GIFs optimized for Slack.", body))
    assert judge_feasible(record).outcome == Outcome.pass_


def test_cli_login_is_a_live_account(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "1. Run `vault-cli login` with your email.\n2. Run `vault-cli get item`.\n"
    verdict = judge_feasible(make_record(make_skill("vault", "Read secrets.", body)))
    assert verdict.reasons == ["needs:live-account:unnamed"]


def test_trading_fails_as_real_money(make_record: RecordFactory, make_skill: Skill) -> None:
    body = (
        "## Trade\n\nPlace a market order on the spot and futures markets.\n\n"
        '```bash\ncurl -X POST "https://api.exchange.example/api/v3/order" -d "side=BUY&type=MARKET"\n```\n'
        "Keep the wallet private key safe.\n"
    )
    verdict = judge_feasible(make_record(make_skill("exchange", "Trade crypto on the exchange.", body)))
    assert "needs:real-money" in verdict.reasons


def test_paper_trading_is_not_real_money(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "Place a market order in the simulator and track positions.\n\nKeep your wallet seed phrase offline.\n"
    record = make_record(make_skill("paper", "Paper trading simulator for strategies.", body))
    assert "needs:real-money" not in judge_feasible(record).reasons


def test_hosted_mcp_server_is_an_external_service(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "## Setup\n\nConnect MCP server: `https://mcp.search.example/mcp`\n\nThen call `web_search`.\n"
    verdict = judge_feasible(make_record(make_skill("search", "Web search.", body)))
    assert verdict.reasons == ["needs:external-service:mcp.search.example"]


def test_cloud_account_is_an_external_service(make_record: RecordFactory, make_skill: Skill) -> None:
    body = "```bash\naws configure\naws s3 ls\n```\n"
    assert judge_feasible(make_record(make_skill("s3", "List buckets.", body))).reasons == [
        "needs:external-service:aws"
    ]


def test_keyless_public_api_needs_the_network(make_record: RecordFactory, make_skill: Skill) -> None:
    body = 'BASE_URL = "https://api.fiscaldata.treasury.gov/services/api"\n\nQuery the debt endpoint.\n'
    verdict = judge_feasible(make_record(make_skill("fiscal", "U.S. fiscal data.", body)))
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["needs:network:api.fiscaldata.treasury.gov"]


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("OPENAI_API_KEY", "paid-api-key"),
        ("NGROK_AUTHTOKEN", "paid-api-key"),
        ("SLACK_BOT_TOKEN", "live-account:slack"),
        ("GITHUB_TOKEN", "live-account:github"),
        ("SOLANA_PRIVATE_KEY", "real-money"),
        ("YOUR_API_KEY", None),
        ("API_KEY", None),
        ("JWT_SECRET", None),
        ("POSTGRES_PASSWORD", None),
        ("RADARR_API_KEY", None),
        ("STRIPE_WEBHOOK_SECRET", None),
    ],
)
def test_classify_credential(name: str, kind: str | None) -> None:
    assert classify_credential(name) == kind


def test_constants_named_like_keys_in_code_are_not_credentials(make_record: RecordFactory, make_skill: Skill) -> None:
    script = '"""Issues: DUPLICATE_KEY, UNEXPECTED_KEY."""\nDUPLICATE_KEY = "duplicate"\nUNEXPECTED_KEY = "extra"\n'
    record = make_record(make_skill("fixtures", "Check fixtures.", "Run `check.py`.\n"), files={"check.py": script})
    assert judge_feasible(record).outcome == Outcome.pass_


def test_a_key_read_from_the_environment_by_code_is_required(make_record: RecordFactory, make_skill: Skill) -> None:
    script = 'import os\nKEY = os.environ["WEATHERSTACK_API_KEY"]\n'
    record = make_record(
        make_skill("weather", "Weather lookups.", "Run `weather.py CITY`.\n"),
        files={"weather.py": script},
        env_vars=["WEATHERSTACK_API_KEY"],
    )
    assert judge_feasible(record).reasons == ["needs:paid-api-key:WEATHERSTACK_API_KEY"]


def test_keyless_live_api_needs_the_network(make_record: RecordFactory, make_skill: Skill) -> None:
    body = (
        '```bash\ncurl -s "https://api.citywaste.example-city.ch/calendar?zip=8003" | jq .\n'
        'curl -s "https://api.citywaste.example-city.ch/stations" | jq .\n```\n'
    )
    verdict = judge_feasible(make_record(make_skill("waste", "Waste collection dates for a city.", body)))
    assert verdict.outcome == Outcome.fail
    assert verdict.reasons == ["needs:network:api.citywaste.example-city.ch"]
    assert "SKILL.md:" in verdict.evidence[0]


@pytest.mark.parametrize(
    "description",
    [
        "Fetch comics - latest, random, or by number.",
        "Search 10 paper databases via their REST APIs to find preprints.",
        "Use the cars CLI to search autos.example.com listings and fetch details.",
    ],
)
def test_live_outside_data_needs_the_network(make_record: RecordFactory, make_skill: Skill, description: str) -> None:
    body = "```bash\nlookup --json\n```\n"
    verdict = judge_feasible(make_record(make_skill("lookup", description, body)))
    assert verdict.reasons == ["needs:network:live-data"]
    assert verdict.evidence[0].startswith("<subject>: ")


@pytest.mark.parametrize(
    "description",
    [
        "Query project databases with automatic SSH tunnel management.",
        "Design KPI dashboards with real-time monitoring patterns.",
        "Query headlines from a self-hosted RSS instance.",
        "Search your local notes for the latest entries, offline.",
    ],
)
def test_local_retrieval_is_not_live_data(make_record: RecordFactory, make_skill: Skill, description: str) -> None:
    body = "```bash\nlookup --json\n```\n"
    assert judge_feasible(make_record(make_skill("lookup", description, body))).outcome == Outcome.pass_


@pytest.mark.parametrize("statement", ["No external API key required.", "No API key needed.", "No keys needed."])
def test_a_statement_that_no_key_is_needed_may_qualify_the_key(
    make_record: RecordFactory, make_skill: Skill, statement: str
) -> None:
    setup = "Set the key:\n\n```bash\nexport OPENWEATHER_API_KEY=abc\n```\n"
    without = judge_feasible(make_record(make_skill("forecast", "Summarise saved forecasts.", setup)))
    assert "needs:paid-api-key:OPENWEATHER_API_KEY" in without.reasons
    said = judge_feasible(make_record(make_skill("forecast", "Summarise saved forecasts.", f"{statement}\n\n{setup}")))
    assert not any(reason.startswith("needs:paid-api-key") for reason in said.reasons)


@pytest.mark.parametrize(
    ("description", "needs_github"),
    [
        ("Manage GitHub issues and pull requests.", True),
        ("Manage local git branches and commits, not GitHub issues or pull requests.", False),
        ("Track tasks in a local file instead of the GitHub issues of a repo.", False),
        ("Sync notes, not files, to your GitHub repos.", True),
    ],
)
def test_a_service_named_as_what_the_skill_is_not_about_is_no_account(
    make_record: RecordFactory, make_skill: Skill, description: str, needs_github: bool
) -> None:
    body = "```bash\ngit status\ngit log --oneline\n```\n"
    reasons = judge_feasible(make_record(make_skill("git-work", description, body))).reasons
    assert ("needs:live-account:github" in reasons) == needs_github

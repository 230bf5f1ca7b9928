"""Configuration: llm.toml, environment overrides, explicit overrides, and what is never stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill2env.home import Home
from skill2env.llm.cache import CacheMode
from skill2env.llm.config import ROLES, LlmConfigError, LlmSettings, RoleConfig

TOML = """
cache = "read-only"

[default]
base_url = "http://127.0.0.1:8000/v1"
model = "local-model"
max_concurrency = 4

[judge]
base_url = "https://api.example.com/v1"
model = "big-model"
api_key_env = "JUDGE_KEY"
price_input_per_1k = 0.5
temperature = 0.2
"""


def load(
    tmp_path: Path, text: str | None = None, environ: dict[str, str] | None = None, **kwargs: object
) -> LlmSettings:
    if text is not None:
        (tmp_path / "llm.toml").write_text(text)
    return LlmSettings.load(Home(tmp_path), environ=environ or {}, **kwargs)  # type: ignore[arg-type]


def test_nothing_configured_means_every_role_is_unconfigured(tmp_path: Path) -> None:
    settings = load(tmp_path)
    assert set(settings.roles) == set(ROLES)
    assert not any(config.configured for config in settings.roles.values())
    assert settings.cache_mode is CacheMode.read_write
    assert settings.cache_dir == tmp_path / "llm-cache"
    assert settings.config_file is None


def test_default_table_then_role_table(tmp_path: Path) -> None:
    settings = load(tmp_path, TOML)

    curator, judge = settings.role("curator"), settings.role("judge")
    assert (curator.base_url, curator.model, curator.max_concurrency) == ("http://127.0.0.1:8000/v1", "local-model", 4)
    assert (judge.base_url, judge.model, judge.api_key_env) == ("https://api.example.com/v1", "big-model", "JUDGE_KEY")
    assert (judge.max_concurrency, judge.temperature, judge.price_input_per_1k) == (4, 0.2, 0.5)
    assert settings.cache_mode is CacheMode.read_only
    assert settings.config_file == tmp_path / "llm.toml"


def test_environment_overrides_all_roles_then_one_role(tmp_path: Path) -> None:
    environ = {
        "SKILL2ENV_LLM_MODEL": "env-model",
        "SKILL2ENV_LLM_MAX_TOKENS": "512",
        "SKILL2ENV_LLM_SOLVER_MODEL": "solver-model",
        "SKILL2ENV_LLM_SOLVER_SEED": "7",
        "SKILL2ENV_LLM_JUDGE_TEMPERATURE": "none",
        "SKILL2ENV_LLM_CACHE": "replay-only",
    }
    settings = load(tmp_path, TOML, environ)

    assert settings.role("curator").model == "env-model" and settings.role("judge").model == "env-model"
    assert settings.role("solver").model == "solver-model" and settings.role("solver").seed == 7
    assert settings.role("author").max_tokens == 512
    assert settings.role("judge").temperature is None
    assert settings.cache_mode is CacheMode.replay_only


def test_explicit_overrides_win_and_empty_ones_are_ignored(tmp_path: Path) -> None:
    settings = load(tmp_path, TOML, {"SKILL2ENV_LLM_MODEL": "env-model"},
                    overrides={"model": "cli-model", "base_url": ""}, cache_mode="off")  # fmt: skip
    assert settings.role("judge").model == "cli-model"
    assert settings.role("judge").base_url == "https://api.example.com/v1"
    assert settings.cache_mode is CacheMode.off


def test_an_api_key_in_the_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LlmConfigError, match="API keys are never stored"):
        load(tmp_path, '[default]\nbase_url = "http://x/v1"\napi_key = "sk-123"\n')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[critic]\nmodel = 'x'\n", "unknown tables"),
        ("[default]\nmax_tokens = 'many'\n", "max_tokens"),
        ("[default]\ntemprature = 0.1\n", "temprature"),
        ("[default\n", "llm.toml"),
        ('cache = "sometimes"\n', "cache mode 'sometimes'"),
    ],
)
def test_invalid_configuration_says_where(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(LlmConfigError, match=message):
        load(tmp_path, text)


def test_an_invalid_environment_value_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LlmConfigError, match="max_concurrency"):
        load(tmp_path, None, {"SKILL2ENV_LLM_CURATOR_MAX_CONCURRENCY": "0"})


def test_unknown_role(tmp_path: Path) -> None:
    with pytest.raises(LlmConfigError, match="unknown model role 'critic'"):
        load(tmp_path).role("critic")


def test_the_endpoint_host_drops_credentials_and_path() -> None:
    assert RoleConfig(base_url="https://user:pw@api.example.com/v1").endpoint_host == "api.example.com"
    assert RoleConfig(base_url="http://127.0.0.1:8080/v1").endpoint_host == "127.0.0.1:8080"


def test_the_key_is_read_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_KEY", "sk-1")
    monkeypatch.delenv("OTHER_KEY", raising=False)
    assert RoleConfig(api_key_env="SOME_KEY").api_key() == "sk-1"
    assert RoleConfig(api_key_env="OTHER_KEY").api_key() is None
    assert "sk-1" not in RoleConfig(api_key_env="SOME_KEY").model_dump_json()


def test_cost_uses_the_prices_per_thousand() -> None:
    config = RoleConfig(price_input_per_1k=0.001, price_output_per_1k=0.002)
    assert config.cost(2000, 500) == pytest.approx(0.003)

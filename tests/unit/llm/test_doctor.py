"""`skill2env llm doctor`: resolved configuration without keys, and whether endpoints answer."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from llm_server import ScriptedServer

from skill2env.cli import main


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKILL2ENV_HOME", str(tmp_path))
    for name in ("SKILL2ENV_LLM_BASE_URL", "SKILL2ENV_LLM_MODEL", "SKILL2ENV_LLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_nothing_configured(home: Path) -> None:
    result = CliRunner().invoke(main, ["llm", "doctor"])
    assert result.exit_code == 0, result.output
    assert result.output.count("no model configured") >= 6
    assert "offline paths" in result.output


def test_a_configured_endpoint_answers_and_the_key_is_not_printed(
    home: Path, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCTOR_KEY", "sk-doctor-secret")
    (home / "llm.toml").write_text(
        f'[default]\nbase_url = "{server.base_url}"\nmodel = "scripted-model"\napi_key_env = "DOCTOR_KEY"\n'
    )

    result = CliRunner().invoke(main, ["llm", "doctor"])

    assert result.exit_code == 0, result.output
    assert "sk-doctor-secret" not in result.output
    assert "$DOCTOR_KEY set" in result.output
    assert result.output.count("endpoint: answers, HTTP 200") == 6
    assert "models: scripted-model" in result.output
    assert "no model configured" not in result.output


def test_an_endpoint_that_does_not_answer_fails(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("SKILL2ENV_LLM_JUDGE_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("SKILL2ENV_LLM_JUDGE_MODEL", "m")

    result = CliRunner().invoke(main, ["llm", "doctor", "--timeout", "2"])

    assert result.exit_code == 1
    assert "no answer: ConnectError" in result.output


def test_an_invalid_configuration_is_an_error(home: Path) -> None:
    (home / "llm.toml").write_text('[default]\napi_key = "sk-x"\n')
    result = CliRunner().invoke(main, ["llm", "doctor"])
    # the error is wrapped to the terminal's width, at a place that depends on the home's path
    assert result.exit_code == 2 and "never stored" in " ".join(result.output.split())

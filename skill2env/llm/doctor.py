"""`skill2env llm doctor`: each role's resolved configuration (never its key) and whether its endpoint answers."""

from __future__ import annotations

import time
from dataclasses import dataclass

import httpx

from skill2env.llm.config import LlmSettings, RoleConfig


@dataclass(frozen=True)
class EndpointCheck:
    answers: bool
    detail: str
    """e.g. `HTTP 200 in 12 ms, 3 models`, `HTTP 401 in 8 ms`, `connection refused`."""


def role_summary(config: RoleConfig) -> dict[str, str]:
    """What the doctor prints for a role: the configuration, with only whether the key is set."""
    return {
        "base_url": config.base_url or "-",
        "model": config.model or "-",
        "api key": f"${config.api_key_env} " + ("set" if config.api_key() else "unset"),
        "temperature": "-" if config.temperature is None else f"{config.temperature:g}",
        "max_tokens": str(config.max_tokens),
        "seed": "-" if config.seed is None else str(config.seed),
        "timeout": f"{config.timeout_seconds:g} s",
        "concurrency": str(config.max_concurrency),
        "structured": config.structured_mode,
        "price in/out per 1K": f"{config.price_input_per_1k:g} / {config.price_output_per_1k:g}",
    }


def check_endpoint(config: RoleConfig, timeout: float = 5.0) -> EndpointCheck:
    """GET `<base_url>/models`: any HTTP answer means the endpoint is up (the status says the rest)."""
    headers = {"Authorization": f"Bearer {config.api_key()}"} if config.api_key() else {}
    started = time.perf_counter()
    try:
        response = httpx.get(config.base_url.rstrip("/") + "/models", headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        return EndpointCheck(False, f"no answer: {type(exc).__name__}: {exc}")
    elapsed = (time.perf_counter() - started) * 1000
    detail = f"HTTP {response.status_code} in {elapsed:.0f} ms"
    if response.is_success:
        try:
            models = [entry.get("id") for entry in response.json().get("data", [])]
        except (ValueError, AttributeError):
            models = []
        if models:
            listed = ", ".join(str(m) for m in models[:5]) + (" …" if len(models) > 5 else "")
            found = "" if config.model in models else f"; {config.model!r} is not among them"
            detail += f", models: {listed}{found}"
    return EndpointCheck(True, detail)


def checks_by_endpoint(settings: LlmSettings, timeout: float = 5.0) -> dict[str, EndpointCheck]:
    """One check per distinct configured base_url."""
    done: dict[str, EndpointCheck] = {}
    for config in settings.roles.values():
        if config.configured and config.base_url not in done:
            done[config.base_url] = check_endpoint(config, timeout)
    return done

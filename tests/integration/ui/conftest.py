"""The Dagster UI in a real browser: the bundled pipeline run once into a temporary home, `skill2env ui`
on a free loopback port over that home, and Playwright driving Debian's Chromium (`/usr/bin/chromium`,
which `scripts/setup-sandbox.sh` installs; Playwright's own browser download is never used).

Screenshots and logs go to `$SKILL2ENV_TEST_ARTIFACTS` (CI sets `artifacts/ui/`), else to a temporary
directory that pytest keeps for the last runs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

SKILL2ENV = Path(sys.executable).parent / "skill2env"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = Path(os.environ.get("SKILL2ENV_CHROMIUM", "/usr/bin/chromium"))
PIPELINE_TIMEOUT = 1500
"""The bundled run (12 skills, 9 tasks, 3 iterations, CompoWorld) takes about 4 minutes on 2 busy cores."""
START_TIMEOUT = 240
UI_TIMEOUT_MS = 180_000
"""How long a page may take to show what a test waits for: the UI is a React app fed by GraphQL."""
expect.set_options(timeout=UI_TIMEOUT_MS)

GraphQL = Callable[..., dict[str, Any]]
"""A query (and its variables) against the UI's `/graphql`; its `data`."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def graphql_call(base: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """POST to the UI's `/graphql` endpoint (the one its pages use); the `data`, or an AssertionError."""
    body = json.dumps({"query": query, "variables": variables or {}}).encode()
    request = urllib.request.Request(f"{base}/graphql", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        payload = json.loads(response.read())
    if payload.get("errors"):
        raise AssertionError(payload["errors"])
    return dict(payload["data"])


def clean_env(home: Path) -> dict[str, str]:
    """This environment on `home`, without what would change the bundled run: another skills root, a
    recorded iteration count, a model endpoint."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("SKILL2ENV_SKILLS", "SKILL2ENV_ITERATIONS") and not k.startswith("SKILL2ENV_LLM")}  # fmt: skip
    return {**env, "SKILL2ENV_HOME": str(home)}


@pytest.fixture(scope="session")
def ui_artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the UI tests leave screenshots and logs."""
    configured = os.environ.get("SKILL2ENV_TEST_ARTIFACTS")
    root = Path(configured) if configured else tmp_path_factory.mktemp("ui-artifacts")
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="session")
def bundled_home(tmp_path_factory: pytest.TempPathFactory, ui_artifacts: Path) -> Path:
    """A home after `skill2env run` on the bundled skills, as a new user's first run (piped, so it
    prints one line per stage and partition; kept as `pipeline.log`)."""
    home = tmp_path_factory.mktemp("ui-home")
    log = ui_artifacts / "pipeline.log"
    with log.open("wb") as out:
        result = subprocess.run([str(SKILL2ENV), "run"], env=clean_env(home), cwd=PROJECT_ROOT, stdout=out,
                                stderr=subprocess.STDOUT, timeout=PIPELINE_TIMEOUT, check=False)  # fmt: skip
    assert result.returncode == 0, log.read_text(errors="replace")[-4000:]
    return home


def _wait_until_serving(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Until the webserver answers and has loaded the code location."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"skill2env ui exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError, AssertionError):
            found = graphql_call(base, "{ repositoriesOrError { ... on RepositoryConnection { nodes { name } } } }")
            if found["repositoriesOrError"].get("nodes"):
                return
        time.sleep(1)
    raise AssertionError(f"the UI did not come up in {START_TIMEOUT} s:\n{log.read_text(errors='replace')}")


@pytest.fixture(scope="module")
def ui(bundled_home: Path, ui_artifacts: Path) -> Iterator[str]:
    """`skill2env ui` (webserver + daemon) over the bundled home on a free port; its base URL."""
    port = free_port()
    log = ui_artifacts / "ui.log"
    with log.open("wb") as out:
        process = subprocess.Popen([str(SKILL2ENV), "ui", "--port", str(port)], env=clean_env(bundled_home),
                                   cwd=PROJECT_ROOT, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_serving(base, process, log)
        # The community sign-up dialog the UI opens once on a loopback origin would cover every page.
        graphql_call(base, "mutation { setNuxSeen }")
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture(scope="module")
def graphql(ui: str) -> GraphQL:
    def call(query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        return graphql_call(ui, query, variables)

    return call


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium from Debian, driven by Playwright. Module-scoped: Playwright's synchronous API runs an
    event loop on this thread until it stops, and every later test that starts its own loop
    (`asyncio.run`) needs it gone."""
    if not CHROMIUM.is_file():
        pytest.fail(f"Chromium is not installed at {CHROMIUM}: run `make sandbox` (scripts/setup-sandbox.sh)")
    # Chromium's own sandbox refuses to start as root (CI runs as root); the pages are our loopback UI.
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser, ui: str, ui_artifacts: Path, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page on the UI; whatever it shows at the end of the test is saved as `<test>-end.png`."""
    context = browser.new_context(base_url=ui, viewport={"width": 1600, "height": 1000})
    context.set_default_timeout(UI_TIMEOUT_MS)
    opened = context.new_page()
    try:
        yield opened
    finally:
        with contextlib.suppress(Exception):  # a screenshot is evidence, never the failure
            opened.screenshot(path=str(ui_artifacts / f"{request.node.name}-end.png"))
        context.close()

"""Each service's own tests: they pass here, with the stdlib runner, and through `verify` in a sandbox."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from skill2env.compoworld.selftest import outcome, self_test_services
from skill2env.compoworld.services import SERVICES, own_tests
from skill2env.sandbox.bwrap_backend import bwrap_available

ROOT = Path(__file__).resolve().parents[3]


def _service_tests() -> list[tuple[str, str, Callable[[], None]]]:
    found = []
    for name in SERVICES:
        module = importlib.import_module(f"skill2env.compoworld.services.tests.{own_tests(name)[:-3]}")
        found += [(name, attr, fn) for attr, fn in vars(module).items() if attr.startswith("test_") and callable(fn)]
    return found


SERVICE_TESTS = _service_tests()


@pytest.mark.parametrize(("service", "name", "function"), SERVICE_TESTS, ids=[f"{s}::{n}" for s, n, _ in SERVICE_TESTS])
def test_service_own_test(service: str, name: str, function: Callable[[], None]) -> None:
    function()


def test_every_service_has_its_own_tests() -> None:
    assert {service for service, _, _ in SERVICE_TESTS} == set(SERVICES)


def test_the_stdlib_runner_reports_like_pytest() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "skill2env.compoworld.services.tests.runner",
            f"skill2env/compoworld/services/tests/{own_tests('refunds')}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("4 passed")


def test_outcomes_tell_failures_from_infrastructure_errors() -> None:
    assert outcome("crm", "bwrap", 0, "runner: stdlib\n5 passed in 0.1s", 1.0).status == "verified"
    failed = outcome("crm", "bwrap", 1, "runner: pytest\n1 failed, 4 passed in 0.2s", 1.0)
    assert (failed.status, failed.tests_passed, failed.tests_failed, failed.runner) == ("failed", 4, 1, "pytest")
    assert outcome("crm", "subprocess", 2, "ImportError: boom", 1.0).status == "failed"
    assert outcome("crm", "bwrap", 0, "3 passed", 1.0, infrastructure="sandbox died").status == "error"
    assert outcome("crm", "bwrap", 5, "no tests ran", 1.0).status == "failed"


def test_verify_in_a_subprocess() -> None:
    (result,) = self_test_services(["calendar"], backend="subprocess")
    assert (result.status, result.backend, result.runner) == ("verified", "subprocess", "pytest")
    assert result.tests_passed == 4 and result.tests_failed == 0


@pytest.mark.bwrap
def test_verify_in_a_bwrap_sandbox() -> None:
    if not bwrap_available():
        pytest.skip("bubblewrap is not installed")
    results = self_test_services(["orders", "shipping"], backend="bwrap")
    assert [(r.service, r.status, r.backend) for r in results] == [
        ("orders", "verified", "bwrap"),
        ("shipping", "verified", "bwrap"),
    ]
    assert all(r.runner in ("pytest", "stdlib") and r.tests_passed >= 3 for r in results)

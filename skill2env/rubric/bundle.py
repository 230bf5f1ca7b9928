"""The verifier a task ships in `tests/`: `verify.py`, the `rubric_checks/` package, `judge_prompt.py`
(the judge's prompt and reply parsing, shared with the host's judge role), the rubric (with its
expected values) and a `test.sh` that runs them the way Harbor runs verifiers."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from skill2env.rubric.models import Rubric

RUBRIC_DIR = Path(__file__).resolve().parent
CHECKS_PACKAGE = "rubric_checks"
VERIFY_SCRIPT = "verify.py"
JUDGE_PROMPT_MODULE = "judge_prompt.py"
NO_JUDGE_FLAG = "--no-judge"
"""Tells `verify.py` never to ask a judge endpoint (the host's judge role scores judge items)."""
RUBRIC_FILE = "rubric.json"
TEST_SCRIPT = "test.sh"
TESTS_MOUNT = "/tests"
VERIFIER_LOGS = "/logs/verifier"


def rubric_json(rubric: Rubric) -> bytes:
    """The rubric as `verify.py` reads it: sorted keys, two-space indent, trailing newline — the same
    bytes as the Harbor writer's, so equal rubrics give equal files."""
    return (json.dumps(rubric.model_dump(mode="json"), indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()


CHECKS_MARGIN, CHECKS_MARGIN_MAX_S = 0.25, 30.0
"""Of the verifier's time limit, what its checks leave for the rest: a quarter, at most 30 s."""


def checks_budget(limit: float) -> float:
    """The seconds the verifier's checks may take together within its `limit`: the rest is for starting
    Python, collecting the judge's files and writing the results (`CHECKS_MARGIN`). Without a budget,
    a workspace that keeps several checks busy to their own limits runs the verifier past its timeout,
    which scores nothing: an attempt that could not have passed would escape its 0."""
    return round(max(limit * (1 - CHECKS_MARGIN), limit - CHECKS_MARGIN_MAX_S), 3)


def verify_command(
    workdir: str = "/workspace",
    *,
    tests: str = TESTS_MOUNT,
    out: str = VERIFIER_LOGS,
    judge: bool = False,
    budget_s: float = 0.0,
) -> list[str]:
    """The verifier's command line: isolated Python (`-I`), so nothing in the agent's workspace can
    shadow a module it imports, and an explicit workspace, rubric and output directory.

    By default the host's: with `--no-judge`, so the verifier never asks a judge endpoint even if
    one leaks into the sandbox's environment (the host's judge role scores judge items). `judge`:
    Harbor's entry point, where the verifier scores judge items itself when its environment names
    an endpoint (`SKILL2ENV_LLM_JUDGE_BASE_URL`, `SKILL2ENV_LLM_JUDGE_MODEL`). `budget_s` (> 0): the
    seconds every check together may take (`verify_main.verify`)."""
    command = [
        "python3",
        "-I",
        f"{tests}/{VERIFY_SCRIPT}",
        "--rubric",
        f"{tests}/{RUBRIC_FILE}",
        "--workspace",
        workdir,
        "--out",
        out,
    ]
    if budget_s > 0:
        command += ["--time-budget", f"{budget_s:g}"]
    return command if judge else [*command, NO_JUDGE_FLAG]


def test_sh(workdir: str = "/workspace", *, budget_s: float = 0.0) -> bytes:
    """Harbor's entry point: runs `verify.py`, which writes /logs/verifier/reward.json. `budget_s`: the
    checks' time budget (`checks_budget` of the task's verifier timeout)."""
    command = shlex.join(verify_command(workdir, judge=True, budget_s=budget_s))
    return (
        "#!/usr/bin/env bash\n"
        "# Rubric verifier (skill2env): scores the rubric's items on the final workspace and writes\n"
        '# /logs/verifier/reward.json ({"reward": r}, unscored items counting 0) and results.json beside it.\n'
        "# llm_judge items are scored when SKILL2ENV_LLM_JUDGE_BASE_URL and SKILL2ENV_LLM_JUDGE_MODEL are set.\n"
        "set -uo pipefail\n"
        f"mkdir -p {VERIFIER_LOGS}\n"
        f"rm -f {VERIFIER_LOGS}/reward.json {VERIFIER_LOGS}/reward.txt\n"
        f"cd {TESTS_MOUNT}\n"
        f"exec {command}\n"
    ).encode()


def _sources() -> dict[str, bytes]:
    files = {
        VERIFY_SCRIPT: (RUBRIC_DIR / "verify_main.py").read_bytes(),
        JUDGE_PROMPT_MODULE: (RUBRIC_DIR / JUDGE_PROMPT_MODULE).read_bytes(),
    }
    for path in sorted((RUBRIC_DIR / "checks").glob("*.py")):
        files[f"{CHECKS_PACKAGE}/{path.name}"] = path.read_bytes()
    return files


def verifier_bundle(
    rubric: Rubric | None = None, *, with_test_sh: bool = False, workdir: str = "/workspace", budget_s: float = 0.0
) -> dict[str, bytes]:
    """Relative path → bytes of the verifier for a task's `tests/`: `verify.py`, `judge_prompt.py` and
    the `rubric_checks/` package; `rubric.json` given a rubric, `test.sh` when asked (the Harbor
    writer generates its own `test.sh` and `rubric.json`, and refuses verifier files that would
    replace them)."""
    files = _sources()
    if with_test_sh:
        files[TEST_SCRIPT] = test_sh(workdir, budget_s=budget_s)
    if rubric is not None:
        files[RUBRIC_FILE] = rubric_json(rubric)
    return files


def write_bundle(
    tests_dir: Path, rubric: Rubric | None = None, *, workdir: str = "/workspace", verifier_timeout_s: float = 0.0
) -> list[Path]:
    """Write the whole verifier into `tests_dir`, `test.sh` (executable) included; returns the paths.
    `verifier_timeout_s` (> 0): the task's verifier timeout, which gives the checks their time budget."""
    written = []
    budget = checks_budget(verifier_timeout_s) if verifier_timeout_s > 0 else 0.0
    for relative, data in verifier_bundle(rubric, with_test_sh=True, workdir=workdir, budget_s=budget).items():
        path = tests_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if relative == TEST_SCRIPT else 0o644)
        written.append(path)
    return written

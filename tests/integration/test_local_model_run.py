"""`skill2env run` with a small real model (Qwen2.5-Coder-0.5B on llama.cpp's server, `local_model`)
as every role, on two development skills, as a user would run it: the run ends within the
fifteen minutes the author's per-skill budget allows on this machine, every skill's authoring ends in
a named outcome whose model answers can be read from the ledger, the console says what failed, and
nothing the gates did not pass is accepted. A 0.5B model writes no usable task: what is tested is
that a weak, slow model is bounded, heard and recorded, not that it succeeds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from corpus import CORPUS
from local_model import MODEL_NAME, LocalModelMissing, serve

from skill2env.lake.lake import Lake

pytestmark = [pytest.mark.local_model, pytest.mark.slow, pytest.mark.bwrap, pytest.mark.timeout(1200)]
SKILLS = (
    "openclaw-skills/dvjn--no-nonsense-tasks",
    "k-dense-scientific-skills/pymoo",
)
AUTHOR_BUDGET_SECONDS = 150
"""Per skill (`budget_seconds`): two skills' authoring stays within ~5 minutes of a 15-minute run, which
leaves room for the machine being busy with other work (decoding then slows several times)."""
RUN_LIMIT_SECONDS = 15 * 60
LLM_TOML = f"""[author]
budget_seconds = {AUTHOR_BUDGET_SECONDS}
"""


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    try:
        with serve(context_tokens=8192) as url:
            yield url
    except LocalModelMissing as missing:
        pytest.skip(str(missing))


@pytest.fixture(scope="module")
def ran(base_url: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Lake]:
    if not CORPUS.is_dir():
        pytest.skip(f"development corpus not found at {CORPUS}")
    root, home = tmp_path_factory.mktemp("skills"), tmp_path_factory.mktemp("home")
    for path in SKILLS:
        shutil.copytree(CORPUS / path, root / path)
    (home / "llm.toml").write_text(LLM_TOML)
    command = [str(Path(sys.executable).with_name("skill2env")), "run", "--skills", str(root), "--home", str(home),
               "--llm-base-url", base_url, "--llm-model", MODEL_NAME, "--iterations", "0", "--attempts", "1",
               "--backend", "bwrap", "--no-compoworld", "--workers", "1"]  # fmt: skip
    environment = {k: v for k, v in os.environ.items() if not k.startswith("SKILL2ENV_LLM_")}
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_LIMIT_SECONDS, env=environment,
                          check=False)  # fmt: skip
    return done, Lake(home / "lake.duckdb")


def test_the_run_ends_and_says_what_failed(ran: tuple[subprocess.CompletedProcess[str], Lake]) -> None:
    done, lake = ran
    built = int(lake.query("SELECT count(*) FROM tasks WHERE task_id IS NOT NULL").item())
    said = done.stdout + done.stderr
    assert done.returncode == (0 if built else 3), said[-6000:]
    assert "What did not succeed" in said and "stage_failures" in said, "the failures and the command to see them all"
    assert "model call author/author_blueprint" in said, "slow and failed model calls are said as they end"
    if not built:
        assert "authoring built no task" in said, said[-6000:]


def test_every_skill_ends_in_a_named_outcome_whose_model_answers_are_in_the_ledger(
    ran: tuple[subprocess.CompletedProcess[str], Lake],
) -> None:
    _, lake = ran
    rows = lake.query("SELECT skill_path, status, reasons FROM tasks").to_dicts()
    assert sorted(r["skill_path"] for r in rows) == sorted(SKILLS)
    for row in rows:
        if row["status"] not in ("built", "accepted"):
            assert row["reasons"] and all(reason.strip() for reason in row["reasons"]), row
    failed = lake.query("SELECT c.call_id, c.template_id, c.error_class, c.output_tokens, "
                        "count(r.round) AS rounds, count(r.content) AS answers FROM llm_calls c "
                        "LEFT JOIN llm_call_rounds r USING (call_id) WHERE c.role = 'author' AND c.status = 'error' "
                        "GROUP BY ALL").to_dicts()  # fmt: skip
    for call in failed:
        assert call["rounds"] >= 1, call
        if call["output_tokens"]:
            assert call["answers"] >= 1, f"what the model said is not readable: {call}"
    calls = lake.query("SELECT count(*) FROM llm_calls WHERE role = 'author'").item()
    assert calls >= len(SKILLS), "every skill reached the author model"


def test_nothing_is_accepted_that_the_gates_did_not_pass(ran: tuple[subprocess.CompletedProcess[str], Lake]) -> None:
    _, lake = ran
    accepted = lake.query("SELECT task_id FROM accepted_tasks").to_series().to_list()
    for task_id in accepted:
        gates = dict(lake.query("SELECT gate, status FROM validations WHERE task_id = $t", {"t": task_id}).rows())
        assert gates.get("oracle") == "passed" and gates.get("nop") == "passed", (task_id, gates)
        assert "failed" not in gates.values(), (task_id, gates)

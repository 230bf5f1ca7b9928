"""Exported tasks in the real Harbor (`harbor==0.25.0` in .harbor-venv) on this machine's engine.

Harbor loads and lints every export, its oracle agent scores 1.0 on each, and agents that tamper
with the verifier's inputs from inside the agent's container instead of doing the task score 0:
the verifier runs in its own container (`environment_mode = "separate"`), from its own image with
the tests baked in, on the `/workspace` artifact only. How Harbor runs here: docs/harbor.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from harbor_client import (
    HARBOR_BIN,
    LOCAL_ENVIRONMENT,
    RUN_ENV,
    harbor_cli,
    harbor_python,
    require_compose,
    run_harbor_script,
)
from harbor_tasks import require_backend

from skill2env.tasks.cli import export_group

from .conftest import EXPORTED_KITS

RUN_TIMEOUT = 600
"""Seconds for one Harbor trial of a kit task (two image builds, the agent, the verifier): ~1 min here."""
ORACLE_CONCURRENCY = 2
"""Trials at once in the oracle run: each mostly waits on the engine (builds, container starts)."""

LOAD_TASK = """
import json, sys
from pathlib import Path
from harbor.models.task.task import Task

out = {}
for path in sys.argv[1:]:
    task = Task(Path(path))
    config = task.config
    out[path] = {
        "name": task.name,
        "valid": Task.is_valid_dir(Path(path)),
        "verifier_mode": config.verifier.environment_mode.value,
        "network_mode": config.environment.network_mode.value,
        "agent_user": config.agent.user,
        "artifacts": [str(a) for a in config.artifacts],
        "instruction": bool(task.instruction.strip()),
    }
print(json.dumps(out))
"""

PLANT_VERIFIER = r"""
set -e
mkdir -p /tests /logs/verifier
cat > /tests/verify.py <<'PY'
import json, os
os.makedirs("/logs/verifier", exist_ok=True)
with open("/logs/verifier/reward.json", "w") as out:
    json.dump({"reward": 1.0}, out)
print("reward 1.0")
PY
printf '#!/bin/bash\npython3 /tests/verify.py\n' > /tests/test.sh
chmod +x /tests/test.sh
echo "planted: $(/tests/test.sh)"
echo "net: $(ls /sys/class/net | tr '\n' ' ')"
"""

FORGE_REWARD = r"""
set -e
mkdir -p /logs/verifier
echo '{"reward": 1.0}' > /logs/verifier/reward.json
echo 1.0 > /logs/verifier/reward.txt
echo "forged: $(cat /logs/verifier/reward.json)"
"""


@pytest.fixture
def harbor_engine() -> None:
    require_backend("docker")
    require_compose()


@pytest.mark.slow
def test_every_export_loads_in_harbor_and_lints_clean(kit_exports: dict[str, Path]) -> None:
    dirs = [str(path) for path in kit_exports.values()]
    loaded = harbor_python(LOAD_TASK, *dirs)
    for path in dirs:
        task = loaded[path]
        assert task["valid"], path
        assert task["name"].startswith("skill2env/"), task
        assert task["verifier_mode"] == "separate"
        assert task["network_mode"] == "no-network"
        assert task["agent_user"] == "agent"
        assert "/workspace" in task["artifacts"]
        assert task["instruction"]
    lint = harbor_cli("lint", "--json", *dirs)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert json.loads(lint.stdout) == []


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(RUN_TIMEOUT * len(EXPORTED_KITS))
def test_harbor_oracle_scores_full_marks_on_kit_exports(harbor_engine: None, kit_exports: dict[str, Path],
                                                         tmp_path: Path) -> None:  # fmt: skip
    # Through `skill2env export harbor --check --run-oracle`, the command a user runs on an export.
    folder = tmp_path / "exports"
    folder.mkdir()
    for path in kit_exports.values():
        (folder / path.name).symlink_to(path)
    result = CliRunner().invoke(export_group, ["harbor", "--check", str(folder), "--run-oracle", "--harbor",
                                               str(HARBOR_BIN), "--harbor-env", LOCAL_ENVIRONMENT,
                                               "--oracle-concurrency", str(ORACLE_CONCURRENCY)],
                                env=RUN_ENV, catch_exceptions=False)  # fmt: skip
    assert result.exit_code == 0, result.output
    output = " ".join(result.output.split())
    n = len(kit_exports)
    assert f"oracle agent on {n} task(s), {ORACLE_CONCURRENCY} at a time" in output
    assert f"{n} of {n} task(s) load in Harbor, are lint-clean and score 1 with its oracle agent" in output
    assert output.count("1.00") >= n


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.timeout(RUN_TIMEOUT)
@pytest.mark.parametrize(("script", "markers"), [
    # the network line: `no-network` leaves the agent's container the loopback interface only
    (PLANT_VERIFIER, ["planted: reward 1.0", "net: lo \n"]),
    (FORGE_REWARD, ['forged: {"reward": 1.0}']),
], ids=["planted-verifier", "forged-reward"])  # fmt: skip
def test_tampering_agent_scores_zero(harbor_engine: None, kit_exports: dict[str, Path], tmp_path: Path,
                                     script: str, markers: list[str]) -> None:  # fmt: skip
    # As root in the agent's container: the strongest agent a task can get still cannot reach the verifier.
    outcomes = run_harbor_script([kit_exports["configaudit"]], tmp_path / "jobs", script, user="root")
    (outcome,) = outcomes.values()
    assert outcome.agent_metadata.get("exit_code") == 0, outcome.agent_metadata
    for marker in markers:
        assert marker in outcome.agent_metadata["output"], outcome.agent_metadata["output"]
    assert outcome.error is None, outcome.error
    assert outcome.reward == 0.0
    assert json.loads((outcome.trial_dir / "verifier" / "reward.json").read_text()) == {"reward": 0.0}

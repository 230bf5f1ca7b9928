"""A rollout process for the kill test: `python rollout_worker.py HOME BASE_URL BACKEND DOMAIN`.

Rolls out the domain's tasks with the solver at BASE_URL, like an iteration's rollouts stage does; the
test kills it with SIGKILL mid-run.
"""

from __future__ import annotations

import sys
from pathlib import Path

from skill2env.agent.actors import SolverPolicy
from skill2env.agent.markers import AttemptLog
from skill2env.agent.rollout import RolloutRunner
from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import RoleConfig
from skill2env.sandbox.backends import BackendName

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the tests' shared modules, as pytest has them
from rollout_lake import roll_out_domain


def main(home_dir: str, base_url: str, backend: str, domain: str) -> None:
    home = Home(Path(home_dir))
    lake = Lake(home.lake_path, lock_timeout=60)
    config = RoleConfig(base_url=base_url, model="scripted-model", max_attempts=1)
    client = ModelClient("solver", config, cache=ResponseCache(home.root / "llm-cache", CacheMode.off))
    chosen: BackendName = "docker" if backend == "docker" else "bwrap"
    runner = RolloutRunner(
        SolverPolicy(client), backend=chosen, run_id="killed-run", home=home, attempts=AttemptLog(lake)
    )
    roll_out_domain(lake, home, domain, runner, attempts=1, run_id="killed-run", code_version="test")


if __name__ == "__main__":
    main(*sys.argv[1:5])

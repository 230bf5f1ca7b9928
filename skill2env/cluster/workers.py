"""A celery worker of the cluster: Dagster's steps, sent by the process that runs a job (`skill2env run`
in the cluster profile), executed in a home of the worker's own.

The worker runs celery's `solo` pool: one step at a time, in the worker's main process, because a
step starts worker processes of its own (catalog, curation) and celery's prefork children may not.
Run more workers for more steps at once.
"""

from __future__ import annotations

import sys
from pathlib import Path

from skill2env.cluster.profile import cluster_settings, dagster_instance_yaml
from skill2env.home import Home, ProfileError, activate_home

CELERY_APP = "dagster_celery.app"
CONFIG_MODULE = "dagster_celery_config"
"""The module `dagster_celery.app` reads its broker from when it is importable (`PYTHONPATH`)."""
QUEUE = "dagster"


def prepare_worker_home(home: Home) -> Path:
    """Point this process at `home` (its Dagster instance on the cluster's Postgres) and write the
    celery settings module from its `cluster.toml`; returns the folder to put on `PYTHONPATH`."""
    settings = cluster_settings(home)
    if settings is None or settings.celery_broker is None:
        raise ProfileError(f"{home.cluster_config}: a worker needs the cluster profile with a [celery] broker")
    activate_home(home, dagster_instance_yaml(home))
    folder = home.root / "celery"
    folder.mkdir(parents=True, exist_ok=True)
    broker = settings.celery_broker
    (folder / f"{CONFIG_MODULE}.py").write_text(
        f"# Written by skill2env from {home.cluster_config}.\nbroker_url = {broker!r}\nresult_backend = {broker!r}\n",
        encoding="utf-8",
    )
    return folder


def worker_command(home: Home, *, name: str, log_level: str = "INFO") -> list[str]:
    """The command that starts worker `name` on `home` (`skill2env cluster worker`)."""
    return [sys.executable, "-m", "skill2env.cli", "cluster", "worker", "--home", str(home.root), "--name", name,
            "--log-level", log_level]  # fmt: skip


def celery_arguments(name: str, log_level: str) -> list[str]:
    return ["-A", CELERY_APP, "worker", "--pool=solo", "--prefetch-multiplier=1", "-Q", QUEUE, "-n", f"{name}@%h",
            "--loglevel", log_level, "--without-gossip", "--without-mingle"]  # fmt: skip

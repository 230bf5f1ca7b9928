"""A cluster on one machine, for trying the cluster profile (and for its tests): Postgres and Redis of
the machine's own installation, shared storage in a directory, N celery workers each with a home of
its own. `skill2env cluster up` / `down`; everything lives under `<home>/cluster/`.

Real machines run the same pieces as services (the README's "Scaling out"): this module only starts
them locally and writes the `cluster.toml` that points at them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from skill2env.cluster.dockerd import LocalEngine
from skill2env.cluster.errors import ClusterError
from skill2env.cluster.postgres import LocalPostgres
from skill2env.cluster.processes import free_port, running, stop_process
from skill2env.cluster.workers import worker_command
from skill2env.home import CLUSTER_CONFIG, Home
from skill2env.sandbox.hosts import EngineHost

LAKE_DATABASE = "skill2env_lake"
DAGSTER_DATABASE = "skill2env_dagster"
START_TIMEOUT_SECONDS = 90
LOCAL_ENGINE = "unix:///var/run/docker.sock"
"""This machine's engine, unless `$DOCKER_HOST` names another."""


@dataclass
class WorkerProcess:
    name: str
    pid: int
    home: str
    log: str


@dataclass
class ClusterState:
    """What `up` started, so `down` stops exactly that (`<home>/cluster/state.json`)."""

    postgres_port: int
    redis_port: int
    redis_pid: int
    workers: list[WorkerProcess] = field(default_factory=list)
    engine_port: int | None = None
    engine_pid: int | None = None
    """The second Docker engine ("remote" sandbox host), when one was started."""


@dataclass(frozen=True)
class LocalCluster:
    home: Home

    @property
    def root(self) -> Path:
        return self.home.root / "cluster"

    @property
    def state_path(self) -> Path:
        return self.root / "state.json"

    @property
    def shared(self) -> Path:
        """The cluster's shared storage: the lake's data files and the workers' common data root."""
        return self.root / "shared"

    def postgres(self, port: int) -> LocalPostgres:
        return LocalPostgres(self.root / "postgres", port)

    def state(self) -> ClusterState | None:
        if not self.state_path.is_file():
            return None
        raw = json.loads(self.state_path.read_text(encoding="utf-8"))
        return ClusterState(**{**raw, "workers": [WorkerProcess(**w) for w in raw["workers"]]})

    def engine(self, port: int) -> LocalEngine:
        return LocalEngine(self.root / "engine", port)

    def up(
        self, workers: int, *, remote_engine: bool = True, slots: int = 2, report: Callable[[str], None] = print
    ) -> ClusterState:
        """Start Postgres, Redis, `workers` celery workers and (`remote_engine`) a second Docker engine
        on a TCP socket beside this machine's, `slots` docker rollouts each; write `cluster.toml` into
        the home and every worker's home. Refuses when this home's cluster already runs."""
        if self.state() is not None:
            raise ClusterError(f"a cluster already runs for {self.home.root} (skill2env cluster down first)")
        self.root.mkdir(parents=True, exist_ok=True)
        # As root, Postgres runs as its own account, which must be able to reach its directory.
        for folder in (self.home.root, self.root):
            folder.chmod(folder.stat().st_mode | 0o011)
        postgres = self.postgres(free_port())
        postgres.start()
        state = ClusterState(postgres.port, free_port(), redis_pid=0)
        self._save(state)  # from here on, `down` stops whatever started
        try:
            for database in (LAKE_DATABASE, DAGSTER_DATABASE):
                postgres.create_database(database)
            report(f"postgres on 127.0.0.1:{postgres.port} ({postgres.data_dir})")
            state.redis_pid = _start_redis(self.root / "redis", state.redis_port)
            self._save(state)
            report(f"redis on 127.0.0.1:{state.redis_port}")
            hosts = [EngineHost(os.environ.get("DOCKER_HOST", LOCAL_ENGINE), slots)]
            if remote_engine:
                engine = self.engine(free_port())
                state.engine_port, state.engine_pid = engine.port, engine.start()
                self._save(state)
                hosts.append(engine.host(slots))
                report(f"second docker engine on {engine.url} ({engine.root})")
            config = self.cluster_toml(postgres, state.redis_port, hosts)
            _write(self.home.root / CLUSTER_CONFIG, config)
            for n in range(1, workers + 1):
                state.workers.append(self._start_worker(f"worker{n}", config))
                self._save(state)
                report(f"celery worker {state.workers[-1].name} (home {state.workers[-1].home})")
            _wait_until_ready(state.workers)
        except BaseException:
            self.down(report=lambda _line: None)
            raise
        return state

    def cluster_toml(self, postgres: LocalPostgres, redis_port: int, hosts: Sequence[EngineHost]) -> str:
        broker = f"redis://127.0.0.1:{redis_port}/0"
        engines = "".join(f"\n[[sandbox.hosts]]\nurl = {json.dumps(h.url)}\nslots = {h.slots}\n" for h in hosts)
        return (
            f"# Written by `skill2env cluster up` for a cluster on this machine; `down` removes it.\n"
            f"[lake]\ncatalog = {json.dumps(postgres.dsn(LAKE_DATABASE))}\n"
            f"data_path = {json.dumps(str(self.shared / 'lake') + '/')}\n\n"
            f"[storage]\npath = {json.dumps(str(self.shared / 'data'))}\n\n"
            f"[dagster]\npostgres_url = {json.dumps(postgres.url(DAGSTER_DATABASE))}\n\n"
            f"[celery]\nbroker = {json.dumps(broker)}\n"
            f"{engines}"
        )

    def down(self, *, purge: bool = False, report: Callable[[str], None] = print) -> None:
        """Stop every worker, Redis and Postgres this home's cluster started, and take `cluster.toml` out
        of the home (it is embedded again). The data stays under `<home>/cluster/` unless `purge`."""
        state = self.state()
        if state is not None:
            for worker in state.workers:
                stop_process(worker.pid, f"worker {worker.name}")
                report(f"stopped {worker.name}")
            if state.redis_pid:
                stop_process(state.redis_pid, "redis")
                report("stopped redis")
            if state.engine_port is not None and state.engine_pid is not None:
                self.engine(state.engine_port).stop(state.engine_pid)
                report("stopped the second docker engine (its containers removed)")
            self.postgres(state.postgres_port).stop()
            report("stopped postgres")
            self.state_path.unlink()
        (self.home.root / CLUSTER_CONFIG).unlink(missing_ok=True)
        if purge and self.root.exists():
            shutil.rmtree(self.root)
            report(f"removed {self.root}")

    def _start_worker(self, name: str, config: str) -> WorkerProcess:
        home = Home(self.root / "workers" / name)
        _write(home.root / CLUSTER_CONFIG, config)
        log = home.root / "worker.log"
        with log.open("ab") as out:
            process = subprocess.Popen(
                worker_command(home, name=name),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, "SKILL2ENV_HOME": str(home.root)},
            )
        return WorkerProcess(name, process.pid, str(home.root), str(log))

    def _save(self, state: ClusterState) -> None:
        _write(self.state_path, json.dumps(asdict(state), indent=2))


def _start_redis(folder: Path, port: int) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    pidfile = folder / "redis.pid"
    pidfile.unlink(missing_ok=True)
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--daemonize",
               "yes", "--pidfile", str(pidfile), "--logfile", str(folder / "redis.log"), "--save", "",
               "--appendonly", "no"]  # fmt: skip
    if shutil.which("redis-server") is None:
        raise ClusterError("no redis-server: apt-get install redis-server (scripts/setup-services.sh)")
    subprocess.run(command, check=True, capture_output=True)
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while not pidfile.is_file() or not pidfile.read_text().strip():
        if time.monotonic() > deadline:
            raise ClusterError(f"redis did not start on port {port}; see {folder / 'redis.log'}")
        time.sleep(0.05)
    return int(pidfile.read_text().strip())


def _wait_until_ready(workers: list[WorkerProcess]) -> None:
    """Until each worker's log says celery is ready (it has connected to the broker)."""
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    waiting = list(workers)
    while waiting:
        for worker in list(waiting):
            if not running(worker.pid):
                raise ClusterError(f"worker {worker.name} exited; see {worker.log}")
            if " ready." in Path(worker.log).read_text(errors="replace"):
                waiting.remove(worker)
        if waiting and time.monotonic() > deadline:
            raise ClusterError(f"workers not ready after {START_TIMEOUT_SECONDS} s: {[w.log for w in waiting]}")
        time.sleep(0.2)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")

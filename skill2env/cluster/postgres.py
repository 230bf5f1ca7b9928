"""A Postgres server of the machine's own installation, in a directory of ours, for a local cluster
(the DuckLake catalog and Dagster's instance) and for the tests of both.

Postgres refuses to run as root; as root the server runs as the `postgres` account the Debian
package creates, and owns its directory.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from skill2env.cluster.errors import ClusterError

SERVICE_ACCOUNT = "postgres"
START_TIMEOUT_SECONDS = 60
DEBIAN_SERVERS = "/usr/lib/postgresql"


class PostgresUnavailableError(ClusterError):
    """No Postgres server programs on this machine, or the server would not start."""


def server_bin_dir() -> Path:
    """Where `initdb` and `pg_ctl` are: `$SKILL2ENV_PG_BIN`, else PATH, else Debian's newest version."""
    configured = os.environ.get("SKILL2ENV_PG_BIN")
    if configured:
        return Path(configured)
    on_path = shutil.which("pg_ctl")
    if on_path:
        return Path(on_path).parent
    installed = sorted(Path(DEBIAN_SERVERS).glob("*/bin/pg_ctl"), key=lambda p: int(p.parts[-3]))
    if not installed:
        raise PostgresUnavailableError("no Postgres server found: apt-get install postgresql (or set SKILL2ENV_PG_BIN)")
    return installed[-1].parent


@dataclass(frozen=True)
class LocalPostgres:
    """A server whose data directory is `root/data`, listening on 127.0.0.1:`port`, trusting local users."""

    root: Path
    port: int
    user: str = "postgres"

    @property
    def data_dir(self) -> Path:
        return self.root / "data"

    @property
    def log_path(self) -> Path:
        return self.root / "postgres.log"

    def dsn(self, database: str) -> str:
        """libpq key/value form (the DuckLake catalog's connection string)."""
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={database}"

    def url(self, database: str) -> str:
        """URL form (Dagster's `postgres_url`)."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def running(self) -> bool:
        return self._pg_ctl("status", check=False).returncode == 0

    def start(self) -> None:
        """Create the cluster on first use, then start it (no-op when it already runs)."""
        self.root.mkdir(parents=True, exist_ok=True)
        _give_to_service_account(self.root)
        if not (self.data_dir / "PG_VERSION").is_file():
            self._run(
                [
                    str(server_bin_dir() / "initdb"),
                    "-D",
                    str(self.data_dir),
                    "-A",
                    "trust",
                    "-U",
                    self.user,
                    "--no-sync",
                ]
            )
        if self.running():
            return
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        result = self._pg_ctl(
            "start", "-w", "-t", str(START_TIMEOUT_SECONDS), "-l", str(self.log_path), "-o", options, check=False
        )
        if result.returncode != 0:
            tail = self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""
            raise PostgresUnavailableError(f"postgres on port {self.port} did not start: {result.stderr}{tail}")

    def stop(self) -> None:
        if self.data_dir.is_dir() and self.running():
            self._pg_ctl("stop", "-m", "fast", "-w")

    def create_database(self, name: str) -> None:
        """Create database `name` unless it exists."""
        exists = self.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'").strip()
        if not exists:
            self.psql(f'CREATE DATABASE "{name}"')

    def psql(self, sql: str, database: str = "postgres") -> str:
        psql = shutil.which("psql") or str(server_bin_dir() / "psql")
        command = [psql, "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user, "-d", database, "-tAc", sql]
        return subprocess.run(command, check=True, capture_output=True, text=True).stdout

    def _pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self._run([str(server_bin_dir() / "pg_ctl"), "-D", str(self.data_dir), *args], check=check)

    def _run(self, command: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
        if os.geteuid() == 0:
            command = ["runuser", "-u", SERVICE_ACCOUNT, "--", *command]
        try:
            return subprocess.run(
                command, check=check, capture_output=True, text=True, timeout=START_TIMEOUT_SECONDS * 2
            )
        except subprocess.CalledProcessError as exc:
            raise PostgresUnavailableError(f"{' '.join(command)} failed: {exc.stderr.strip()}") from exc


def _give_to_service_account(root: Path) -> None:
    if os.geteuid() != 0:
        return
    try:
        account = pwd.getpwnam(SERVICE_ACCOUNT)
    except KeyError as exc:
        raise PostgresUnavailableError(
            f"running as root needs the {SERVICE_ACCOUNT!r} account (apt-get install postgresql)"
        ) from exc
    os.chown(root, account.pw_uid, account.pw_gid)

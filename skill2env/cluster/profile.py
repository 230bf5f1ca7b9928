"""Profiles: `embedded` (one DuckDB file, Dagster on SQLite, local sandboxes; the default) or `cluster`
(DuckLake on Postgres and shared storage, Dagster on Postgres with celery workers, a pool of Docker
engines), chosen by `$SKILL2ENV_PROFILE`, else by whether `$SKILL2ENV_HOME/cluster.toml` exists.

`cluster.toml` (`skill2env cluster up` writes one for a local cluster; docs in the README's "Scaling out"):

    [lake]                       # required
    catalog = "host=db.internal port=5432 dbname=skill2env_lake user=skill2env"   # libpq string
    data_path = "/mnt/shared/skill2env/lake"                                     # or s3://bucket/prefix

    [dagster]                    # optional: without it, Dagster's instance stays on SQLite in the home
    postgres_url = "postgresql://skill2env@db.internal:5432/skill2env_dagster"

    [celery]                     # optional: without it, steps run in local processes
    broker = "redis://queue.internal:6379/0"

    [[sandbox.hosts]]            # optional: without them, this machine's engine
    url = "tcp://sandbox-1.internal:2376"
    slots = 8
    tls_cert_dir = "/etc/skill2env/docker-certs"   # optional: ca.pem, cert.pem, key.pem
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from skill2env.home import Home
from skill2env.lake.ducklake import DuckLakeCatalog

PROFILE_VARIABLE = "SKILL2ENV_PROFILE"
EMBEDDED, CLUSTER = "embedded", "cluster"
CLUSTER_CONFIG = "cluster.toml"
DEFAULT_HOST_SLOTS = 4


class ProfileError(ValueError):
    """An unknown profile, or a `cluster.toml` that is missing or not valid."""


@dataclass(frozen=True)
class SandboxHost:
    """One Docker engine of the pool."""

    url: str
    slots: int = DEFAULT_HOST_SLOTS
    tls_cert_dir: str | None = None


@dataclass(frozen=True)
class ClusterSettings:
    lake: DuckLakeCatalog
    dagster_postgres_url: str | None = None
    celery_broker: str | None = None
    sandbox_hosts: tuple[SandboxHost, ...] = ()


def cluster_config_path(home: Home) -> Path:
    return home.root / CLUSTER_CONFIG


def active_profile(home: Home) -> str:
    chosen = os.environ.get(PROFILE_VARIABLE) or (CLUSTER if cluster_config_path(home).is_file() else EMBEDDED)
    if chosen not in (EMBEDDED, CLUSTER):
        raise ProfileError(f"${PROFILE_VARIABLE} must be {EMBEDDED!r} or {CLUSTER!r}, not {chosen!r}")
    return chosen


def cluster_settings(home: Home) -> ClusterSettings | None:
    """The cluster's settings when the cluster profile is active, else None."""
    if active_profile(home) == EMBEDDED:
        return None
    path = cluster_config_path(home)
    if not path.is_file():
        raise ProfileError(f"the {CLUSTER} profile needs {path} (`skill2env cluster up` writes one for this machine)")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    return parse_cluster_settings(raw, source=str(path))


def parse_cluster_settings(raw: dict[str, Any], *, source: str) -> ClusterSettings:
    lake = _table(raw, "lake", source, required=True)
    dagster, celery, sandbox = (_table(raw, name, source) for name in ("dagster", "celery", "sandbox"))
    hosts = sandbox.get("hosts", [])
    if not isinstance(hosts, list):
        raise ProfileError(f"{source}: [[sandbox.hosts]] must be an array of tables")
    return ClusterSettings(
        lake=DuckLakeCatalog(_text(lake, "catalog", f"{source} [lake]"), _text(lake, "data_path", f"{source} [lake]")),
        dagster_postgres_url=_text(dagster, "postgres_url", f"{source} [dagster]") if dagster else None,
        celery_broker=_text(celery, "broker", f"{source} [celery]") if celery else None,
        sandbox_hosts=tuple(_host(entry, f"{source} [[sandbox.hosts]] #{i + 1}") for i, entry in enumerate(hosts)),
    )


def _host(entry: Any, where: str) -> SandboxHost:
    if not isinstance(entry, dict):
        raise ProfileError(f"{where}: must be a table")
    slots = entry.get("slots", DEFAULT_HOST_SLOTS)
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
        raise ProfileError(f"{where}: slots must be a whole number >= 1, not {slots!r}")
    cert_dir = entry.get("tls_cert_dir")
    if cert_dir is not None and not isinstance(cert_dir, str):
        raise ProfileError(f"{where}: tls_cert_dir must be a path")
    return SandboxHost(_text(entry, "url", where), slots, cert_dir)


def _table(raw: dict[str, Any], name: str, source: str, *, required: bool = False) -> dict[str, Any]:
    value = raw.get(name)
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        raise ProfileError(
            f"{source}: needs a [{name}] table" if value is None else f"{source}: [{name}] must be a table"
        )
    return value


def _text(table: dict[str, Any], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ProfileError(f"{where}: {key} must be a non-empty string")
    return value

"""Profiles: `embedded` (one DuckDB file, Dagster on SQLite, local sandboxes; the default) or `cluster`
(DuckLake on Postgres and shared storage, Dagster on Postgres with celery workers, a pool of Docker
engines), chosen by `$SKILL2ENV_PROFILE`, else by whether `$SKILL2ENV_HOME/cluster.toml` exists.

`cluster.toml` (`skill2env cluster up` writes one for a local cluster; docs in the README's "Scaling out"):

    [lake]                       # required
    catalog = "host=db.internal port=5432 dbname=skill2env_lake user=skill2env"   # libpq string
    data_path = "/mnt/shared/skill2env/lake"                                     # or s3://bucket/prefix

    [lake.s3]                    # optional, for an s3:// data_path: an S3-compatible store (default AWS);
    endpoint = "minio.internal:9000"   # credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment
    region = "us-east-1"
    url_style = "path"           # vhost (AWS) | path
    use_ssl = true

    [storage]                    # required with [celery]: what every worker must see (task store,
    path = "/mnt/shared/skill2env/data"   # trajectories, exports, pipeline settings); else the home

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

import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import yaml

from skill2env.home import CLUSTER, DAGSTER_YAML, EMBEDDED, Home, ProfileError
from skill2env.lake.ducklake import S3_SCHEME, URL_STYLES, DuckLakeCatalog, S3Settings
from skill2env.sandbox.hosts import DEFAULT_HOST_SLOTS, EngineHost

if TYPE_CHECKING:
    from skill2env.sandbox.engine_pool import EnginePool


@dataclass(frozen=True)
class ClusterSettings:
    lake: DuckLakeCatalog
    dagster_postgres_url: str | None = None
    celery_broker: str | None = None
    shared_storage: str | None = None
    sandbox_hosts: tuple[EngineHost, ...] = ()


def cluster_settings(home: Home) -> ClusterSettings | None:
    """The cluster's settings when the cluster profile is active, else None."""
    if home.profile == EMBEDDED:
        return None
    path = home.cluster_config
    if not path.is_file():
        raise ProfileError(f"the {CLUSTER} profile needs {path} (`skill2env cluster up` writes one for this machine)")
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    return parse_cluster_settings(raw, source=str(path))


def engine_pool_of(home: Home) -> EnginePool | None:
    """The cluster's Docker engines as a pool for docker rollouts, when `[[sandbox.hosts]]` names any."""
    settings = cluster_settings(home)
    if settings is None or not settings.sandbox_hosts:
        return None
    from skill2env.sandbox.engine_pool import EnginePool  # the Docker SDK only where docker runs

    return EnginePool(settings.sandbox_hosts)


def dagster_instance_yaml(home: Home) -> str | None:
    """The package's `dagster.yaml` with the instance's storage (runs, events, schedules, partitions,
    concurrency pools) on the cluster's Postgres, when `[dagster]` names one; else None (the default)."""
    settings = cluster_settings(home)
    if settings is None or settings.dagster_postgres_url is None:
        return None
    config = yaml.safe_load(DAGSTER_YAML.read_text(encoding="utf-8"))
    config["storage"] = {"postgres": {"postgres_url": _with_psycopg2(settings.dagster_postgres_url)}}
    header = "# skill2env's dagster.yaml with the storage on the cluster's Postgres ([dagster] in cluster.toml).\n"
    return header + yaml.safe_dump(config, sort_keys=False)


def _with_psycopg2(url: str) -> str:
    """dagster-postgres installs psycopg2, but SQLAlchemy 2.1 reads a bare `postgresql://` as psycopg 3."""
    scheme, separator, rest = url.partition("://")
    return f"postgresql+psycopg2://{rest}" if separator and scheme in ("postgresql", "postgres") else url


def parse_cluster_settings(raw: dict[str, Any], *, source: str) -> ClusterSettings:
    lake = _table(raw, "lake", source, required=True)
    dagster, celery, sandbox, storage = (
        _table(raw, name, source) for name in ("dagster", "celery", "sandbox", "storage")
    )
    if celery and not storage:
        raise ProfileError(f"{source}: [celery] workers each have their own home; they need [storage] path, "
                           "a directory all of them mount at the same place")  # fmt: skip
    hosts = sandbox.get("hosts", [])
    if not isinstance(hosts, list):
        raise ProfileError(f"{source}: [[sandbox.hosts]] must be an array of tables")
    return ClusterSettings(
        lake=_lake(lake, source),
        dagster_postgres_url=_text(dagster, "postgres_url", f"{source} [dagster]") if dagster else None,
        celery_broker=_text(celery, "broker", f"{source} [celery]") if celery else None,
        shared_storage=_text(storage, "path", f"{source} [storage]") if storage else None,
        sandbox_hosts=tuple(_host(entry, f"{source} [[sandbox.hosts]] #{i + 1}") for i, entry in enumerate(hosts)),
    )


def _lake(lake: dict[str, Any], source: str) -> DuckLakeCatalog:
    where = f"{source} [lake]"
    data_path = _text(lake, "data_path", where)
    s3 = _table(lake, "s3", where)
    if s3 and not data_path.startswith(S3_SCHEME):
        raise ProfileError(f"{where}: [lake.s3] is for an s3:// data_path, not {data_path!r}")
    return DuckLakeCatalog(_text(lake, "catalog", where), data_path, _s3(s3, f"{source} [lake.s3]") if s3 else None)


def _s3(table: dict[str, Any], where: str) -> S3Settings:
    unknown = set(table) - {"endpoint", "region", "url_style", "use_ssl"}
    if unknown:
        raise ProfileError(f"{where}: unknown keys {sorted(unknown)} (credentials come from AWS_ACCESS_KEY_ID and "
                           "AWS_SECRET_ACCESS_KEY in the environment)")  # fmt: skip
    endpoint, region = (_text(table, key, where) if key in table else None for key in ("endpoint", "region"))
    url_style = table.get("url_style", "vhost")
    if url_style not in URL_STYLES:
        raise ProfileError(f"{where}: url_style must be one of {', '.join(URL_STYLES)}, not {url_style!r}")
    use_ssl = table.get("use_ssl", True)
    if not isinstance(use_ssl, bool):
        raise ProfileError(f"{where}: use_ssl must be true or false")
    return S3Settings(endpoint=endpoint, region=region, url_style=url_style, use_ssl=use_ssl)


def _host(entry: Any, where: str) -> EngineHost:
    if not isinstance(entry, dict):
        raise ProfileError(f"{where}: must be a table")
    slots = entry.get("slots", DEFAULT_HOST_SLOTS)
    if not isinstance(slots, int) or isinstance(slots, bool) or slots < 1:
        raise ProfileError(f"{where}: slots must be a whole number >= 1, not {slots!r}")
    cert_dir = entry.get("tls_cert_dir")
    if cert_dir is not None and not isinstance(cert_dir, str):
        raise ProfileError(f"{where}: tls_cert_dir must be a path")
    return EngineHost(_text(entry, "url", where), slots, cert_dir)


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

"""The `cluster.toml` that `skill2env cluster up` writes is one the profile reads back as it was meant."""

from __future__ import annotations

import tomllib
from pathlib import Path

from skill2env.cluster.local import DAGSTER_DATABASE, LAKE_DATABASE, LocalCluster
from skill2env.cluster.postgres import LocalPostgres
from skill2env.cluster.profile import ClusterSettings, parse_cluster_settings
from skill2env.home import Home
from skill2env.lake.ducklake import DuckLakeCatalog
from skill2env.sandbox.hosts import EngineHost


def test_the_written_cluster_file_reads_back_as_the_cluster_that_was_started(tmp_path: Path) -> None:
    cluster = LocalCluster(Home(tmp_path / "home"))
    postgres = LocalPostgres(cluster.root / "postgres", 54321)
    hosts = [EngineHost("unix:///var/run/docker.sock", 2), EngineHost("tcp://127.0.0.1:23750", 2)]

    text = cluster.cluster_toml(postgres, 6380, hosts)

    shared = tmp_path / "home" / "cluster" / "shared"
    assert parse_cluster_settings(tomllib.loads(text), source="written") == ClusterSettings(
        lake=DuckLakeCatalog(f"host=127.0.0.1 port=54321 user=postgres dbname={LAKE_DATABASE}", f"{shared}/lake/"),
        dagster_postgres_url=f"postgresql://postgres@127.0.0.1:54321/{DAGSTER_DATABASE}",
        celery_broker="redis://127.0.0.1:6380/0",
        shared_storage=str(shared / "data"),
        sandbox_hosts=tuple(hosts),
    )


def test_down_without_a_cluster_only_takes_the_cluster_file_out(tmp_path: Path) -> None:
    cluster = LocalCluster(Home(tmp_path / "home"))
    cluster.home.root.mkdir()
    cluster.home.cluster_config.write_text("[lake]\n", encoding="utf-8")

    cluster.down(report=lambda _line: None)

    assert cluster.state() is None and not cluster.home.cluster_config.exists()

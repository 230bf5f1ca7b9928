"""Choosing the profile and reading `cluster.toml`: every mistake is named with its file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from skill2env.cluster.profile import (
    PROFILE_VARIABLE,
    ClusterSettings,
    ProfileError,
    SandboxHost,
    active_profile,
    cluster_settings,
)
from skill2env.home import Home
from skill2env.lake.ducklake import DuckLakeCatalog
from skill2env.lake.home_lake import lake_of

FULL = """
[lake]
catalog = "host=db port=5432 dbname=lake user=s2e password=hunter2"
data_path = "/mnt/shared/lake/"

[dagster]
postgres_url = "postgresql://s2e@db:5432/dagster"

[celery]
broker = "redis://queue:6379/0"

[[sandbox.hosts]]
url = "unix:///var/run/docker.sock"

[[sandbox.hosts]]
url = "tcp://sandbox-2:2376"
slots = 8
tls_cert_dir = "/etc/certs"
"""


def home_with(tmp_path: Path, text: str | None) -> Home:
    home = Home(tmp_path / "home")
    home.root.mkdir(parents=True)
    if text is not None:
        (home.root / "cluster.toml").write_text(text, encoding="utf-8")
    return home


def test_without_a_cluster_file_the_profile_is_embedded_and_the_lake_is_the_home_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROFILE_VARIABLE, raising=False)
    home = home_with(tmp_path, None)

    assert active_profile(home) == "embedded"
    assert cluster_settings(home) is None
    lake = lake_of(home)
    assert (lake.ducklake, lake.location) == (None, str(home.lake_path))


def test_a_cluster_file_selects_the_cluster_and_every_section_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROFILE_VARIABLE, raising=False)
    home = home_with(tmp_path, FULL)

    assert cluster_settings(home) == ClusterSettings(
        lake=DuckLakeCatalog("host=db port=5432 dbname=lake user=s2e password=hunter2", "/mnt/shared/lake/"),
        dagster_postgres_url="postgresql://s2e@db:5432/dagster",
        celery_broker="redis://queue:6379/0",
        sandbox_hosts=(
            SandboxHost("unix:///var/run/docker.sock", 4),
            SandboxHost("tcp://sandbox-2:2376", 8, "/etc/certs"),
        ),
    )
    assert lake_of(home).location == (
        "ducklake (catalog host=db port=5432 dbname=lake user=s2e password=***, data /mnt/shared/lake/)"
    )


def test_the_variable_overrides_the_file_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "embedded")
    assert cluster_settings(home_with(tmp_path, FULL)) is None

    monkeypatch.setenv(PROFILE_VARIABLE, "cluster")
    with pytest.raises(ProfileError, match=r"cluster profile needs .*cluster\.toml"):
        cluster_settings(home_with(tmp_path / "other", None))

    monkeypatch.setenv(PROFILE_VARIABLE, "k8s")
    with pytest.raises(ProfileError, match="must be 'embedded' or 'cluster', not 'k8s'"):
        active_profile(home_with(tmp_path / "third", None))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[dagster]\npostgres_url = 'x'\n", r"needs a \[lake\] table"),
        ("[lake]\ncatalog = 'x'\n", r"\[lake\]: data_path must be a non-empty string"),
        ("[lake]\ncatalog = ''\ndata_path = '/d'\n", r"\[lake\]: catalog must be a non-empty string"),
        ("lake = 3\n", r"\[lake\] must be a table"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[celery]\nbroker = 1\n", r"\[celery\]: broker must be"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[[sandbox.hosts]]\nurl = 'tcp://h'\nslots = 0\n",
         r"\[\[sandbox.hosts\]\] #1: slots must be a whole number >= 1, not 0"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[[sandbox.hosts]]\nslots = 2\n",
         r"\[\[sandbox.hosts\]\] #1: url must be a non-empty string"),
        ("[lake\n", r"cluster\.toml: "),
    ],
)  # fmt: skip
def test_a_wrong_cluster_file_names_the_file_and_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.delenv(PROFILE_VARIABLE, raising=False)
    with pytest.raises(ProfileError, match=message):
        cluster_settings(home_with(tmp_path, text))

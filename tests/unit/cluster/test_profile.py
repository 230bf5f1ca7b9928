"""Choosing the profile and reading `cluster.toml`: every mistake is named with its file and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from skill2env.cli import main
from skill2env.cluster.profile import ClusterSettings, cluster_settings
from skill2env.home import PROFILE_VARIABLE, Home, ProfileError
from skill2env.lake.ducklake import DuckLakeCatalog, S3Settings
from skill2env.lake.home_lake import lake_of
from skill2env.sandbox.hosts import EngineHost

FULL = """
[lake]
catalog = "host=db port=5432 dbname=lake user=s2e password=hunter2"
data_path = "/mnt/shared/lake/"

[dagster]
postgres_url = "postgresql://s2e@db:5432/dagster"

[celery]
broker = "redis://queue:6379/0"

[storage]
path = "/mnt/shared/data"

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

    assert home.profile == "embedded"
    assert cluster_settings(home) is None
    assert home.data_root == home.root
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
        shared_storage="/mnt/shared/data",
        sandbox_hosts=(
            EngineHost("unix:///var/run/docker.sock", 4),
            EngineHost("tcp://sandbox-2:2376", 8, "/etc/certs"),
        ),
    )
    assert home.data_root == Path("/mnt/shared/data")
    assert home.pipeline_config == Path("/mnt/shared/data/pipeline.toml")
    assert lake_of(home).location == (
        "ducklake (catalog host=db port=5432 dbname=lake user=s2e password=***, data /mnt/shared/lake/)"
    )


def test_the_variable_overrides_the_file_either_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "embedded")
    forced = home_with(tmp_path, FULL)
    assert cluster_settings(forced) is None
    assert forced.data_root == forced.root

    monkeypatch.setenv(PROFILE_VARIABLE, "cluster")
    with pytest.raises(ProfileError, match=r"cluster profile needs .*cluster\.toml"):
        cluster_settings(home_with(tmp_path / "other", None))

    monkeypatch.setenv(PROFILE_VARIABLE, "k8s")
    with pytest.raises(ProfileError, match="must be 'embedded' or 'cluster', not 'k8s'"):
        _ = home_with(tmp_path / "third", None).profile


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[dagster]\npostgres_url = 'x'\n", r"needs a \[lake\] table"),
        ("[lake]\ncatalog = 'x'\n", r"\[lake\]: data_path must be a non-empty string"),
        ("[lake]\ncatalog = ''\ndata_path = '/d'\n", r"\[lake\]: catalog must be a non-empty string"),
        ("lake = 3\n", r"\[lake\] must be a table"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[celery]\nbroker = 1\n[storage]\npath = '/s'\n",
         r"\[celery\]: broker must be"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[[sandbox.hosts]]\nurl = 'tcp://h'\nslots = 0\n",
         r"\[\[sandbox.hosts\]\] #1: slots must be a whole number >= 1, not 0"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[[sandbox.hosts]]\nslots = 2\n",
         r"\[\[sandbox.hosts\]\] #1: url must be a non-empty string"),
        ("[lake\n", r"cluster\.toml: "),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[celery]\nbroker = 'redis://q'\n",
         r"\[celery\] workers each have their own home; they need \[storage\] path"),
        ("[lake]\ncatalog = 'x'\ndata_path = '/d'\n[lake.s3]\nregion = 'eu'\n",
         r"\[lake\]: \[lake.s3\] is for an s3:// data_path, not '/d'"),
        ("[lake]\ncatalog = 'x'\ndata_path = 's3://b/'\n[lake.s3]\nsecret = 'k'\n",
         r"\[lake.s3\]: unknown keys \['secret'\] \(credentials come from AWS_ACCESS_KEY_ID"),
        ("[lake]\ncatalog = 'x'\ndata_path = 's3://b/'\n[lake.s3]\nurl_style = 'dns'\n",
         r"\[lake.s3\]: url_style must be one of vhost, path, not 'dns'"),
        ("[lake]\ncatalog = 'x'\ndata_path = 's3://b/'\n[lake.s3]\nuse_ssl = 'no'\n",
         r"\[lake.s3\]: use_ssl must be true or false"),
    ],
)  # fmt: skip
def test_a_wrong_cluster_file_names_the_file_and_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    monkeypatch.delenv(PROFILE_VARIABLE, raising=False)
    with pytest.raises(ProfileError, match=message):
        cluster_settings(home_with(tmp_path, text))


def test_run_in_the_cluster_profile_without_a_cluster_file_says_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Set, not deleted: `--profile` sets the variable in this process, and monkeypatch puts back only
    # what it changed (a delete of an unset variable records nothing to undo).
    monkeypatch.setenv(PROFILE_VARIABLE, "embedded")
    monkeypatch.setenv("SKILL2ENV_HOME", str(tmp_path / "another-home"))
    home = home_with(tmp_path, None)

    result = CliRunner().invoke(main, ["run", "--home", str(home.root), "--profile", "cluster"])

    assert result.exit_code == 2, result.output

    def unwrapped(text: str) -> str:  # the console wraps long lines, paths included, anywhere
        return "".join(text.split())

    assert unwrapped(f"the cluster profile needs {home.cluster_config}") in unwrapped(result.output)


def test_an_s3_data_path_reads_its_store_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROFILE_VARIABLE, raising=False)
    text = ("[lake]\ncatalog = 'host=db'\ndata_path = 's3://lake/data/'\n"
            "[lake.s3]\nendpoint = 'minio:9000'\nurl_style = 'path'\nuse_ssl = false\n")  # fmt: skip

    settings = cluster_settings(home_with(tmp_path, text))

    assert settings is not None and settings.lake.on_s3
    assert settings.lake.s3 == S3Settings(endpoint="minio:9000", url_style="path", use_ssl=False)

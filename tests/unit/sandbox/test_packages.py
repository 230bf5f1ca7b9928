"""Declared packages in a Dockerfile: the marked install lines split off for the packages stage, the
rest built on that stage; the host's package settings carried as files, local paths left out."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from skill2env.sandbox.packages import (
    BUILD_DIR,
    DECLARED,
    HostPackageConfig,
    declared_lines,
    npm_registry,
    split_declared,
    with_packages_stage,
)


def test_declared_lines_are_marked_sorted_and_deduplicated() -> None:
    lines = declared_lines(["tree", "jq", "tree"], ["tomli-w==1.0.0"], ["left-pad@1.3.0"])
    assert lines[0] == DECLARED
    assert "--no-install-recommends jq npm tree" in lines[1]  # npm packages need npm
    assert lines[2].endswith("pip install --no-cache-dir --break-system-packages tomli-w==1.0.0")
    assert lines[3].endswith("npm install --global --no-fund --no-audit left-pad@1.3.0")
    assert declared_lines([], []) == []


def test_the_marked_lines_split_off_and_the_rest_builds_on_the_stage() -> None:
    dockerfile = "\n".join(["FROM skill2env-base", *declared_lines(["tree"], ["six"]), "COPY skill/ /skills/x/",
                            "RUN echo kept", "WORKDIR /workspace"])  # fmt: skip
    split = split_declared(dockerfile)
    assert split is not None
    assert split.base == "skill2env-base"
    assert [i.split()[0] for i in split.installs] == ["apt-get", "python3"]
    rebuilt = with_packages_stage(split, "skill2env-packages:abc")
    assert rebuilt.splitlines() == ["FROM skill2env-packages:abc", "COPY skill/ /skills/x/", "RUN echo kept",
                                    "WORKDIR /workspace"]  # fmt: skip


def test_a_dockerfile_without_declared_packages_is_left_alone() -> None:
    assert split_declared("FROM skill2env-base\nRUN useradd agent\nCOPY a/ /a/\nRUN pip install -r /a/r.txt\n") is None


def test_the_host_settings_go_in_files_without_local_paths(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bundle = tmp_path / "ca.crt"
    bundle.write_text("-----BEGIN CERTIFICATE-----\n")
    monkeypatch.setenv("PIP_CERT", str(bundle))
    monkeypatch.setenv("PIP_INDEX_URL", "https://mirror.example/simple")
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", "file:///opt/wheels https://extra.example/simple")
    config = HostPackageConfig.of_host()
    assert config.environment["PIP_INDEX_URL"] == "https://mirror.example/simple"
    assert config.environment["PIP_EXTRA_INDEX_URL"] == "https://extra.example/simple"
    assert config.environment["PIP_CERT"] == f"{BUILD_DIR}/ca.crt"
    with tarfile.open(fileobj=io.BytesIO(config.files())) as archive:
        names = archive.getnames()
        env = (archive.extractfile(f"{Path(BUILD_DIR).name}/env") or io.BytesIO()).read().decode()
    assert sorted(names) == sorted(Path(BUILD_DIR).name + suffix for suffix in ("", "/env", "/ca.crt"))
    assert "export PIP_INDEX_URL=https://mirror.example/simple\n" in env and "file:" not in env


def test_unused_task_file_systems_are_reaped_but_not_the_current_base(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import os

    from skill2env.sandbox.rootfs import CURRENT_LINK, reap_rootfs

    monkeypatch.setenv("SKILL2ENV_ROOTFS_DIR", str(tmp_path))
    for name in ("base", "old-task", "fresh-task"):
        (tmp_path / name).mkdir()
    (tmp_path / CURRENT_LINK).symlink_to("base")
    for name in ("base", "old-task"):
        os.utime(tmp_path / name, (0, 0))
    assert reap_rootfs(idle_s=3600) == ["old-task"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "current", "fresh-task"]


def test_an_imported_dockerfiles_installs_before_its_first_copy_go_to_the_stage() -> None:
    dockerfile = (
        "FROM python:3.11-slim\nRUN pip install --no-cache-dir pypdf==4.2.0\nRUN useradd agent\n"
        "WORKDIR /workspace\nCOPY workspace/ /workspace/\nRUN pip install -r /workspace/requirements.txt\n"
    )
    split = split_declared(dockerfile)
    assert split is not None and split.installs == ["pip install --no-cache-dir pypdf==4.2.0"]
    assert "RUN useradd agent" in split.rest and "RUN pip install -r /workspace/requirements.txt" in split.rest


def test_npms_registry_is_the_hosts_and_reaches_the_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for variable in ("npm_config_registry", "NPM_CONFIG_REGISTRY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert npm_registry() == "https://registry.npmjs.org/"
    (tmp_path / ".npmrc").write_text("fund=false\nregistry = https://npm.mirror.example/\n")
    assert npm_registry() == "https://npm.mirror.example/"
    assert HostPackageConfig.of_host().environment["NPM_CONFIG_REGISTRY"] == "https://npm.mirror.example/"
    monkeypatch.setenv("npm_config_registry", "https://other.example/npm/")
    assert npm_registry() == "https://other.example/npm/"

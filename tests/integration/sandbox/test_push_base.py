"""`skill2env sandbox push-base REGISTRY` against a real registry (Debian's `docker-registry`) on
loopback: the reference it prints is the registry's own digest of the pushed manifest, and tasks
exported with `--base-image REF` are clean under every `harbor lint` rule."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from harbor_client import harbor_cli
from harbor_tasks import require_backend
from task_samples import billing_draft

from skill2env.sandbox.base_image import BASE_IMAGE_REPOSITORY, BaseImageRecipe
from skill2env.sandbox.cli import sandbox
from skill2env.tasks.export import export_tasks
from skill2env.tasks.store import TaskStore

pytestmark = [pytest.mark.docker, pytest.mark.slow]
MANIFEST_TYPES = (
    "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.oci.image.index.v1+json"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    require_backend("docker")
    address = f"127.0.0.1:{_free_port()}"
    config = tmp_path / "registry.yml"
    config.write_text(
        f"version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path / 'data'}\nhttp:\n  addr: {address}\n"
    )
    server = subprocess.Popen(["docker-registry", "serve", str(config)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"http://{address}/v2/", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail(f"the registry on {address} did not answer")
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_push_base_prints_the_registry_digest_and_exports_lint_clean_under_every_rule(
    registry: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(sandbox, ["push-base", registry], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    reference = result.output.strip().splitlines()[-1]

    tag = BaseImageRecipe().tag.split(":", 1)[1]
    request = urllib.request.Request(f"http://{registry}/v2/{BASE_IMAGE_REPOSITORY}/manifests/{tag}",
                                     headers={"Accept": MANIFEST_TYPES}, method="HEAD")  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as answer:
        digest = answer.headers["Docker-Content-Digest"]
    assert reference == f"{registry}/{BASE_IMAGE_REPOSITORY}@{digest}"

    store = TaskStore(tmp_path / "home")
    stored = store.put_draft(billing_draft(), skill_dir=None)
    row = {"task_id": "t-i0", "task_name": "t", "iteration": 0, "task_digest": stored.digest,
           "store_path": stored.relative_path}  # fmt: skip
    [exported] = export_tasks([row], store, tmp_path / "out", base_image=reference)
    assert (exported.path / "environment" / "Dockerfile").read_text().startswith(f"FROM {reference}\n")
    linted = harbor_cli("lint", "--json", "--select", "ALL", exported.path)
    assert linted.returncode == 0, linted.stderr
    assert json.loads(linted.stdout) == []

"""`LocalComposeEnvironment`: Harbor's docker environment on an engine with only Compose v1.

Harbor 0.25's `docker` environment drives `docker compose` (the v2 CLI plugin) and enforces
`network_mode = "no-network"` with an egress-control sidecar whose images (alpine, the sidecar's
base) come from a registry. Neither is available here: Debian bookworm ships `docker-compose` 1.29
(the Python v1 CLI) and no registry can be reached. This subclass keeps every step of Harbor's own
orchestration (build, up, exec, uploads, downloads, artifacts, down) and changes only the dialect:

* the compose frontend is `docker-compose` (v1) through Harbor's own `ContainerRuntime` switch:
  no `up --wait` (Harbor then polls `exec true` until the container answers, as it does for
  Podman), no `compose cp`: downloads use `docker cp` (Harbor's own fallback), uploads go straight
  to Harbor's tar stream through `exec` (its fallback when `compose cp` fails);
* `exec` always gets `-T`: v1 allocates a TTY by default and fails with "the input device is
  not a TTY" when stdin is not one (v2 turns the TTY off by itself);
* `no-network` is enforced with Harbor's own overlay `docker-compose-no-network.yaml`
  (`network_mode: none` on `main`), the one its cloud providers use, instead of the sidecar.
  Only `no-network` and `public` are accepted; an allowlist is still rejected.

Harbor loads it with `harbor run -e harbor_support.environment:LocalComposeEnvironment` when
`tests/` is on PYTHONPATH (see `tests/harbor_client.py`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from harbor.environments.base import ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.docker import COMPOSE_NO_NETWORK_PATH
from harbor.environments.docker.docker import DockerEnvironment
from harbor.environments.docker.runtime import ContainerRuntime

COMPOSE_V1 = os.environ.get("SKILL2ENV_DOCKER_COMPOSE", "docker-compose")

COMPOSE_V1_RUNTIME = ContainerRuntime(
    engine=("docker",),
    compose=(COMPOSE_V1,),
    supports_compose_wait=False,
    supports_compose_cp=False,
    supports_compose_project_directory=True,
)


class LocalComposeEnvironment(DockerEnvironment):
    """Harbor's DockerEnvironment on `docker-compose` v1, with `no-network` as `network_mode: none`."""

    @classmethod
    def runtime(cls) -> ContainerRuntime:
        return COMPOSE_V1_RUNTIME

    @classmethod
    def _egress_control_kernel_support(cls) -> bool:
        # The probe runs an alpine container: never pulled here. No sidecar: see the module docstring.
        return False

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        # `network_mode: none` is enforced for the main service (below), never an allowlist.
        return super().capabilities.model_copy(update={"disable_internet": True})

    @property
    def _docker_compose_paths(self) -> list[Path]:
        paths = list(super()._docker_compose_paths)
        if self._network_disabled:
            paths.append(COMPOSE_NO_NETWORK_PATH)
        return paths

    async def upload_file(self, source_path: Path | str, target_path: str) -> None:
        await self._platform._upload_file_with_tar(source_path, target_path)

    async def upload_dir(self, source_dir: Path | str, target_dir: str) -> None:
        await self._platform._upload_dir_with_tar(source_dir, target_dir)

    async def _run_docker_compose_command(self, command: list[str], *args: Any, **kwargs: Any) -> ExecResult:
        if command[:1] == ["exec"] and command[1:2] != ["-T"]:
            command = ["exec", "-T", *command[1:]]
        return await super()._run_docker_compose_command(command, *args, **kwargs)

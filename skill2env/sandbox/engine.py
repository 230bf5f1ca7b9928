"""The Docker engine: connect to it, start `dockerd` where it is installed but not running."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import docker
from docker.errors import DockerException
from docker.tls import TLSConfig
from pydantic import BaseModel

from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.hosts import EngineHost

DEFAULT_CLIENT_TIMEOUT_S = 120.0
DOCKERD_LOG = Path("/var/log/skill2env-dockerd.log")
START_HINT = "run `make sandbox` (scripts/setup-sandbox.sh) or `skill2env sandbox doctor` for what is missing"


def docker_client(*, timeout: float = DEFAULT_CLIENT_TIMEOUT_S) -> docker.DockerClient:
    """A client for the engine `$DOCKER_HOST` (default: the local socket) names, API version negotiated.

    Raises:
        SandboxUnavailable: no engine answers.
    """
    try:
        client = docker.from_env(timeout=int(timeout))
        client.ping()
    except DockerException as exc:
        raise SandboxUnavailable(f"the Docker engine is not reachable ({exc}); {START_HINT}") from exc
    return client


def engine_client(host: EngineHost, *, timeout: float = DEFAULT_CLIENT_TIMEOUT_S) -> docker.DockerClient:
    """A client for one engine of a pool (`EngineHost`), TLS where the host names its certificates."""
    tls: TLSConfig | bool = False
    if host.tls_cert_dir:
        certs = Path(host.tls_cert_dir)
        tls = TLSConfig(client_cert=(str(certs / "cert.pem"), str(certs / "key.pem")), ca_cert=str(certs / "ca.pem"),
                        verify=True)  # fmt: skip
    return docker.DockerClient(base_url=host.url, tls=tls, timeout=int(timeout), version="auto")


def engine_reachable() -> bool:
    try:
        docker_client(timeout=5).close()
    except SandboxUnavailable:
        return False
    return True


def start_dockerd(*, log_path: Path = DOCKERD_LOG, wait_s: float = 60.0) -> None:
    """Start `dockerd` in the background (detached from this process) and wait until it answers.

    Raises:
        SandboxUnavailable: `dockerd` is not installed, this process is not root, or it never answered.
    """
    if engine_reachable():
        return
    binary = shutil.which("dockerd")
    if binary is None:
        raise SandboxUnavailable("dockerd is not installed; `apt-get install docker.io` (scripts/setup-sandbox.sh)")
    if os.geteuid() != 0:
        raise SandboxUnavailable("starting dockerd needs root; run scripts/setup-sandbox.sh as root")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        subprocess.Popen([binary], stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if engine_reachable():
            return
        time.sleep(0.5)
    raise SandboxUnavailable(f"dockerd did not answer within {wait_s:.0f} s; see {log_path}")


class Check(BaseModel):
    """One line of `skill2env sandbox doctor`."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    """What to do when it is not ok."""


def doctor() -> list[Check]:
    """What this machine offers each backend, and what to do about what is missing."""
    from skill2env.sandbox.base_image import BaseImageRecipe, find_base_image
    from skill2env.sandbox.bwrap_backend import bwrap_installed

    setup = "run `make sandbox` (scripts/setup-sandbox.sh) as root"
    checks = [
        _tool_check("dockerd", "apt-get install docker.io"),
        _tool_check("debootstrap", "apt-get install debootstrap"),
    ]
    client = None
    try:
        client = docker_client(timeout=10)
        version = client.version()
        checks.append(Check(name="docker engine", ok=True, detail=f"Docker {version.get('Version')} answers"))
    except SandboxUnavailable as exc:
        checks.append(Check(name="docker engine", ok=False, detail=str(exc).split(";")[0], fix=setup))
    if client is not None:
        recipe = BaseImageRecipe()
        image = find_base_image(client, recipe)
        checks.append(
            Check(
                name="base image",
                ok=image is not None,
                detail=f"{recipe.tag} ({image[:19]})" if image else f"{recipe.tag} is not built",
                fix="skill2env sandbox build-base",
            )
        )
        client.close()
    checks.append(
        Check(
            name="bubblewrap",
            ok=bwrap_installed() and _bwrap_runs(),
            detail=_version("bwrap") or "bwrap not installed",
            fix="apt-get install bubblewrap; unprivileged user namespaces must be allowed",
        )
    )
    checks += [_rootfs_check(), _auto_check()]
    root = os.geteuid() == 0
    checks.append(
        Check(
            name="root",
            ok=root,
            detail="running as root" if root else "not root: bwrap workspaces are not size-limited",
            fix="run as root to build the base image and to bound bwrap workspaces",
        )
    )
    return checks


def _rootfs_check() -> Check:
    """The file system bwrap runs over: the unpacked base image (or a configured root)."""
    from skill2env.sandbox.rootfs import BUILD_HINT, CONFIGURED_ROOT, configured_root, image_rootfs, missing_rootfs

    configured, image = configured_root(), image_rootfs()
    if configured is not None:
        detail = f"{configured} (${CONFIGURED_ROOT})"
    elif image is not None:
        detail = f"the base image's, unpacked at {image}"
    else:
        detail = missing_rootfs().split(";")[0]
    return Check(name="bwrap file system", ok=(configured or image) is not None, detail=detail, fix=BUILD_HINT)


def _auto_check() -> Check:
    """Which backend `--backend auto` runs, and why."""
    from skill2env.sandbox.backends import AUTO, choose_backend
    from skill2env.sandbox.rootfs import BUILD_HINT

    try:
        choice = choose_backend(AUTO)
    except SandboxUnavailable as exc:
        return Check(name="--backend auto", ok=False, detail=str(exc), fix=f"{BUILD_HINT}, or start the Docker engine")
    fallback = " (a fallback: bwrap would be faster)" if choice.fallback else ""
    return Check(name="--backend auto", ok=True, detail=f"runs {choice.name}{fallback}: {choice.reason}")


def _tool_check(tool: str, fix: str) -> Check:
    path = shutil.which(tool)
    return Check(name=tool, ok=path is not None, detail=path or f"{tool} not installed", fix=fix)


def _version(tool: str) -> str:
    if shutil.which(tool) is None:
        return ""
    completed = subprocess.run([tool, "--version"], capture_output=True, text=True, check=False)
    return completed.stdout.strip().splitlines()[0] if completed.stdout.strip() else ""


def _bwrap_runs() -> bool:
    """Whether bwrap can create the namespaces a sandbox needs here (user namespaces may be forbidden)."""
    probe = ["bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"]
    probe += ["--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0

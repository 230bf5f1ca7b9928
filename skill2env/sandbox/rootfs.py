"""The base image's file system, unpacked for bwrap: the same tools in both backends.

A bwrap sandbox runs programs from a read-only "system root". Tasks need what the docker base
image bakes in (pandas, openpyxl, pypdf, tesseract, poppler…). `export_base_rootfs` unpacks the
base image once per image id under the user's cache; `system_root()` picks it up, so a task
behaves the same in docker and in bwrap, and the host's Python never leaks into a rollout. Where
it is missing, `system_root()` raises rather than run over the host's own `/`.
"""

from __future__ import annotations

import os
import shutil
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from skill2env.sandbox.errors import SandboxUnavailable

if TYPE_CHECKING:  # the bwrap backend imports this module: it must work without the docker SDK
    import docker

    from skill2env.sandbox.task import TaskDir

COMPLETE_MARKER = ".skill2env-complete"
CURRENT_LINK = "current"
OWN_FILES_ONLY = frozenset({"FROM", "COPY", "WORKDIR", "ENV", "LABEL", "USER"})
"""Dockerfile instructions that only place the task's files over the base image: bwrap does the same."""
TASK_ROOTFS_IDLE_S = 24 * 3600
"""An unpacked task image's file system unused this long is removed by the reaper."""


def rootfs_cache() -> Path:
    """`$SKILL2ENV_ROOTFS_DIR`; as root `/var/cache/skill2env/rootfs` (sandboxes run as another uid, which
    cannot enter root's home); else `$XDG_CACHE_HOME/skill2env/rootfs` (default `~/.cache/…`)."""
    configured = os.environ.get("SKILL2ENV_ROOTFS_DIR")
    if configured:
        return Path(configured)
    if os.geteuid() == 0:
        return Path("/var/cache/skill2env/rootfs")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "skill2env" / "rootfs"


BUILD_HINT = "run `make sandbox` (as root) or `skill2env sandbox build-base`"
"""What makes the base image's file system (its build ends by unpacking it)."""
CONFIGURED_ROOT = "SKILL2ENV_BWRAP_SYSTEM"
"""A system root chosen by the user instead of the unpacked base image."""


def image_rootfs() -> Path | None:
    """The unpacked base image, when one is complete under `rootfs_cache()`."""
    current = rootfs_cache() / CURRENT_LINK
    if (current / COMPLETE_MARKER).is_file():
        return current.resolve()
    return None


def configured_root() -> Path | None:
    """`$SKILL2ENV_BWRAP_SYSTEM`, when set."""
    configured = os.environ.get(CONFIGURED_ROOT)
    return Path(configured) if configured else None


def missing_rootfs() -> str:
    """What is missing when there is no system root for bwrap, and what to do about it."""
    return (
        f"bwrap runs over the base image's unpacked file system, and there is none: "
        f"{rootfs_cache() / CURRENT_LINK / COMPLETE_MARKER} is missing; {BUILD_HINT} to unpack it "
        f"(or set {CONFIGURED_ROOT} to a system root of your own)"
    )


def system_root() -> Path:
    """What bwrap sandboxes run programs from: `$SKILL2ENV_BWRAP_SYSTEM`, else the unpacked base image.

    Raises:
        SandboxUnavailable: neither is there (never the host's `/`: its tools are not the image's).
    """
    root = configured_root() or image_rootfs()
    if root is None:
        raise SandboxUnavailable(missing_rootfs())
    return root


def export_base_rootfs(client: docker.DockerClient, image: str | None = None) -> Path:
    """Unpack `image`'s (default: the base image's) file system (once) and make it current."""
    from skill2env.sandbox.base_image import BASE_IMAGE

    target = export_rootfs(client, image or BASE_IMAGE)
    current = rootfs_cache() / CURRENT_LINK
    temporary = current.with_name(f".{CURRENT_LINK}-{os.getpid()}")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(target.name)
    temporary.replace(current)
    return target


def export_rootfs(client: docker.DockerClient, image: str) -> Path:
    """`image`'s file system unpacked under `rootfs_cache()/<image id>`, once per image id."""
    image_id = (client.images.get(image).id or "").removeprefix("sha256:")[:16]
    target = rootfs_cache() / image_id
    if not (target / COMPLETE_MARKER).is_file():
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        scratch = Path(tempfile.mkdtemp(prefix=f".{image_id}-", dir=target.parent))
        scratch.chmod(0o755)  # the image's / is world-readable; mkdtemp's 0700 would hide it from sandboxes
        container = client.containers.create(image, command=["true"], network_disabled=True)
        try:
            _unpack(container.export(), scratch)
        finally:
            container.remove(force=True)
        (scratch / COMPLETE_MARKER).write_text(image + "\n")
        _move_into_place(scratch, target)
    os.utime(target)  # last use, for the reaper
    return target


def _move_into_place(scratch: Path, target: Path) -> None:
    """`scratch` becomes `target`, complete or absent (a crash leaves only a hidden scratch folder).
    Another process that unpacked the same image first wins: its copy may be in use, so it stays."""
    try:
        scratch.rename(target)
        return
    except OSError:  # `target` is there and not empty
        if (target / COMPLETE_MARKER).is_file():
            shutil.rmtree(scratch, ignore_errors=True)
            return
    shutil.rmtree(target, ignore_errors=True)  # an incomplete copy of an older version: nobody runs over it
    scratch.rename(target)


def needs_own_image(task: TaskDir) -> bool:
    """Whether the task's environment is more than the base image with its files copied in: its
    Dockerfile starts from another image or runs steps of its own (declared packages)."""
    from skill2env.sandbox.base_image import BASE_IMAGE, BASE_IMAGE_REPOSITORY

    if not task.dockerfile.is_file():
        return bool(task.config.environment.docker_image)
    for line in task.dockerfile.read_text(errors="replace").splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        instruction = words[0].upper()
        if (instruction == "FROM" and words[1:2] not in ([BASE_IMAGE], [BASE_IMAGE_REPOSITORY])) or (
            instruction not in OWN_FILES_ONLY
        ):
            return True
    return False


def task_rootfs(task: TaskDir, *, log: Callable[[str], None] | None = None) -> Path:
    """The file system of `task`'s own image (built when missing), unpacked for bwrap.

    Raises:
        SandboxUnavailable: no Docker engine to build or export the image with.
    """
    try:
        import docker
        from docker.errors import DockerException

        client = docker.from_env()
        client.ping()
    except (ImportError, DockerException) as exc:
        raise SandboxUnavailable(
            f"task {task.name} installs its own environment; bwrap runs over that environment's file system, "
            f"exported from the task's image, and building it needs a Docker engine: {exc}"
        ) from exc
    from skill2env.sandbox.images import ensure_task_image

    return export_rootfs(client, ensure_task_image(client, task, log=log))


def reap_rootfs(keep: Path | None = None, *, idle_s: float = TASK_ROOTFS_IDLE_S) -> list[str]:
    """Remove unpacked task file systems unused for `idle_s` (never the current base one, nor `keep`)."""
    cache = rootfs_cache()
    if not cache.is_dir():
        return []
    current = (cache / CURRENT_LINK).resolve() if (cache / CURRENT_LINK).exists() else None
    removed = []
    for entry in cache.iterdir():
        if entry.is_symlink() or not entry.is_dir() or entry in (current, keep) or entry.name.startswith("."):
            continue
        try:
            idle = time.time() - entry.stat().st_mtime
        except OSError:
            continue
        if idle > idle_s:
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry.name)
    return removed


class _Stream:
    """A file-like reader over the docker SDK's chunk iterator (tarfile's stream mode reads from it)."""

    def __init__(self, chunks: object) -> None:
        self._chunks = iter(chunks)  # type: ignore[call-overload]
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            try:
                self._buffer += next(self._chunks)
            except StopIteration:
                break
        if size < 0:
            data, self._buffer = self._buffer, b""
        else:
            data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data


def _unpack(chunks: object, destination: Path) -> None:
    with tarfile.open(fileobj=_Stream(chunks), mode="r|") as archive:  # type: ignore[call-overload]
        for member in archive:
            if member.isdev() or member.isfifo():
                continue  # bwrap mounts its own /dev
            archive.extract(member, destination, filter="tar" if os.geteuid() == 0 else "data")

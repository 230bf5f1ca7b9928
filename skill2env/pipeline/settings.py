"""Choices the pipeline makes when the user does not: the sandbox backend and the solver policy."""

from __future__ import annotations

import shutil

from skill2env.sandbox.backends import BackendName
from skill2env.sandbox.engine import engine_reachable
from skill2env.sandbox.rootfs import COMPLETE_MARKER, rootfs_cache

AUTO = "auto"


def resolve_backend(requested: str) -> BackendName:
    """`docker` / `bwrap` as asked; `auto`: bwrap when it and the unpacked base image are here (fast,
    same tools as docker), else docker when its engine answers, else bwrap on the host system."""
    if requested in ("docker", "bwrap"):
        return requested  # type: ignore[return-value]
    if requested != AUTO:
        raise ValueError(f"unknown sandbox backend {requested!r}: use auto, docker or bwrap")
    bwrap = shutil.which("bwrap") is not None and shutil.which("prlimit") is not None
    if bwrap and (rootfs_cache() / "current" / COMPLETE_MARKER).is_file():
        return "bwrap"
    if engine_reachable():
        return "docker"
    return "bwrap"

"""Choices the pipeline makes when the user does not: the sandbox backend and the solver policy."""

from __future__ import annotations

import logging

from skill2env.sandbox.backends import AUTO, BackendName, choose_backend

logger = logging.getLogger(__name__)


def resolve_backend(requested: str) -> BackendName:
    """`docker` / `bwrap` as asked; `auto`: bwrap over the unpacked base image when it is here, else
    docker when its engine answers (logged as a fallback; see `choose_backend`).

    Raises:
        SandboxUnavailable: `auto`, and neither backend can run here.
    """
    choice = choose_backend(requested)
    if choice.fallback:
        logger.warning("sandbox backend auto: %s (%s)", choice.name, choice.reason)
    elif requested == AUTO:
        logger.info("sandbox backend auto: %s (%s)", choice.name, choice.reason)
    return choice.name

"""Where docker sandboxes can run: one Docker engine and its share of a run's rollouts."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_HOST_SLOTS = 4


@dataclass(frozen=True)
class EngineHost:
    """One Docker engine: `unix:///var/run/docker.sock`, or `tcp://host:2376` (TLS when `tls_cert_dir`
    holds ca.pem, cert.pem and key.pem), running at most `slots` rollouts at once."""

    url: str
    slots: int = DEFAULT_HOST_SLOTS
    tls_cert_dir: str | None = None

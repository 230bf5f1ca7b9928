"""A pool of Docker engines for rollouts: each engine has a number of slots; a rollout takes a slot on
the engine with the most free ones, and gives it back when its sandbox stops.

An engine that stops answering is drained: it gets no new rollouts, and the rollouts it was running
end as `infra_error` (recorded, never scored) and run again on another engine (`RolloutRunner`).
The base image reaches an engine that lacks it from this machine's engine (`docker save` into
`docker load`, compared by image id); task images are then built there from the same recipe,
so they are the same by digest.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import docker
from docker.errors import DockerException, ImageNotFound

from skill2env.sandbox.base_image import BASE_IMAGE
from skill2env.sandbox.engine import docker_client, engine_client
from skill2env.sandbox.errors import SandboxUnavailable
from skill2env.sandbox.hosts import EngineHost

logger = logging.getLogger(__name__)

PING_TIMEOUT_S = 10


@dataclass
class _Engine:
    host: EngineHost
    client: docker.DockerClient
    busy: int = 0
    ready: bool = False
    """The base image is there (checked or loaded on first use)."""
    drained: str | None = None
    """Why it gets no more rollouts."""
    preparing: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class EngineLease:
    """A slot on one engine, held by one rollout."""

    host: EngineHost
    client: docker.DockerClient
    _release: Callable[[EngineLease], None] = field(repr=False)
    released: bool = False

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._release(self)


class EnginePool:
    def __init__(
        self,
        hosts: Sequence[EngineHost],
        *,
        client_factory: Callable[[EngineHost], docker.DockerClient] = engine_client,
        base_source: Callable[[], docker.DockerClient] | None = docker_client,
    ) -> None:
        """`base_source`: the engine the base image is copied from; None when every engine of the pool
        has it already (provisioned beforehand)."""
        if not hosts:
            raise ValueError("an engine pool needs at least one engine")
        self._engines = [_Engine(host, client_factory(host), ready=base_source is None) for host in hosts]
        self._base_source = base_source
        self._changed = threading.Condition()

    @property
    def slots(self) -> int:
        """Slots on the engines that are not drained."""
        return sum(e.host.slots for e in self._engines if e.drained is None)

    def drained(self) -> dict[str, str]:
        """url → why, for every drained engine."""
        return {e.host.url: e.drained for e in self._engines if e.drained is not None}

    def lease(self, *, timeout: float | None = None, prefer: Sequence[EngineHost | None] = ()) -> EngineLease:
        """A slot on the live engine with the most free slots (the first of `prefer` with a free slot,
        where one has: the engines holding a warm sandbox for the rollout); waits for one up to
        `timeout` seconds.

        Raises:
            SandboxUnavailable: every engine is drained, or none had a free slot in time.
        """
        with self._changed:
            while True:
                live = [e for e in self._engines if e.drained is None]
                if not live:
                    raise SandboxUnavailable(f"every Docker engine of the pool is drained: {self.drained()}")
                free = [e for e in live if e.busy < e.host.slots]
                if free:
                    preferred = [e for host in prefer for e in free if e.host == host]
                    engine = preferred[0] if preferred else max(free, key=lambda e: e.host.slots - e.busy)
                    engine.busy += 1
                    break
                if not self._changed.wait(timeout):
                    raise SandboxUnavailable(f"no free slot on the pool's {len(live)} engine(s) in {timeout} s")
        try:
            self._prepare(engine)
        except BaseException:
            self._give_back(engine)
            raise
        return EngineLease(engine.host, engine.client, self._release)

    def check(self, lease: EngineLease) -> bool:
        """Whether the lease's engine still answers; one that does not is drained. Called after a
        rollout ended as `infra_error`, to tell a lost engine from a lost sandbox."""
        engine = self._engine(lease.host)
        if engine.drained is not None:
            return False
        try:
            engine.client.ping()
            return True
        except (DockerException, OSError) as exc:
            self.drain(lease.host, f"stopped answering: {exc}")
            return False

    def drain(self, host: EngineHost, reason: str) -> None:
        with self._changed:
            engine = self._engine(host)
            if engine.drained is None:
                engine.drained = reason
                logger.warning("sandbox engine %s drained: %s", host.url, reason)
            self._changed.notify_all()

    def live_hosts(self) -> list[EngineHost]:
        """The engines not drained, each once per slot, interleaved (`a b a b a` for 3 + 2 slots)."""
        live = [e.host for e in self._engines if e.drained is None]
        most = max((host.slots for host in live), default=0)
        return [host for turn in range(most) for host in live if turn < host.slots]

    def clients(self) -> list[docker.DockerClient]:
        """The live engines' clients (to reap what killed runs left on each)."""
        return [e.client for e in self._engines if e.drained is None]

    def close(self) -> None:
        for engine in self._engines:
            engine.client.close()

    def _release(self, lease: EngineLease) -> None:
        self._give_back(self._engine(lease.host))

    def _give_back(self, engine: _Engine) -> None:
        with self._changed:
            engine.busy -= 1
            self._changed.notify_all()

    def _engine(self, host: EngineHost) -> _Engine:
        return next(e for e in self._engines if e.host == host)

    def prepare(self, host: EngineHost | None) -> None:
        """Give `host` the base image now, if it lacks it (what its first lease would do); a warm
        sandbox started there before any lease needs it. None (the local engine) has it already.

        Raises: SandboxUnavailable: the engine could not receive it (it is drained)."""
        if host is not None:
            self._prepare(self._engine(host))

    def _prepare(self, engine: _Engine) -> None:
        """The base image on the engine, loaded from this machine's engine when it is missing or differs."""
        if engine.ready:
            return
        with engine.preparing:  # the first rollouts on an engine wait for one transfer, not one each
            if engine.ready:
                return
            try:
                assert self._base_source is not None  # engines without a source start ready
                copy_base_image(self._base_source, engine.client)
            except (DockerException, OSError) as exc:
                self.drain(engine.host, f"could not receive the base image: {exc}")
                raise SandboxUnavailable(f"engine {engine.host.url}: {exc}") from exc
            engine.ready = True


def copy_base_image(source: Callable[[], docker.DockerClient], target: docker.DockerClient) -> bool:
    """Load the base image into `target` unless it has the same image (by id); True when it loaded."""
    origin = source()
    try:
        wanted = origin.images.get(BASE_IMAGE)
        try:
            if target.images.get(BASE_IMAGE).id == wanted.id:
                return False
        except ImageNotFound:
            pass
        # By name, so the archive carries that tag (the image's first tag may be a registry's); tagged
        # again by id in case the engine kept another. Streamed: never the whole image in memory.
        target.api.load_image(origin.api.get_image(BASE_IMAGE))
        target.images.get(str(wanted.id)).tag(BASE_IMAGE)
        logger.info("loaded %s (%s) into %s", BASE_IMAGE, wanted.id, target.api.base_url)
        return True
    finally:
        origin.close()

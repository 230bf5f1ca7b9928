"""What the service tests share: a fresh service on the seed-0 world, and `raises` without pytest."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

from skill2env.compoworld.service import Service
from skill2env.compoworld.universe import Universe, generate_universe

S = TypeVar("S", bound=Service)


def fresh(cls: type[S], seed: int = 0) -> tuple[S, Universe]:
    """The service with its fixture state of the universe of `seed`, and that universe."""
    universe = generate_universe(seed)
    return cls(cls.fixture(universe)), universe


@contextmanager
def raises(kind: type[BaseException], match: str | None = None) -> Iterator[None]:
    """Fail unless the block raises `kind` (with a message matching the regular expression `match`)."""
    try:
        yield
    except kind as exc:
        if match is not None and not re.search(match, str(exc)):
            raise AssertionError(f"{kind.__name__} raised, but {str(exc)!r} does not match {match!r}") from exc
        return
    raise AssertionError(f"{kind.__name__} was not raised")

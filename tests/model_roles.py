"""The scripted server as the pipeline's model roles, for runs in one home."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from llm_server import Scripted, ScriptedServer

from skill2env.home import Home


@contextmanager
def scripted_roles(respond: Callable[[dict[str, Any]], Scripted], home: Home, roles: tuple[str, ...]) -> Iterator[None]:
    """`respond` answers every role of `roles` (upper case: AUTHOR, SOLVER, …) for runs in `home`;
    the other roles stay unconfigured."""
    with ScriptedServer(respond) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("SKILL2ENV_HOME", str(home.root))
        patch.setenv("SKILL2ENV_LLM_BACKOFF_SECONDS", "0.001")
        for role in roles:
            patch.setenv(f"SKILL2ENV_LLM_{role}_BASE_URL", server.base_url)
            patch.setenv(f"SKILL2ENV_LLM_{role}_MODEL", "scripted-model")
        yield

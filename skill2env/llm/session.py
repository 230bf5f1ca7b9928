"""A set of role clients sharing one ledger and one call context (an asset's materialization).

session = LlmSession(LlmSettings.load(home), CallContext(asset_key="curated_skills", run_id=…))
if session.configured("curator"):
    client = session.client("curator")
…
session.flush(lake)        # the ledger rows, in one append (any `AppendLog`)
"""

from __future__ import annotations

import threading

from skill2env.lake.ports import AppendLog
from skill2env.llm.client import ModelClient, not_configured_message
from skill2env.llm.config import LlmSettings
from skill2env.llm.ledger import CallContext, Ledger


class LlmSession:
    def __init__(self, settings: LlmSettings, context: CallContext | None = None) -> None:
        self.settings = settings
        self.context = context or CallContext()
        self.ledger = Ledger()
        self._clients: dict[str, ModelClient] = {}
        self._lock = threading.Lock()

    def configured(self, role: str) -> bool:
        return self.settings.role(role).configured

    def why_not_configured(self, role: str) -> str:
        return not_configured_message(role)

    def client(self, role: str) -> ModelClient:
        """The role's client (one per session); raises `ModelNotConfigured` when it has no endpoint."""
        with self._lock:
            if role not in self._clients:
                client = ModelClient.for_role(self.settings, role, ledger=self.ledger, context=self.context)
                self._clients[role] = client
            return self._clients[role]

    def flush(self, log: AppendLog) -> int:
        """Write the buffered ledger rows to `llm_calls`; returns how many."""
        return self.ledger.flush(log)

    def close(self) -> None:
        with self._lock:
            for client in self._clients.values():
                client.close()

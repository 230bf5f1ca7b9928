"""The model endpoints as a Dagster resource: per-role clients bound to the running asset."""

from collections.abc import Iterator
from contextlib import contextmanager

import dagster as dg

from skill2env.home import Home
from skill2env.lake.lake import Lake
from skill2env.llm import CallContext, LlmSettings
from skill2env.llm.session import LlmSession


class LlmResource(dg.ConfigurableResource):
    """Model clients configured from `<home>/llm.toml` and `SKILL2ENV_LLM_*`; their ledger goes to the lake."""

    home: str = ""
    """skill2env home; '' means `$SKILL2ENV_HOME` or `./.skill2env`."""
    cache_mode: str = ""
    """read-write | read-only | off | replay-only; '' means `$SKILL2ENV_LLM_CACHE`, `llm.toml`, else read-write."""
    base_url: str = ""
    """For every role, over the configuration; '' keeps it."""
    model: str = ""
    """For every role, over the configuration; '' keeps it."""

    def settings(self) -> LlmSettings:
        return LlmSettings.load(
            Home.resolve(self.home or None),
            overrides={"base_url": self.base_url, "model": self.model},
            cache_mode=self.cache_mode or None,
        )

    @contextmanager
    def session(self, context: dg.AssetExecutionContext, lake: Lake) -> Iterator[LlmSession]:
        """Clients recording this asset, partition and run; the ledger is flushed to `lake` at the end."""
        session = LlmSession(self.settings(), call_context(context))
        try:
            yield session
        finally:
            session.close()
            written = session.flush(lake)
            if written:
                context.log.info(f"model calls recorded in llm_calls: {written}")


def call_context(context: dg.AssetExecutionContext) -> CallContext:
    keys = sorted(key.to_user_string() for key in context.selected_asset_keys)
    if context.has_partition_key_range:
        span = context.partition_key_range
        partition = span.start if span.start == span.end else f"{span.start}...{span.end}"
    else:
        partition = None
    return CallContext(asset_key=",".join(keys) or None, partition_key=partition, run_id=context.run.run_id,
                       narrate=context.log.info)  # fmt: skip

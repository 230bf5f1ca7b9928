"""The model client every role uses: OpenAI-compatible endpoints, structured output, tool calls,
retries, a content-addressed cache and the `llm_calls` ledger."""

from skill2env.llm.cache import CacheMode, ResponseCache
from skill2env.llm.client import ModelClient
from skill2env.llm.config import ROLES, LlmConfigError, LlmSettings, RoleConfig
from skill2env.llm.errors import (
    ModelCacheMiss,
    ModelError,
    ModelLooping,
    ModelNotConfigured,
    ModelOutputError,
    ModelOutputInvalid,
    ModelOverBudget,
    ModelRefused,
    ModelRequestRejected,
    ModelStalled,
    ModelTruncated,
    ModelUnavailable,
)
from skill2env.llm.flow import Structured, ToolTurn
from skill2env.llm.ledger import CallContext, Ledger
from skill2env.llm.prompts import Prompt, render
from skill2env.llm.tools import Tool, ToolCall, tool_result_message
from skill2env.llm.wire import Reply

__all__ = [
    "ROLES",
    "CacheMode",
    "CallContext",
    "Ledger",
    "LlmConfigError",
    "LlmSettings",
    "ModelCacheMiss",
    "ModelClient",
    "ModelError",
    "ModelLooping",
    "ModelNotConfigured",
    "ModelOutputError",
    "ModelOutputInvalid",
    "ModelOverBudget",
    "ModelRefused",
    "ModelRequestRejected",
    "ModelStalled",
    "ModelTruncated",
    "ModelUnavailable",
    "Prompt",
    "Reply",
    "ResponseCache",
    "RoleConfig",
    "Structured",
    "Tool",
    "ToolCall",
    "ToolTurn",
    "render",
    "tool_result_message",
]

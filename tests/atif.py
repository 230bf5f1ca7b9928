"""A checker of ATIF-v1.x trajectory documents (Harbor's RFC 0001, up to ATIF-v1.8): what a consumer relies on."""

from __future__ import annotations

from datetime import datetime
from typing import Any

ROOT_REQUIRED = {"schema_version", "session_id", "agent", "steps"}
ROOT_FIELDS = ROOT_REQUIRED | {"trajectory_id", "notes", "final_metrics", "continued_trajectory_ref", "extra",
                               "subagent_trajectories"}  # fmt: skip
STEP_FIELDS = {
    "step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content",
    "tool_calls", "observation", "metrics", "is_copied_context", "llm_call_count", "extra",
}  # fmt: skip
AGENT_ONLY = {"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}
METRICS_FIELDS = {
    "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd", "prompt_token_ids",
    "completion_token_ids", "logprobs", "extra",
}  # fmt: skip
FINAL_METRICS_FIELDS = {
    "total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd", "total_steps", "extra",
}  # fmt: skip


def atif_problems(document: dict[str, Any]) -> list[str]:
    """Every way `document` departs from the ATIF schema (empty when it conforms)."""
    problems = [f"missing root field {name}" for name in sorted(ROOT_REQUIRED - set(document))]
    problems += [f"unknown root field {name}" for name in sorted(set(document) - ROOT_FIELDS)]
    if not str(document.get("schema_version", "")).startswith("ATIF-v1."):
        problems.append(f"schema_version {document.get('schema_version')!r}")
    agent = document.get("agent") or {}
    problems += [f"agent.{name} missing" for name in ("name", "version") if not isinstance(agent.get(name), str)]
    problems += [
        f"unknown agent field {name}"
        for name in sorted(set(agent) - {"name", "version", "model_name", "tool_definitions", "extra"})
    ]
    final = document.get("final_metrics") or {}
    problems += [f"unknown final_metrics field {name}" for name in sorted(set(final) - FINAL_METRICS_FIELDS)]
    for index, step in enumerate(document.get("steps") or [], start=1):
        problems += [f"step {index}: {p}" for p in _step_problems(step, index)]
    return problems


def _step_problems(step: dict[str, Any], index: int) -> list[str]:
    problems = [f"unknown field {name}" for name in sorted(set(step) - STEP_FIELDS)]
    if step.get("step_id") != index:
        problems.append(f"step_id {step.get('step_id')} is not {index}")
    if step.get("source") not in ("system", "user", "agent"):
        problems.append(f"source {step.get('source')!r}")
    if not isinstance(step.get("message"), str):
        problems.append("message is not a string")
    if "timestamp" in step:
        try:
            datetime.fromisoformat(step["timestamp"])
        except (TypeError, ValueError):
            problems.append(f"timestamp {step['timestamp']!r} is not ISO 8601")
    if step.get("source") != "agent":
        problems += [f"{name} on a {step.get('source')} step" for name in sorted(AGENT_ONLY & set(step))]
    call_ids = set()
    for call in step.get("tool_calls") or []:
        if not {"tool_call_id", "function_name", "arguments"} <= set(call) <= {"tool_call_id", "function_name",
                                                                              "arguments", "extra"}:  # fmt: skip
            problems.append(f"tool call fields {sorted(call)}")
        if not isinstance(call.get("arguments"), dict):
            problems.append("tool call arguments are not an object")
        call_ids.add(call.get("tool_call_id"))
    observation = step.get("observation")
    if observation is not None:
        if set(observation) != {"results"}:
            problems.append(f"observation fields {sorted(observation)}")
        for result in observation.get("results") or []:
            if set(result) - {"source_call_id", "content", "subagent_trajectory_ref", "extra"}:
                problems.append(f"observation result fields {sorted(result)}")
            if result.get("source_call_id") is not None and result["source_call_id"] not in call_ids:
                problems.append(f"observation refers to unknown call {result['source_call_id']!r}")
    problems += [f"unknown metrics field {name}" for name in sorted(set(step.get("metrics") or {}) - METRICS_FIELDS)]
    return problems

"""The world model: how `simulated` tools (third-party APIs that cannot be implemented reliably)
are answered.

A `WorldModel` gets the tool's spec, the service's current state and the call's arguments and
returns the result and a state delta. The `Simulator` around it is what makes that safe:

* the arguments are validated against the tool's schema first (a bad call is the caller's error);
* the delta is a JSON merge patch (RFC 7386) of the state that may only touch the fields the tool
  declares in `writes`; the patched state must validate against the state schema, and the
  result against the result schema (or be a declared error, `{"$error": {"type", "message"}}`);
* an invalid answer is rejected and asked again, up to `max_attempts`, each retry told why the
  previous answers were rejected (`tool_spec["rejections"]`), so a cached model is not asked the
  same question twice;
* every attempt — accepted, rejected or unavailable — is logged as a `SimulationRecord`.

With no world model the call fails with `SimulatedToolUnavailable`, whose message says what to do.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from skill2env.compoworld.errors import ERRORS_BY_CODE, SimulatedToolUnavailable, SimulationFailed, ToolError
from skill2env.compoworld.service import BOOKKEEPING_FIELDS, Service, ToolSpec, format_validation_error

DEFAULT_ATTEMPTS = 3
ERROR_KEY = "$error"


@runtime_checkable
class WorldModel(Protocol):
    """Predicts what a simulated tool returns and how it changes the service's state."""

    def simulate(
        self, tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        """Return `(result, state_delta)`: the tool's JSON result (or `{"$error": {"type", "message"}}`
        with a type from the spec's errors) and a JSON merge patch of the state (`{}` for none).

        `tool_spec` is the tool's spec (`ToolSpec` as JSON) plus `state_schema` (the service's state
        JSON schema), `service_description`, and `rejections`: why earlier answers to this call were
        rejected (empty on the first attempt)."""
        ...


class SimulationRecord(BaseModel):
    """One attempt at answering a simulated call."""

    call_id: str
    called_at: datetime
    service: str
    tool: str
    arguments: dict[str, Any]
    attempt: int
    accepted: bool
    result: Any = None
    state_delta: dict[str, Any] | None = None
    error: str | None = None
    model: str = ""


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge key by key, `null` deletes a key, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


class Simulator:
    """Answers simulated calls through a world model, validating, retrying and logging."""

    def __init__(
        self,
        model: WorldModel | None,
        *,
        max_attempts: int = DEFAULT_ATTEMPTS,
        log: list[SimulationRecord] | None = None,
        model_name: str = "",
    ) -> None:
        self.model = model
        self.max_attempts = max_attempts
        self.log: list[SimulationRecord] = log if log is not None else []
        self.model_name = model_name or (str(getattr(model, "name", type(model).__name__)) if model is not None else "")

    @property
    def available(self) -> bool:
        return self.model is not None

    def run(self, service: Service, tool: str, arguments: Mapping[str, Any]) -> Any:
        """The simulated tool's JSON result; the service's state is updated by the accepted delta.

        Raises:
            InvalidArgument: the arguments do not fit the tool's schema.
            SimulatedToolUnavailable: no world model is configured.
            SimulationFailed: no valid answer within `max_attempts`.
            ToolError: the world model answered with one of the tool's declared errors.
        """
        bound = service.bound(tool)
        spec = bound.spec
        args = service.validate_arguments(tool, arguments).model_dump(mode="json")
        call_id = uuid.uuid4().hex
        if self.model is None:
            message = (
                f"{spec.key} is a simulated tool (it stands for a third-party API) and no world model is "
                "configured to answer it; configure a model endpoint for the world model, or skip the tasks "
                "that need this tool"
            )
            self._record(call_id, spec, args, 1, accepted=False, error=f"unavailable: {message}")
            raise SimulatedToolUnavailable(message)
        request = {
            **spec.model_dump(mode="json"),
            "service_description": service.description,
            "state_schema": service.state_schema(),
            "rejections": [],
        }
        state = service.state_json()
        for attempt in range(1, self.max_attempts + 1):
            try:
                result, delta = self.model.simulate(request, state, args)
            except Exception as exc:  # the model failed to answer at all: count it and ask again
                reason = f"the world model failed: {type(exc).__name__}: {exc}"
                self._record(call_id, spec, args, attempt, accepted=False, error=reason)
                request["rejections"] = [*request["rejections"], reason]
                continue
            problem, checked, new_state = self._check(service, spec, state, result, delta)
            if problem is not None:
                self._record(
                    call_id,
                    spec,
                    args,
                    attempt,
                    accepted=False,
                    result=result,
                    delta=delta if isinstance(delta, dict) else None,
                    error=problem,
                )
                request["rejections"] = [*request["rejections"], problem]
                continue
            self._record(call_id, spec, args, attempt, accepted=True, result=checked, delta=delta)
            if isinstance(checked, dict) and ERROR_KEY in checked:
                error = checked[ERROR_KEY]
                raise ERRORS_BY_CODE.get(error["type"], ToolError)(error["message"])
            if new_state is not None:
                service.state = new_state
            return checked
        raise SimulationFailed(
            f"the world model gave no valid answer for {spec.key} in {self.max_attempts} attempts: "
            + "; ".join(request["rejections"])[-600:]
        )

    def _check(
        self, service: Service, spec: ToolSpec, state: dict[str, Any], result: Any, delta: Any
    ) -> tuple[str | None, Any, Any]:
        """(problem, validated result, new state): problem is None when the answer is valid."""
        if not isinstance(delta, dict):
            return "the state delta must be a JSON object (a merge patch); use {} for no change", None, None
        undeclared = sorted(set(delta) - set(spec.writes))
        if undeclared:
            allowed = ", ".join(spec.writes) or "nothing (the tool does not change state)"
            return f"the delta changes {undeclared}, but the tool may only change: {allowed}", None, None
        if set(delta) & BOOKKEEPING_FIELDS:
            return "the delta may not change the clock or the counters", None, None
        if isinstance(result, dict) and ERROR_KEY in result:
            error = result[ERROR_KEY]
            declared = {e.type for e in spec.errors}
            if not isinstance(error, dict) or error.get("type") not in declared or not error.get("message"):
                return f"an error result needs a type among {sorted(declared)} and a message", None, None
            if delta:
                return "a call that fails changes nothing: the delta must be {}", None, None
            return None, {ERROR_KEY: {"type": error["type"], "message": str(error["message"])}}, None
        try:
            value = service.bound(spec.name).result.validate_python(result)
            checked = service.bound(spec.name).result.dump_python(value, mode="json")
        except ValidationError as exc:
            return f"the result does not fit the result schema: {format_validation_error(exc)}", None, None
        new_state = None
        if delta:
            try:
                new_state = type(service.state).model_validate(merge_patch(state, delta))
            except ValidationError as exc:
                return f"the patched state does not fit the state schema: {format_validation_error(exc)}", None, None
        return None, checked, new_state

    def _record(
        self,
        call_id: str,
        spec: ToolSpec,
        arguments: dict[str, Any],
        attempt: int,
        *,
        accepted: bool,
        result: Any = None,
        delta: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        self.log.append(
            SimulationRecord(
                call_id=call_id,
                called_at=datetime.now(UTC),
                service=spec.service,
                tool=spec.name,
                arguments=arguments,
                attempt=attempt,
                accepted=accepted,
                result=result,
                state_delta=delta,
                error=error,
                model=self.model_name,
            )
        )


class ScriptedWorldModel:
    """Answers from a list, in order (for tests): each entry is `(result, delta)` or an exception to raise."""

    def __init__(self, answers: Sequence[tuple[Any, dict[str, Any]] | BaseException]) -> None:
        self.answers = list(answers)
        self.requests: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []

    def simulate(
        self, tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        self.requests.append((dict(tool_spec), dict(state_json), dict(arguments)))
        if not self.answers:
            raise LookupError("the scripted world model has no answers left")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer


class RecordedWorldModel:
    """Replays accepted answers of an earlier run (a task's oracle run), matched by tool and arguments;
    calls it has no record of go to `fallback` (or fail)."""

    def __init__(self, records: Sequence[SimulationRecord], fallback: WorldModel | None = None) -> None:
        self.records = {
            (r.service, r.tool, canonical(r.arguments)): (r.result, r.state_delta or {}) for r in records if r.accepted
        }
        self.fallback = fallback

    def simulate(
        self, tool_spec: Mapping[str, Any], state_json: Mapping[str, Any], arguments: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        key = (str(tool_spec["service"]), str(tool_spec["name"]), canonical(dict(arguments)))
        if key in self.records:
            return self.records[key]
        if self.fallback is not None:
            return self.fallback.simulate(tool_spec, state_json, arguments)
        raise LookupError(f"no recorded answer for {key[0]}.{key[1]} with these arguments, and no fallback model")

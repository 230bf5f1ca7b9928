"""The author's answer schemas bound every list and long string, so a schema-constrained server cannot
loop until its context fills, and an answer past a bound is invalid (sent back for repair)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from skill2env.tasks.author_answers import (
    MAX_CHALLENGES,
    MAX_FILES,
    MAX_PACKAGES,
    MAX_SCRIPT_CHARS,
    BlueprintAnswer,
    BuildAnswer,
)


def _unbounded(schema: dict[str, Any], defs: dict[str, Any], where: str = "") -> list[str]:
    """Every array without maxItems and every free string without maxLength or a pattern, by path."""
    found = []
    if "$ref" in schema:
        return _unbounded(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, where)
    kind = schema.get("type")
    if kind == "array":
        if "maxItems" not in schema:
            found.append(where)
        found += _unbounded(schema.get("items", {}), defs, where + "[]")
    for name, sub in schema.get("properties", {}).items():
        found += _unbounded(sub, defs, f"{where}.{name}")
    for option in schema.get("anyOf", []):
        found += _unbounded(option, defs, where)
    return found


@pytest.mark.parametrize("answer", [BlueprintAnswer, BuildAnswer])
def test_every_list_of_an_answer_is_bounded(answer: type[BaseModel]) -> None:
    schema = answer.model_json_schema()
    assert _unbounded({k: v for k, v in schema.items() if k != "$defs"}, schema.get("$defs", {})) == []


def test_the_build_answer_s_bounds_are_in_its_schema_and_enforced() -> None:
    properties = BuildAnswer.model_json_schema()["properties"]
    assert properties["files"]["maxItems"] == properties["verifier_files"]["maxItems"] == MAX_FILES
    assert properties["pip_packages"]["maxItems"] == properties["apt_packages"]["maxItems"] == MAX_PACKAGES
    assert properties["solve_sh"]["maxLength"] == properties["generator"]["maxLength"] == MAX_SCRIPT_CHARS
    too_many = {"instruction": "x" * 40, "solve_sh": "#!/bin/bash\n" + "echo\n" * 5,
                "pip_packages": [f"pkg{i}" for i in range(MAX_PACKAGES + 1)]}  # fmt: skip
    with pytest.raises(ValidationError, match="pip_packages"):
        BuildAnswer.model_validate(too_many)


def test_the_blueprint_answer_bounds_its_challenges() -> None:
    assert BlueprintAnswer.model_json_schema()["properties"]["challenges"]["maxItems"] == MAX_CHALLENGES

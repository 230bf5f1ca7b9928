#!/usr/bin/env python3
"""Validate JSON API response fixtures against a contract and report drift.

Contract file (JSON):

  {
    "fixtures":    {"<file name or glob>": <schema>, ...},
    "definitions": {"User": <schema>, ...}
  }

Schemas use a subset of JSON Schema with the same meaning: type (a name or a
list, e.g. ["string", "null"]), properties, required, additionalProperties
(boolean), items, enum, format (date-time, date, email, uuid, uri) and local
"$ref": "#/definitions/Name". Unknown keywords are reported, not ignored.

Validation issues (error): INVALID_JSON, DUPLICATE_KEY, TYPE_MISMATCH,
MISSING_REQUIRED, UNEXPECTED_KEY (additionalProperties false), ENUM_MISMATCH,
FORMAT_MISMATCH. Warnings: UNDOCUMENTED_KEY (key not in properties while
additional properties are allowed), UNMAPPED_FIXTURE, MISSING_FIXTURE.

With --baseline DIR the shape of each fixture (every path and the JSON types
seen there; array items collapsed to [*]) is compared with the baseline copy:
REMOVED_FIELD and TYPE_CHANGED are errors (breaking for clients), ADDED_FIELD,
FIXTURE_ADDED and FIXTURE_REMOVED are warnings.

Standard library only. Exit codes: 0 no errors (warnings allowed unless
--strict), 1 errors (or warnings with --strict), 2 usage error.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
from dataclasses import asdict, dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_ISSUES, EXIT_USAGE = 0, 1, 2
KNOWN_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum", "format",
                  "$ref", "description", "title", "examples"}
TYPES = {"null", "boolean", "integer", "number", "string", "array", "object"}
WARNINGS = {"UNDOCUMENTED_KEY", "UNMAPPED_FIXTURE", "MISSING_FIXTURE", "ADDED_FIELD", "FIXTURE_ADDED",
            "FIXTURE_REMOVED"}


class ContractError(Exception):
    """The contract or the fixture directories cannot be used."""


@dataclass
class Issue:
    fixture: str
    path: str
    code: str
    severity: str
    message: str


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):  # bool is a subclass of int in Python: test it first
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def check_format(fmt: str, value: str) -> bool:
    try:
        if fmt == "date-time":
            if not re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})", value):
                return False
            datetime.fromisoformat(value.replace("Z", "+00:00"))
            return True
        if fmt == "date":
            return bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", value)) and bool(date.fromisoformat(value))
    except ValueError:
        return False
    patterns = {
        "email": r"[^@\s]+@[^@\s]+\.[^@\s]+",
        "uuid": r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        "uri": r"[a-zA-Z][a-zA-Z0-9+.-]*:[^\s]+",
    }
    return bool(re.fullmatch(patterns[fmt], value)) if fmt in patterns else True


def load_json(path: Path) -> Any:
    """Load JSON, raising ValueError that names duplicate keys (json.loads keeps the last silently)."""
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                raise ValueError(f"duplicate key {key!r}")
            out[key] = value
        return out
    return json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=pairs)


class Validator:
    def __init__(self, contract: dict[str, Any]) -> None:
        self.definitions = contract.get("definitions", {})
        self.issues: list[Issue] = []
        self.fixture = ""

    def add(self, path: str, code: str, message: str) -> None:
        self.issues.append(Issue(self.fixture, path, code, "warning" if code in WARNINGS else "error", message))

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        seen = set()
        while "$ref" in schema:
            ref = schema["$ref"]
            if ref in seen or not ref.startswith("#/definitions/"):
                raise ContractError(f"unsupported or circular $ref {ref!r} (only #/definitions/Name)")
            seen.add(ref)
            name = ref.split("/", 2)[2]
            if name not in self.definitions:
                raise ContractError(f"$ref to undefined definition {name!r}")
            schema = self.definitions[name]
        return schema

    def validate(self, value: Any, schema: dict[str, Any], path: str) -> None:
        schema = self.resolve(schema)
        expected = schema.get("type")
        actual = json_type(value)
        if expected is not None:
            allowed = expected if isinstance(expected, list) else [expected]
            ok = actual in allowed or (actual == "integer" and "number" in allowed)
            if not ok:
                shown = json.dumps(value)[:40]
                self.add(path, "TYPE_MISMATCH", f"expected {' or '.join(allowed)}, got {actual} ({shown})")
                return
        if "enum" in schema and value not in schema["enum"]:
            self.add(path, "ENUM_MISMATCH", f"{json.dumps(value)} is not one of {json.dumps(schema['enum'])}")
        if "format" in schema and isinstance(value, str) and not check_format(schema["format"], value):
            self.add(path, "FORMAT_MISMATCH", f"{value!r} is not a valid {schema['format']}")
        if isinstance(value, dict):
            props = schema.get("properties", {})
            for key in schema.get("required", []):
                if key not in value:
                    self.add(f"{path}.{key}", "MISSING_REQUIRED", "required key is missing")
            for key, child in value.items():
                if key in props:
                    self.validate(child, props[key], f"{path}.{key}")
                elif schema.get("additionalProperties") is False:
                    self.add(f"{path}.{key}", "UNEXPECTED_KEY", "key not allowed by the contract")
                elif "properties" in schema:
                    self.add(f"{path}.{key}", "UNDOCUMENTED_KEY", "key is not described in the contract")
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                self.validate(item, schema["items"], f"{path}[{i}]")


def check_contract(contract: Any) -> None:
    if not isinstance(contract, dict) or not isinstance(contract.get("fixtures"), dict):
        raise ContractError("contract must be an object with a 'fixtures' mapping")

    def walk(schema: Any, where: str) -> None:
        if not isinstance(schema, dict):
            raise ContractError(f"{where}: schema must be an object")
        unknown = set(schema) - KNOWN_KEYWORDS
        if unknown:
            raise ContractError(f"{where}: unsupported keyword(s) {', '.join(sorted(unknown))}")
        types = schema.get("type", [])
        for t in types if isinstance(types, list) else [types]:
            if t not in TYPES:
                raise ContractError(f"{where}: unknown type {t!r}")
        for key, sub in schema.get("properties", {}).items():
            walk(sub, f"{where}.properties.{key}")
        if "items" in schema:
            walk(schema["items"], f"{where}.items")

    for name, schema in contract["fixtures"].items():
        walk(schema, f"fixtures[{name!r}]")
    for name, schema in contract.get("definitions", {}).items():
        walk(schema, f"definitions.{name}")


def shape(value: Any, path: str = "$", out: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    out = {} if out is None else out
    out.setdefault(path, set()).add(json_type(value))
    if isinstance(value, dict):
        for key, child in value.items():
            shape(child, f"{path}.{key}", out)
    elif isinstance(value, list):
        for item in value:
            shape(item, f"{path}[*]", out)
    return out


def parent(path: str) -> str:
    return re.sub(r"(\.[^.\[]*|\[\*\])$", "", path)


def diff_shapes(fixture: str, old: dict[str, set[str]], new: dict[str, set[str]]) -> list[Issue]:
    """Compare shapes; report only the top-most added/removed path of a subtree."""
    issues = []
    for path in sorted(set(old) | set(new)):
        if path not in new:
            if parent(path) in new:
                issues.append(Issue(fixture, path, "REMOVED_FIELD", "error", f"was {'/'.join(sorted(old[path]))}"))
        elif path not in old:
            if parent(path) in old:
                issues.append(Issue(fixture, path, "ADDED_FIELD", "warning", f"new, {'/'.join(sorted(new[path]))}"))
        else:
            allowed = old[path] | ({"integer"} if "number" in old[path] else set())
            if not new[path] <= allowed:
                issues.append(Issue(fixture, path, "TYPE_CHANGED", "error",
                                    f"{'/'.join(sorted(old[path]))} -> {'/'.join(sorted(new[path]))}"))
    return issues


def run(contract_path: Path, fixtures_dir: Path, baseline_dir: Path | None) -> tuple[list[Issue], int]:
    if not contract_path.is_file():
        raise ContractError(f"contract file not found: {contract_path}")
    for d in (fixtures_dir, baseline_dir):
        if d is not None and not d.is_dir():
            raise ContractError(f"fixtures directory not found: {d}")
    try:
        contract = load_json(contract_path)
    except ValueError as exc:
        raise ContractError(f"contract {contract_path} is not valid JSON: {exc}") from None
    check_contract(contract)
    validator = Validator(contract)
    files = sorted(p for p in fixtures_dir.rglob("*.json") if p.is_file())
    current: dict[str, Any] = {}
    used_patterns: set[str] = set()
    for path in files:
        name = path.relative_to(fixtures_dir).as_posix()
        validator.fixture = name
        try:
            current[name] = data = load_json(path)
        except ValueError as exc:
            code = "DUPLICATE_KEY" if "duplicate key" in str(exc) else "INVALID_JSON"
            validator.add("$", code, str(exc))
            continue
        pattern = next((p for p in contract["fixtures"] if p == name or fnmatch.fnmatch(name, p)), None)
        if pattern is None:
            validator.add("$", "UNMAPPED_FIXTURE", "no contract entry matches this file")
            continue
        used_patterns.add(pattern)
        validator.validate(data, contract["fixtures"][pattern], "$")
    for pattern in contract["fixtures"]:
        if pattern not in used_patterns and not any(fnmatch.fnmatch(n, pattern) for n in current):
            validator.fixture = pattern
            validator.add("$", "MISSING_FIXTURE", "contract entry has no fixture")
    issues = validator.issues
    if baseline_dir is not None:
        for path in sorted(p for p in baseline_dir.rglob("*.json") if p.is_file()):
            name = path.relative_to(baseline_dir).as_posix()
            try:
                old = load_json(path)
            except ValueError as exc:
                issues.append(Issue(name, "$", "INVALID_JSON", "error", f"baseline: {exc}"))
                continue
            if name not in current:
                if not (fixtures_dir / name).exists():
                    issues.append(Issue(name, "$", "FIXTURE_REMOVED", "warning", "present in baseline only"))
                continue
            issues += diff_shapes(name, shape(old), shape(current[name]))
        for name in current:
            if not (baseline_dir / name).exists():
                issues.append(Issue(name, "$", "FIXTURE_ADDED", "warning", "not in baseline"))
    return issues, len(files)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Validate JSON API fixtures against a JSON-schema-like contract and diff them with a baseline.",
        epilog="Exit codes: 0 no errors, 1 errors (or warnings with --strict), 2 usage error.",
    )
    parser.add_argument("--contract", required=True, help="contract JSON file")
    parser.add_argument("--fixtures", required=True, help="directory of current fixtures (*.json, recursive)")
    parser.add_argument("--baseline", help="directory of previous fixtures to diff shapes against")
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--strict", action="store_true", help="treat warnings as failures")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        issues, count = run(Path(args.contract), Path(args.fixtures), Path(args.baseline) if args.baseline else None)
    except ContractError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    issues.sort(key=lambda i: (i.fixture, i.path, i.code))
    errors = sum(i.severity == "error" for i in issues)
    warnings = len(issues) - errors
    if args.format == "json":
        print(json.dumps({"fixtures": count, "errors": errors, "warnings": warnings,
                          "issues": [asdict(i) for i in issues]}, indent=2))
    else:
        for i in issues:
            print(f"{i.fixture}: {i.path}: {i.code} [{i.severity}] {i.message}")
        print(f"{count} fixtures checked: {errors} errors, {warnings} warnings", file=sys.stderr)
    return EXIT_ISSUES if errors or (args.strict and warnings) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

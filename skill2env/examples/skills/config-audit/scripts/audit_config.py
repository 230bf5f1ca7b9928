#!/usr/bin/env python3
"""Audit a repository's JSON, YAML, TOML and INI configuration files against a policy.

Rules (IDs are stable; the policy file tunes them):

  CFG000 parse-error        file could not be parsed, so it was not audited
  CFG001 plaintext-secret   secret-named key with a literal value, known token
                            formats, or credentials embedded in a URL
  CFG002 unpinned-dependency dependency not pinned to an exact version
  CFG003 unpinned-image     container image without a tag, ':latest', no digest
  CFG004 timeout-missing    object with a url/host/endpoint but no *timeout* key
  CFG005 timeout-invalid    timeout <= 0 or above the policy maximum
  CFG006 forbidden-value    key set to a forbidden value (debug=true, verify_ssl=false)

Line numbers are exact for JSON, INI and YAML, and exact for TOML keys and
table headers (array items report their own line when they are single-line
strings). YAML is parsed with PyYAML when it can be imported; otherwise a
built-in parser for the common block subset is used (no anchors, aliases, tags
or complex keys; files using them are reported as CFG000 with a hint).

Standard library only (tomllib needs Python 3.11+). Exit codes: 0 no findings at
or above --fail-on, 1 findings, 2 usage error.
"""

from __future__ import annotations

import argparse
import bisect
import configparser
import fnmatch
import json
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    tomllib = None  # type: ignore[assignment]

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
SEVERITY_RANK = {"low": 0, "medium": 1, "high": 2}
RULES = {
    "CFG000": ("parse-error", "high"), "CFG001": ("plaintext-secret", "high"),
    "CFG002": ("unpinned-dependency", "medium"), "CFG003": ("unpinned-image", "medium"),
    "CFG004": ("timeout-missing", "medium"), "CFG005": ("timeout-invalid", "medium"),
    "CFG006": ("forbidden-value", "medium"),
}
DEFAULT_POLICY: dict[str, Any] = {
    "secret_words": ["password", "passwd", "pwd", "secret", "token", "apikey", "credential", "credentials"],
    "secret_pairs": [["api", "key"], ["private", "key"], ["access", "key"], ["secret", "key"], ["signing", "key"]],
    "secret_reference_pattern": (r"^(\$\{[^}]+\}|\$[A-Za-z_][A-Za-z0-9_]*|(env|vault|ssm|secretsmanager|op|file):.+"
                                 r"|<[^>]+>|\*{3,}|)$"),
    "secret_value_patterns": [r"AKIA[0-9A-Z]{16}", r"gh[pousr]_[A-Za-z0-9]{36,}", r"xox[abpr]-[A-Za-z0-9-]{10,}",
                              r"-----BEGIN [A-Z ]*PRIVATE KEY-----", r"sk_live_[A-Za-z0-9]{16,}"],
    "dependency_sections": ["dependencies", "devDependencies", "dev-dependencies", "optionalDependencies",
                            "peerDependencies", "optional-dependencies", "requires", "install_requires"],
    "image_keys": ["image"],
    "endpoint_keys": ["url", "base_url", "baseUrl", "endpoint", "host", "dsn"],
    "timeout_key_pattern": r"(?i)timeout",
    "max_timeout_seconds": 300,
    "forbidden_values": [{"key": "debug", "value": True}, {"key": "verify_ssl", "value": False},
                         {"key": "ssl_verify", "value": False}],
    "exclude": [".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "*lock.json", "*.lock"],
}
EXTENSIONS = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
              ".ini": "ini", ".cfg": "ini", ".conf": "ini"}


class ParseError(Exception):
    """A config file could not be parsed; carries an optional line number."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class Node:
    value: Any  # dict[str, Node] | list[Node] | scalar
    line: int


@dataclass
class Finding:
    file: str
    line: int
    rule: str
    name: str
    severity: str
    message: str


# ---------------------------------------------------------------- parsers
def parse_json(text: str) -> Node:
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"invalid JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    decoder = json.JSONDecoder()
    space = re.compile(r"[ \t\r\n]*")

    def skip(pos: int) -> int:  # whitespace, then one ',' or ':' if present
        pos = space.match(text, pos).end()  # type: ignore[union-attr]
        if pos < len(text) and text[pos] in ",:":
            pos = space.match(text, pos + 1).end()  # type: ignore[union-attr]
        return pos

    def line_at(pos: int) -> int:
        return bisect.bisect_left(newlines, pos) + 1

    def value(pos: int) -> tuple[Node, int]:  # the text is valid JSON, so no error handling here
        pos = skip(pos)
        start, opener = pos, text[pos]
        if opener == "{":
            out: dict[str, Node] = {}
            pos = skip(pos + 1)
            while text[pos] != "}":
                key_line = line_at(pos)
                key, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
                child, pos = value(skip(pos))
                out[key] = Node(child.value, key_line)
                pos = skip(pos)
            return Node(out, line_at(start)), pos + 1
        if opener == "[":
            items: list[Node] = []
            pos = skip(pos + 1)
            while text[pos] != "]":
                child, pos = value(pos)
                items.append(child)
                pos = skip(pos)
            return Node(items, line_at(start)), pos + 1
        scalar, end = decoder.raw_decode(text, pos)
        return Node(scalar, line_at(start)), end

    return value(0)[0]


def _toml_key_parts(text: str) -> list[str]:
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([A-Za-z0-9_-]+)', text)
    return [a or b or c for a, b, c in parts]


def parse_toml(text: str) -> Node:
    if tomllib is None:
        raise ParseError("TOML needs Python 3.11+ (tomllib)")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ParseError(f"invalid TOML: {exc}", int(m.group(1)) if m else 1) from None
    lines_by_path: dict[tuple[Any, ...], int] = {}
    aot_index: dict[tuple[Any, ...], int] = {}
    table: tuple[Any, ...] = ()
    lines = text.splitlines()
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        header = re.match(r"^(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$", line)
        if header:
            names = _toml_key_parts(header.group(2))
            path: list[Any] = []
            for name in names:
                path.append(name)
                if tuple(path) in aot_index and not (header.group(1) == "[[" and len(path) == len(names)):
                    path.append(aot_index[tuple(path)])
            if header.group(1) == "[[":
                key = tuple(path)
                aot_index[key] = aot_index.get(key, -1) + 1
                path.append(aot_index[key])
            table = tuple(path)
            lines_by_path.setdefault(table, number)
            continue
        assign = re.match(r'^((?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_.\- ]+?))\s*=', line)
        if assign and not line.startswith("#"):
            lines_by_path.setdefault(table + tuple(_toml_key_parts(assign.group(1))), number)

    def build(obj: Any, path: tuple[Any, ...], fallback: int) -> Node:
        line = lines_by_path.get(path, fallback)
        if isinstance(obj, dict):
            return Node({k: build(v, (*path, k), line) for k, v in obj.items()}, line)
        if isinstance(obj, list):
            items = []
            search_from = line
            for i, item in enumerate(obj):
                item_line = lines_by_path.get((*path, i), line)
                if isinstance(item, str):
                    for n in range(search_from, min(len(lines), search_from + 200) + 1):
                        if f'"{item}"' in lines[n - 1] or f"'{item}'" in lines[n - 1]:
                            item_line = search_from = n
                            break
                items.append(build(item, (*path, i), item_line))
            return Node(items, line)
        return Node(obj, line)

    return build(data, (), 1)


def parse_ini(text: str) -> Node:
    checker = configparser.ConfigParser(interpolation=None, strict=True)
    try:
        checker.read_string(text)
    except configparser.Error as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise ParseError(f"invalid INI: {str(exc).splitlines()[0]}", int(m.group(1)) if m else 1) from None
    root: dict[str, Node] = {}
    section: dict[str, Node] | None = None
    last: tuple[dict[str, Node], str] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in "#;":
            continue
        m = re.match(r"^\[([^\]]+)\]", stripped)
        if m:
            section = {}
            root[m.group(1).strip()] = Node(section, number)
            last = None
            continue
        if raw[:1] in " \t" and last is not None:  # continuation line
            target, key = last
            target[key].value = f"{target[key].value}\n{stripped}"
            continue
        m = re.match(r"^([^=:]+?)\s*[=:]\s*(.*)$", stripped)
        if m and section is not None:
            key = m.group(1).strip().lower()
            section[key] = Node(m.group(2).strip(), number)
            last = (section, key)
    return Node(root, 1)


_YAML_PLAIN_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)")
_YAML_PLAIN_FLOAT = re.compile(r"[-+]?([0-9][0-9_]*)?\.[0-9]+([eE][-+]?[0-9]+)?")


def yaml_scalar(text: str, line: int) -> Any:
    s = text.strip()
    if not s:
        return None
    if s[0] in "&*!":
        raise ParseError("YAML anchors, aliases and tags need PyYAML (pip install pyyaml)", line)
    if s[0] == '"':
        try:
            return json.loads(s)
        except json.JSONDecodeError:
            raise ParseError(f"unsupported double-quoted scalar {s!r}", line) from None
    if s[0] == "'":
        if not s.endswith("'") or len(s) < 2:
            raise ParseError(f"unterminated single-quoted scalar {s!r}", line)
        return s[1:-1].replace("''", "'")
    if s[0] in "[{":
        return yaml_flow(s, line)
    low = s.lower()
    if low in ("null", "~"):
        return None
    if low in ("true", "yes", "on"):  # YAML 1.1 booleans, as PyYAML resolves them
        return True
    if low in ("false", "no", "off"):
        return False
    if _YAML_PLAIN_INT.fullmatch(s):
        return int(s.replace("_", ""))
    if _YAML_PLAIN_FLOAT.fullmatch(s):
        return float(s.replace("_", ""))
    return s


def yaml_flow(s: str, line: int) -> Any:
    """Parse a one-line flow collection such as [a, "b", 3] or {x: 1, y: [2]}."""
    pos = 0

    def item(stop: str) -> Any:
        nonlocal pos
        while pos < len(s) and s[pos] == " ":
            pos += 1
        if pos < len(s) and s[pos] in "[{":
            return collection()
        start = pos
        quote = None
        while pos < len(s):
            ch = s[pos]
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch in stop:
                break
            pos += 1
        return yaml_scalar(s[start:pos], line)

    def collection() -> Any:
        nonlocal pos
        opener = s[pos]
        closer = "]" if opener == "[" else "}"
        pos += 1
        out: Any = [] if opener == "[" else {}
        while True:
            while pos < len(s) and s[pos] == " ":
                pos += 1
            if pos >= len(s):
                raise ParseError(f"unterminated flow collection {s!r}", line)
            if s[pos] == closer:
                pos += 1
                return out
            if opener == "[":
                out.append(Node(item(",]"), line))
            else:
                key = item(":,}")
                if pos < len(s) and s[pos] == ":":
                    pos += 1
                    out[str(key)] = Node(item(",}"), line)
                else:
                    out[str(key)] = Node(None, line)
            while pos < len(s) and s[pos] == " ":
                pos += 1
            if pos < len(s) and s[pos] == ",":
                pos += 1

    result = collection()
    if s[pos:].strip():
        raise ParseError(f"unexpected text after flow collection: {s[pos:]!r}", line)
    return result


def _strip_comment(line: str) -> str:
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'" and (i == 0 or line[i - 1] in " :-[{,"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def parse_yaml_builtin(text: str) -> Node:
    raw_lines = text.splitlines()
    docs: list[list[tuple[int, int, str]]] = [[]]
    block_until = -1
    for number, raw in enumerate(raw_lines, start=1):
        if number <= block_until:
            continue
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise ParseError("tabs are not allowed for YAML indentation", number)
        if raw.startswith("---"):
            if docs[-1]:
                docs.append([])
            continue
        if raw.startswith("..."):
            continue
        content = _strip_comment(raw)
        if not content.strip():
            continue
        indent = len(content) - len(content.lstrip())
        docs[-1].append((indent, number, content.strip()))
        if re.search(r"(:|^-)\s+[|>][-+0-9]*$", content.strip()):  # block scalar: swallow its body
            j = number
            while j < len(raw_lines) and (not raw_lines[j].strip() or
                                          len(raw_lines[j]) - len(raw_lines[j].lstrip()) > indent):
                j += 1
            body = [ln.strip() for ln in raw_lines[number:j]]
            docs[-1][-1] = (indent, number, content.strip() + "\x00" + "\n".join(body))
            block_until = j

    def parse_block(items: list[tuple[int, int, str]], i: int, indent: int) -> tuple[Node, int]:
        first_line = items[i][1]
        if items[i][2].startswith("- ") or items[i][2] == "-":
            seq: list[Node] = []
            while i < len(items) and items[i][0] == indent and (items[i][2].startswith("- ") or items[i][2] == "-"):
                _, number, content = items[i]
                rest = content[1:].lstrip()
                if not rest:
                    if i + 1 < len(items) and items[i + 1][0] > indent:
                        child, i = parse_block(items, i + 1, items[i + 1][0])
                        seq.append(child)
                    else:
                        seq.append(Node(None, number))
                        i += 1
                    continue
                if _mapping_key(rest):
                    inner = indent + (len(content) - len(rest))
                    items[i] = (inner, number, rest)
                    child, i = parse_block(items, i, inner)
                    seq.append(child)
                    continue
                seq.append(Node(_scalar_or_block(rest, number), number))
                i += 1
            return Node(seq, first_line), i
        mapping: dict[str, Node] = {}
        while i < len(items) and items[i][0] == indent:
            _, number, content = items[i]
            m = _mapping_key(content)
            if not m:
                raise ParseError(f"expected 'key: value' (built-in YAML subset): {content[:60]!r}", number)
            key, rest = m
            i += 1
            if rest:
                mapping[key] = Node(_scalar_or_block(rest, number), number)
            elif i < len(items) and (items[i][0] > indent or
                                     (items[i][0] == indent and items[i][2].startswith("-"))):
                child, i = parse_block(items, i, items[i][0])
                mapping[key] = Node(child.value, number)
            else:
                mapping[key] = Node(None, number)
        if i < len(items) and items[i][0] > indent:
            raise ParseError("unexpected indentation", items[i][1])
        return Node(mapping, first_line), i

    parsed = []
    for items in docs:
        if not items:
            continue
        node, end = parse_block(items, 0, items[0][0])
        if end < len(items):
            raise ParseError("could not parse the rest of the document (built-in YAML subset)", items[end][1])
        parsed.append(node)
    if not parsed:
        return Node(None, 1)
    return parsed[0] if len(parsed) == 1 else Node(parsed, 1)


def _mapping_key(content: str) -> tuple[str, str] | None:
    key_pattern = r'"(?:[^"\\]|\\.)*"|\'(?:[^\']|\'\')*\'|[^\s"\'#\-?:\[\]{},][^:#]*?|-[^\s:][^:#]*?'
    m = re.match(rf"^({key_pattern})\s*:(?:\s+(.*))?$", content, re.DOTALL)
    if not m:
        return None
    key = m.group(1)
    if key[0] in "\"'":
        key = str(yaml_scalar(key, 0))
    return key, (m.group(2) or "").strip()


def _scalar_or_block(rest: str, line: int) -> Any:
    if "\x00" in rest:
        head, body = rest.split("\x00", 1)
        text = body if head.startswith("|") else " ".join(body.split("\n"))
        return text.rstrip("\n") + ("" if "-" in head else "\n")
    return yaml_scalar(rest, line)


def parse_yaml_pyyaml(text: str) -> Node:
    import yaml

    constructor = yaml.constructor.SafeConstructor()

    def convert(node: Any) -> Node:
        line = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            out = {}
            for key_node, value_node in node.value:
                if key_node.tag.endswith(":merge"):
                    key: Any = "<<"
                else:
                    key = constructor.construct_object(key_node, deep=True)
                child = convert(value_node)
                out[str(key)] = Node(child.value, key_node.start_mark.line + 1)
            return Node(out, line)
        if isinstance(node, yaml.SequenceNode):
            return Node([convert(n) for n in node.value], line)
        return Node(constructor.construct_object(node, deep=True), line)

    try:
        docs = [convert(d) for d in yaml.compose_all(text, Loader=yaml.SafeLoader) if d is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ParseError(f"invalid YAML: {str(exc).splitlines()[0]}", mark.line + 1 if mark else 1) from None
    if not docs:
        return Node(None, 1)
    return docs[0] if len(docs) == 1 else Node(docs, 1)


def yaml_backend(choice: str) -> str:
    if choice != "auto":
        return choice
    try:
        import yaml  # noqa: F401
    except ImportError:
        return "builtin"
    return "pyyaml"


# ---------------------------------------------------------------- rules
def join_path(parts: list[str]) -> str:
    out = ""
    for part in parts:
        out += part if part.startswith("[") or not out else "." + part
    return out or "(top level)"


def show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (str, bool, int, float)) or value is None else repr(value)


def key_words(key: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", key)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


class Auditor:
    def __init__(self, policy: dict[str, Any]) -> None:
        self.policy = policy
        self.reference = re.compile(policy["secret_reference_pattern"])
        self.value_patterns = [re.compile(p) for p in policy["secret_value_patterns"]]
        self.timeout_key = re.compile(policy["timeout_key_pattern"])
        self.endpoint_keys = {k.lower() for k in policy["endpoint_keys"]}
        self.dep_sections = set(policy["dependency_sections"])
        self.findings: list[Finding] = []
        self.file = ""

    def add(self, line: int, rule: str, message: str) -> None:
        name, severity = RULES[rule]
        if any(f.file == self.file and f.line == line and f.rule == rule for f in self.findings):
            return  # one finding per rule and line (e.g. secret key whose value is also a known token)
        self.findings.append(Finding(self.file, line, rule, name, severity, message))

    def is_secret_key(self, key: str) -> bool:
        words = key_words(key)
        if not words:
            return False
        if words[-1] in self.policy["secret_words"]:
            return True
        return any(words[-2:] == pair for pair in self.policy["secret_pairs"])

    def walk(self, node: Node, path: list[str]) -> None:
        if isinstance(node.value, dict):
            self.check_mapping(node, path)
            for key, child in node.value.items():
                self.check_entry(key, child, path)
                self.walk(child, [*path, key])
        elif isinstance(node.value, list):
            for i, child in enumerate(node.value):
                self.walk(child, [*path, f"[{i}]"])
        elif isinstance(node.value, str):
            self.check_string(node, path)

    def check_entry(self, key: str, child: Node, path: list[str]) -> None:
        dotted = join_path([*path, key])
        value = child.value
        if self.is_secret_key(key) and isinstance(value, (str, int)) and not isinstance(value, bool):
            text = str(value).strip()
            if not self.reference.match(text):
                self.add(child.line, "CFG001", f"{dotted} holds a literal secret ({len(text)} chars); "
                         "reference a secret store or environment variable instead")
        if key in self.dep_sections:
            self.check_dependencies(child, dotted)
        if key in self.policy["image_keys"] and isinstance(value, str):
            image = value.strip()
            if "@sha256:" not in image:
                last = image.rsplit("/", 1)[-1]
                if ":" not in last:
                    self.add(child.line, "CFG003", f"{dotted} = {image!r} has no tag (resolves to latest)")
                elif last.rsplit(":", 1)[1] in ("latest", "stable", "main", "master"):
                    self.add(child.line, "CFG003", f"{dotted} = {image!r} uses a moving tag; pin a version or digest")
        if self.timeout_key.search(key) and not isinstance(value, (dict, list)):
            self.check_timeout(key, child, dotted)
        for rule in self.policy["forbidden_values"]:
            if key.lower() == rule["key"].lower() and as_bool(value) is rule["value"]:
                self.add(child.line, "CFG006", f"{dotted} = {show(value)} is forbidden by policy")

    def check_mapping(self, node: Node, path: list[str]) -> None:
        keys = {k.lower(): k for k in node.value}
        endpoint = next((keys[k] for k in keys if k in self.endpoint_keys), None)
        if endpoint is None or not isinstance(node.value[endpoint].value, str):
            return
        if path and path[-1] in self.dep_sections:
            return
        if not any(self.timeout_key.search(k) for k in node.value):
            where = join_path(path)
            self.add(node.value[endpoint].line, "CFG004",
                     f"{where} has {endpoint} but no timeout key; set an explicit timeout")

    def check_timeout(self, key: str, child: Node, dotted: str) -> None:
        seconds = duration_seconds(child.value, key)
        if seconds is None:
            return
        limit = self.policy["max_timeout_seconds"]
        if seconds <= 0:
            self.add(child.line, "CFG005", f"{dotted} = {show(child.value)} disables the timeout or is invalid")
        elif seconds > limit:
            self.add(child.line, "CFG005", f"{dotted} = {show(child.value)} exceeds the policy maximum of {limit}s")

    def check_dependencies(self, node: Node, dotted: str) -> None:
        if isinstance(node.value, dict):
            for name, spec in node.value.items():
                version = spec.value
                if isinstance(version, dict) and "version" in version:
                    version = version["version"].value
                if isinstance(version, str) and not exact_version(version, Path(self.file).name == "Cargo.toml"):
                    self.add(spec.line, "CFG002", f"{dotted}.{name} = {version!r} is not an exact pin")
        elif isinstance(node.value, list):
            for item in node.value:
                if isinstance(item.value, str) and not exact_requirement(item.value):
                    self.add(item.line, "CFG002", f"{dotted}: {item.value!r} is not pinned with ==")

    def check_string(self, node: Node, path: list[str]) -> None:
        text = node.value
        where = join_path(path)
        if re.search(r"[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@", text, re.IGNORECASE):
            password = re.search(r"://[^/\s:@]+:([^/\s@]+)@", text)
            if password and not self.reference.match(password.group(1)):
                self.add(node.line, "CFG001", f"{where} embeds credentials in a URL")
                return
        for pattern in self.value_patterns:
            if pattern.search(text):
                self.add(node.line, "CFG001", f"{where} contains a value matching a known token format")
                return


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
    return None


def duration_seconds(value: Any, key: str) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value / 1000 if key.lower().endswith(("_ms", "ms", "millis")) else float(value)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*", value)
        if m:
            factor = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, None: 1}[m.group(2)]
            if m.group(2) is None and key.lower().endswith(("_ms", "ms", "millis")):
                factor = 0.001
            return float(m.group(1)) * factor
    return None


def exact_version(spec: str, cargo: bool = False) -> bool:
    """True for an exact version. In Cargo.toml a bare '1.2.3' means '^1.2.3', so '=' is required."""
    pattern = r"(==|=)?v?\d+(\.\d+)*([-+][0-9A-Za-z.-]+|(a|b|rc|\.post|\.dev)\d+)?"
    spec = spec.strip()
    return bool(re.fullmatch(pattern, spec)) and (not cargo or spec.startswith("="))


def exact_requirement(req: str) -> bool:
    body = req.split(";", 1)[0].strip()
    if "@" in body and "://" in body:
        return "@" in body.split("://", 1)[1] or "#" in body  # VCS URL pinned to a ref
    return bool(re.search(r"===?\s*[0-9A-Za-z]", body)) and not re.search(r"[<>~!]=?|\*", body)


# ---------------------------------------------------------------- driver
def discover(root: Path, excludes: list[str]) -> list[Path]:
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not any(fnmatch.fnmatch(d, pat) for pat in excludes))
        for name in sorted(filenames):
            if Path(name).suffix.lower() in EXTENSIONS and not any(fnmatch.fnmatch(name, p) for p in excludes):
                found.append(Path(dirpath) / name)
    return found


def audit(root: Path, policy: dict[str, Any], yaml_parser: str) -> tuple[list[Finding], list[str]]:
    auditor = Auditor(policy)
    files = [root] if root.is_file() else discover(root, policy["exclude"])
    backend = yaml_backend(yaml_parser)
    for path in files:
        auditor.file = str(path.relative_to(root)) if root.is_dir() else path.name
        kind = EXTENSIONS.get(path.suffix.lower())
        try:
            if path.stat().st_size > 2_000_000:
                raise ParseError("file larger than 2 MB")
            text = path.read_text(encoding="utf-8-sig")
            if kind == "json":
                tree = parse_json(text)
            elif kind == "toml":
                tree = parse_toml(text)
            elif kind == "ini":
                tree = parse_ini(text)
            elif kind == "yaml":
                tree = parse_yaml_pyyaml(text) if backend == "pyyaml" else parse_yaml_builtin(text)
            else:
                continue
        except UnicodeDecodeError:
            auditor.add(1, "CFG000", "file is not valid UTF-8; not audited")
            continue
        except ParseError as exc:
            auditor.add(exc.line, "CFG000", f"{exc}; not audited")
            continue
        auditor.walk(tree, [])
    return auditor.findings, [str(p) for p in files]


def load_policy(path: str | None) -> dict[str, Any]:
    policy = dict(DEFAULT_POLICY)
    if path:
        try:
            override = json.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"policy file not found: {path}") from None
        except json.JSONDecodeError as exc:
            raise ValueError(f"policy file {path} is not valid JSON: {exc}") from None
        unknown = set(override) - set(DEFAULT_POLICY)
        if unknown:
            raise ValueError(f"unknown policy keys: {', '.join(sorted(unknown))}")
        policy.update(override)
    return policy


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Audit JSON/YAML/TOML/INI config files against a policy; report findings as file:line.",
        epilog="Exit codes: 0 no findings at or above --fail-on, 1 findings, 2 usage error.",
    )
    parser.add_argument("path", help="repository directory or a single config file")
    parser.add_argument("--policy", help="JSON file overriding default policy keys (see --print-policy)")
    parser.add_argument("--print-policy", action="store_true", help="print the effective policy and exit")
    parser.add_argument("--yaml-parser", choices=["auto", "pyyaml", "builtin"], default="auto",
                        help="YAML backend: PyYAML when importable (auto), or the built-in subset parser")
    parser.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    parser.add_argument("--fail-on", choices=["low", "medium", "high"], default="low",
                        help="lowest severity that makes the exit code 1 (default: low)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        policy = load_policy(args.policy)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.print_policy:
        print(json.dumps(policy, indent=2))
        return EXIT_OK
    root = Path(args.path)
    if not root.exists():
        print(f"error: path not found: {root}", file=sys.stderr)
        return EXIT_USAGE
    if args.yaml_parser == "pyyaml" and yaml_backend("auto") != "pyyaml":
        print("error: --yaml-parser pyyaml requested but 'import yaml' failed; pip install pyyaml", file=sys.stderr)
        return EXIT_USAGE
    findings, files = audit(root, policy, args.yaml_parser)
    findings.sort(key=lambda f: (f.file, f.line, f.rule))
    if args.format == "json":
        print(json.dumps({"files": len(files), "yaml_parser": yaml_backend(args.yaml_parser),
                          "findings": [asdict(f) for f in findings]}, indent=2))
    elif args.format == "markdown":
        print(f"# Config audit\n\n{len(files)} files scanned, {len(findings)} findings.\n")
        print("| location | rule | severity | message |\n|---|---|---|---|")
        for f in findings:
            print(f"| `{f.file}:{f.line}` | {f.rule} {f.name} | {f.severity} | {f.message} |")
    else:
        for f in findings:
            print(f"{f.file}:{f.line}: {f.rule} [{f.severity}] {f.name}: {f.message}")
        print(f"{len(files)} files scanned, {len(findings)} findings", file=sys.stderr)
    threshold = SEVERITY_RANK[args.fail_on]
    return EXIT_FINDINGS if any(SEVERITY_RANK[f.severity] >= threshold for f in findings) else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

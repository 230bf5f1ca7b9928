"""The catalogue service of a web-API task (standard library only; copied into the workspace as
`service/server.py`).

It reads its private store (`service/store.bin`: zlib-compressed JSON), binds a free loopback port and
writes the port to `service/run/port`. It answers the documented API: token exchange, the latest
snapshot, facets, paginated listing, single and batch record reads. Its behaviour (token lifetime,
search cap, overlapping pages, quota, transient failures) comes from the store. It stops on
`POST /v1/admin/shutdown`, after `IDLE_SECONDS` without a request, or after `LIFETIME_SECONDS`. What the
key has used up (metered reads, planned failures, issued tokens) is kept in `service/run/usage.json`, so
a restart does not hand out a fresh quota.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote_plus, urlparse

HERE = Path(__file__).resolve().parent
IDLE_SECONDS = 600.0
LIFETIME_SECONDS = 7200.0
USAGE = HERE / "run" / "usage.json"


class State:
    def __init__(self, store: dict[str, Any]) -> None:
        self.store = store
        self.current: dict[str, dict[str, Any]] = {r["id"]: r for r in store["records"]}
        stale = store.get("stale")
        self.stale: dict[str, dict[str, Any]] | None = {r["id"]: r for r in stale} if stale else None
        self.faults: dict[str, list[int]] = {k: list(v) for k, v in store["faults"].items()}
        self.blocked: dict[str, float] = {}
        self.tokens: dict[str, int] = {}
        self.issued = 0
        self.metered = 0
        self.last = time.monotonic()
        self.lock = threading.Lock()
        if USAGE.exists():
            used = json.loads(USAGE.read_text())
            self.faults, self.issued, self.metered = used["faults"], used["issued"], used["metered"]

    def save(self) -> None:
        used = {"faults": self.faults, "issued": self.issued, "metered": self.metered}
        partial = USAGE.with_suffix(".tmp")
        partial.write_text(json.dumps(used))
        partial.replace(USAGE)


def cursor_of(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def offset_of(cursor: str) -> int | None:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        return int(text[2:]) if text.startswith("o:") else None
    except (ValueError, UnicodeDecodeError):
        return None


TOKEN = re.compile(
    r'\s*(?:(?P<op>==|!=|<=|>=|<|>|~|\(|\))|(?P<text>"(?:[^"\\]|\\.)*")'
    r"|(?P<time>\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2})?)|(?P<number>-?\d+(?:\.\d+)?)|(?P<word>[A-Za-z_][\w]*))"
)
Predicate = Any
"""A compiled filter: a function from a record to bool."""


class FilterError(ValueError):
    pass


def tokens(text: str) -> list[tuple[str, Any]]:
    found, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        match = TOKEN.match(text, at)
        if match is None:
            raise FilterError(f"unexpected text at {at}: {text[at : at + 12]!r}")
        kind = match.lastgroup or ""
        value: Any = match.group(kind)
        if kind == "text":
            value = json.loads(value)
        elif kind == "time":
            value = value if "T" in value else value + "T00:00"
        elif kind == "number":
            value = float(value)
        found.append((kind, value))
        at = match.end()
    return found


def compile_filter(text: str) -> Predicate:
    """The filter language of docs/filter_syntax.md: `and` over `or`, `not`, parentheses, `missing(f)`,
    comparisons that are false on a missing field, `~` for equality ignoring case."""
    items = tokens(text)
    at = 0

    def peek() -> tuple[str, Any]:
        return items[at] if at < len(items) else ("end", None)

    def take() -> tuple[str, Any]:
        nonlocal at
        item = peek()
        at += 1
        return item

    def expression() -> Predicate:
        parts = [conjunction()]
        while peek() == ("word", "or"):
            take()
            parts.append(conjunction())
        return lambda r: any(p(r) for p in parts)

    def conjunction() -> Predicate:
        parts = [term()]
        while peek() == ("word", "and"):
            take()
            parts.append(term())
        return lambda r: all(p(r) for p in parts)

    def term() -> Predicate:
        kind, value = take()
        if (kind, value) == ("word", "not"):
            inner = term()
            return lambda r: not inner(r)
        if (kind, value) == ("op", "("):
            inner = expression()
            if take() != ("op", ")"):
                raise FilterError("missing )")
            return inner
        if kind == "word" and value == "missing" and peek() == ("op", "("):
            take()
            kind, name = take()
            if kind != "word" or take() != ("op", ")"):
                raise FilterError("missing(<field>) expected")
            return lambda r: r.get(name) is None
        if kind != "word":
            raise FilterError(f"a field name expected, got {value!r}")
        op_kind, op = take()
        lit_kind, literal = take()
        if op_kind != "op" or op in ("(", ")") or lit_kind not in ("text", "time", "number"):
            raise FilterError(f"<field> <operator> <literal> expected after {value!r}")
        return comparison(value, op, literal)

    predicate = expression()
    if at != len(items):
        raise FilterError(f"unexpected {items[at][1]!r}")
    return predicate


def comparison(field: str, op: str, literal: Any) -> Predicate:
    def check(record: dict[str, Any]) -> bool:
        value = record.get(field)
        if value is None:
            return False
        if op == "~":
            return isinstance(value, str) and isinstance(literal, str) and value.lower() == literal.lower()
        if isinstance(literal, float) != isinstance(value, int | float):
            return False
        return bool(
            {
                "==": value == literal,
                "!=": value != literal,
                "<": value < literal,
                "<=": value <= literal,
                ">": value > literal,
                ">=": value >= literal,
            }[op]
        )

    return check


class Handler(BaseHTTPRequestHandler):
    server_version = "catalogue/1.4"
    state: State

    def log_message(self, format: str, *args: Any) -> None:
        return

    def reply(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = (json.dumps(body) + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.route("GET")

    def do_POST(self) -> None:
        self.route("POST")

    def body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return None

    def route(self, method: str) -> None:
        state = self.state
        with state.lock:
            state.last = time.monotonic()
            url = urlparse(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            path = url.path.rstrip("/")
            if method == "POST" and path == "/v1/admin/shutdown":
                self.reply(200, {"stopping": True})
                threading.Thread(target=self.server.shutdown, daemon=True).start()
                return
            if method == "POST" and path == "/v1/auth/token":
                self.token()
                return
            if not self.authorized():
                return
            if method == "GET" and path == "/v1/snapshots/latest":
                self.reply(200, {"snapshot": state.store["snapshot"], "published": state.store["published"]})
            elif method == "GET" and path == "/v1/facets":
                self.facets(query)
            elif method == "GET" and path == "/v1/records":
                self.listing(query)
            elif method == "POST" and path == "/v1/records/batch":
                self.batch(query)
            elif method == "GET" and path.startswith("/v1/records/"):
                self.single(path.rsplit("/", 1)[1], query)
            else:
                self.reply(404, {"error": "not_found", "detail": f"no route {method} {path}"})
            state.save()

    # -- auth -------------------------------------------------------------------------------------

    def token(self) -> None:
        state, body = self.state, self.body()
        if not isinstance(body, dict) or body.get("api_key") != state.store["api_key"]:
            self.reply(401, {"error": "invalid_key"})
            return
        state.issued += 1
        token = "tok_" + hashlib.sha256(f"{state.store['api_key']}:{state.issued}".encode()).hexdigest()[:20]
        state.tokens[token] = state.store["token_uses"]
        self.reply(
            200, {"access_token": token, "token_type": "Bearer", "expires_in_requests": state.store["token_uses"]}
        )

    def authorized(self) -> bool:
        state = self.state
        header = self.headers.get("Authorization") or ""
        token = header[7:].strip() if header.lower().startswith("bearer ") else ""
        if token not in state.tokens:
            self.reply(401, {"error": "invalid_token"})
            return False
        if state.tokens[token] <= 0:
            self.reply(401, {"error": "token_expired"})
            return False
        state.tokens[token] -= 1
        return True

    # -- data -------------------------------------------------------------------------------------

    def snapshot(self, query: dict[str, str]) -> dict[str, dict[str, Any]] | None:
        state, wanted = self.state, query.get("snapshot")
        if wanted is None:
            return state.stale if state.stale is not None else state.current
        if wanted == state.store["snapshot"]:
            return state.current
        if state.stale is not None and wanted == state.store["pinned"]:
            return state.stale
        self.reply(404, {"error": "unknown_snapshot", "detail": wanted})
        return None

    def failure(self, key: str) -> tuple[int, float]:
        """The planned failure of `key` for this attempt: (status, Retry-After), (0, 0) when none. A key
        inside its Retry-After window is refused again without using up a planned failure."""
        state, now = self.state, time.monotonic()
        if state.blocked.get(key, 0.0) > now:
            return 429, state.blocked[key] - now
        planned = state.faults.get(key)
        if not planned:
            return 0, 0.0
        status = planned.pop(0)
        if status == 429:
            pause = float(state.store["retry_after"])
            state.blocked[key] = now + pause
            return 429, pause
        return status, 0.0

    def fault(self, *keys: str) -> bool:
        """Answer the first planned failure among `keys` (each key uses up one), if any (True when answered)."""
        failures = [self.failure(key) for key in keys]
        status, wait = next((f for f in failures if f[0]), (0, 0.0))
        if status == 429:
            wait = max(w for s, w in failures if s == 429)
            self.reply(429, {"error": "rate_limited"}, {"Retry-After": f"{wait:.2f}"})
        elif status:
            self.reply(status, {"error": "upstream_unavailable", "detail": "upstream timeout, try again"})
        return bool(status)

    def meter(self) -> bool:
        state, quota = self.state, self.state.store["quota"]
        if quota and state.metered >= quota:
            self.reply(429, {"error": "quota_exhausted", "detail": "the key's record-read quota is spent"})
            return False
        state.metered += 1
        return True

    def quota_headers(self) -> dict[str, str]:
        quota = self.state.store["quota"]
        return {"X-Quota-Remaining": str(quota - self.state.metered)} if quota else {}

    def matching(self, records: dict[str, dict[str, Any]], query: dict[str, str]) -> list[dict[str, Any]] | None:
        """The records matching the query's fields and filter, by id (None, answered, on a bad filter)."""
        fields = ("category", "region", "status")
        limit = self.state.store["filter_max"]
        if limit and len(quote_plus(query.get("filter", ""))) > limit:
            body: dict[str, Any] = {"error": "payload_too_large"}
            if self.state.store["filter_max_said"]:
                body["max_bytes"] = limit
            self.reply(413, body)
            return None
        try:
            predicate = compile_filter(query["filter"]) if query.get("filter") else None
        except FilterError as error:
            self.reply(400, {"error": "bad_filter", "detail": str(error)})
            return None
        return sorted(
            (
                r
                for r in records.values()
                if all(r[f] == query[f] for f in fields if f in query) and (predicate is None or predicate(r))
            ),
            key=lambda r: r["id"],
        )

    def facets(self, query: dict[str, str]) -> None:
        records = self.snapshot(query)
        if records is None:
            return
        found = self.matching(records, query)
        if found is None:
            return
        result: dict[str, dict[str, int]] = {"region": {}, "status": {}}
        for record in found:
            for name in result:
                result[name][record[name]] = result[name].get(record[name], 0) + 1
        self.reply(200, {name: dict(sorted(counts.items())) for name, counts in result.items()})

    def listing(self, query: dict[str, str]) -> None:
        store = self.state.store
        records = self.snapshot(query)
        if records is None:
            return
        offset = offset_of(query["cursor"]) if "cursor" in query else 0
        if offset is None:
            self.reply(400, {"error": "bad_cursor"})
            return
        try:
            size = min(int(query.get("page_size", "10")), store["page_max"])
        except ValueError:
            self.reply(400, {"error": "bad_page_size"})
            return
        if self.fault(f"page:{query.get('category', '')}:{offset}"):
            return
        found = self.matching(records, query)
        if found is None:
            return
        total = len(found)
        cap = store["search_cap"]
        if cap and total > cap:
            found = found[:cap]
        start = max(0, offset - store["resend"]) if offset else 0
        page = found[start : offset + size]
        following = offset + size
        body: dict[str, Any] = {
            "items": [{k: r[k] for k in ("id", "title", "region", "status")} for r in page],
            "total_count": total,
            "next_cursor": cursor_of(following) if following < len(found) else None,
        }
        if cap and total > cap and store["cap_warning"]:
            body["incomplete_results"] = True
            body["warning"] = f"only the first {cap} matches are served; narrow the query"
        self.reply(200, body)

    def public(self, record: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in record.items() if k != "gone"}

    def single(self, record_id: str, query: dict[str, str]) -> None:
        records = self.snapshot(query)
        if records is None or self.fault(f"record:{record_id}") or not self.meter():
            return
        record = records.get(record_id)
        if record is None or record.get("gone"):
            self.reply(404, {"error": "not_found", "detail": record_id}, self.quota_headers())
            return
        self.reply(200, self.public(record), self.quota_headers())

    def batch(self, query: dict[str, str]) -> None:
        store, body = self.state.store, self.body()
        records = self.snapshot(query)
        if records is None:
            return
        ids = body.get("ids") if isinstance(body, dict) else None
        if not isinstance(ids, list) or not ids or len(ids) > store["batch_max"]:
            if self.meter():
                self.reply(400, {"error": "bad_batch", "detail": f"1 to {store['batch_max']} ids"})
            return
        if self.fault(*(f"record:{i}" for i in ids)) or not self.meter():
            return
        found = [records.get(str(i)) for i in ids]
        self.reply(
            200,
            {
                "records": [self.public(r) for r in found if r is not None and not r.get("gone")],
                "missing": [str(i) for i, r in zip(ids, found, strict=True) if r is None or r.get("gone")],
            },
            self.quota_headers(),
        )


def watchdog(server: HTTPServer, state: State, started: float) -> None:
    while True:
        time.sleep(0.5)
        now = time.monotonic()
        if now - state.last > IDLE_SECONDS or now - started > LIFETIME_SECONDS:
            server.shutdown()
            return


def main() -> None:
    store = json.loads(zlib.decompress((HERE / "store.bin").read_bytes()))
    run = HERE / "run"
    run.mkdir(exist_ok=True)
    state = State(store)
    Handler.state = state
    server = HTTPServer(("127.0.0.1", 0), Handler)
    partial = run / f"port.{os.getpid()}"
    partial.write_text(str(server.server_address[1]))
    partial.replace(run / "port")
    threading.Thread(target=watchdog, args=(server, state, time.monotonic()), daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
        (run / "port").unlink(missing_ok=True)
    sys.exit(0)


if __name__ == "__main__":
    main()

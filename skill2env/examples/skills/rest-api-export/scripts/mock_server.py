#!/usr/bin/env python3
"""A small local stand-in for a paginated customer API, for trying the export offline.

Listens on 127.0.0.1 only (port 0 = any free port) and writes the port to --port-file.

  POST /v1/auth/token      the API key in the X-API-Key header -> {"access_token", "expires_in"}
  GET  /v1/customers       the token as a bearer token in the Authorization header,
                           ?limit=N&cursor=C -> {"data": [...], "next_cursor": C | null}

Misbehaves on purpose, once each, like real services do: the second page answers
429 with Retry-After, the third page answers 503, and a token expires after
--token-uses requests (401). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

MAX_LIMIT = 50


class State:
    def __init__(self, records: list[dict], api_key: str, token_uses: int, retry_after: str) -> None:
        self.records, self.api_key, self.token_uses, self.retry_after = records, api_key, token_uses, retry_after
        self.tokens: dict[str, int] = {}
        self.issued = 0
        self.failed_once: set[str] = set()
        self.log: list[str] = []


def make_handler(state: State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            state.log.append(format % args)

        def reply(self, status: int, body: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if urlsplit(self.path).path != "/v1/auth/token":
                return self.reply(404, {"error": "not_found"})
            if self.headers.get("X-API-Key") != state.api_key:
                return self.reply(403, {"error": "invalid_api_key"})
            state.issued += 1
            token = f"tok-{state.issued}"
            state.tokens[token] = state.token_uses
            return self.reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600})

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            if url.path != "/v1/customers":
                return self.reply(404, {"error": "not_found"})
            auth = self.headers.get("Authorization", "")
            token = auth.removeprefix("Bearer ").strip()
            if state.tokens.get(token, 0) <= 0:
                return self.reply(401, {"error": "token_expired" if token in state.tokens else "unauthorized"})
            state.tokens[token] -= 1
            query = parse_qs(url.query)
            try:
                limit = int(query.get("limit", ["10"])[0])
                start = int(query.get("cursor", ["0"])[0] or 0)
            except ValueError:
                return self.reply(400, {"error": "bad_query"})
            if not 1 <= limit <= MAX_LIMIT:
                return self.reply(400, {"error": f"limit must be 1..{MAX_LIMIT}"})
            page = start // limit + 1
            if page == 2 and "429" not in state.failed_once:
                state.failed_once.add("429")
                return self.reply(429, {"error": "rate_limited"}, {"Retry-After": state.retry_after})
            if page == 3 and "503" not in state.failed_once:
                state.failed_once.add("503")
                return self.reply(503, {"error": "upstream_unavailable"})
            rows = state.records[start : start + limit]
            following = start + limit if start + limit < len(state.records) else None
            return self.reply(200, {"data": rows, "next_cursor": None if following is None else str(following)})

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve sample records as a paginated JSON API on 127.0.0.1.")
    parser.add_argument("--data", required=True, type=Path, help="JSON list of records to serve")
    parser.add_argument("--port-file", required=True, type=Path, help="write the chosen port here")
    parser.add_argument("--port", type=int, default=0, help="port (default 0: any free port)")
    parser.add_argument("--api-key", default="demo-key-123", help="the API key the token endpoint accepts")
    parser.add_argument("--token-uses", type=int, default=4, help="requests a token is good for (default 4)")
    parser.add_argument("--retry-after", default="1", help="Retry-After value sent with the 429 (seconds)")
    args = parser.parse_args(argv)
    if not args.data.is_file():
        print(f"error: data file not found: {args.data}", file=sys.stderr)
        return 2
    records = json.loads(args.data.read_text(encoding="utf-8"))
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(
        State(records, args.api_key, args.token_uses, args.retry_after)))  # fmt: skip
    args.port_file.write_text(str(server.server_address[1]), encoding="utf-8")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Export every record of a paginated REST/JSON API to CSV.

Auth flow: the API key (from --api-key-file or the API_KEY environment variable) is
exchanged for a bearer token at --token-path (a POST carrying the key in the X-API-Key
header); the token goes in the Authorization header of every request and is renewed
once when a request answers 401.

Pagination: GET <base-url><resource>?limit=<page-size>&cursor=<cursor>, following
"next_cursor" in the JSON body until it is null; records are read from "data".
A cursor seen twice is an error (the export would never end).

Failures: 429 waits for Retry-After (seconds or an HTTP date, capped by --max-wait);
5xx answers and connection errors are retried with exponential backoff
(--backoff * 2**attempt); both count against --max-retries per request. Other 4xx
answers stop the export. The CSV is written only when every page was read.

CSV: nested objects become dotted columns (address.city), lists are joined with
";", null is empty; records repeated across pages (same --key) are written once.
Standard library only.

Exit codes: 0 export complete, 1 export failed (HTTP error, retries exhausted),
2 usage or input error (no API key, key file missing, bad URL).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


class InputError(Exception):
    """Usage or input problem."""


class ExportFailed(Exception):
    """The service refused or kept failing."""


class Client:
    def __init__(self, args: argparse.Namespace, api_key: str) -> None:
        self.args, self.api_key = args, api_key
        host = urllib.parse.urlsplit(args.base_url).hostname or ""
        # a local service must not be sent through a proxy from the environment
        handlers = [urllib.request.ProxyHandler({})] if host in LOOPBACK else []
        self.opener = urllib.request.build_opener(*handlers)
        self.token: str | None = None
        self.stats = {"requests": 0, "rate_limited": 0, "server_errors": 0, "token_requests": 0, "waited_s": 0.0}

    def call(self, method: str, url: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        self.stats["requests"] += 1
        data = b"" if method == "POST" else None
        # main() only accepts http and https base URLs
        request = urllib.request.Request(url, data, {"Accept": "application/json", **headers}, method=method)  # noqa: S310
        try:
            with self.opener.open(request, timeout=self.args.timeout) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers or {}), exc.read()

    def sleep(self, seconds: float) -> None:
        seconds = max(0.0, min(seconds, self.args.max_wait))
        self.stats["waited_s"] = round(self.stats["waited_s"] + seconds, 3)
        time.sleep(seconds)

    def with_retries(self, method: str, url: str, headers_of: Any) -> tuple[int, bytes]:
        for attempt in range(self.args.max_retries + 1):
            last = attempt == self.args.max_retries
            try:
                status, headers, body = self.call(method, url, headers_of())
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if last:
                    raise ExportFailed(f"{method} {url}: {exc}") from exc
                self.stats["server_errors"] += 1
                self.sleep(self.args.backoff * 2**attempt)
                continue
            if status == 429 and not last:
                self.stats["rate_limited"] += 1
                self.sleep(retry_after(headers, self.args.backoff * 2**attempt))
                continue
            if status >= 500 and not last:
                self.stats["server_errors"] += 1
                self.sleep(self.args.backoff * 2**attempt)
                continue
            return status, body
        raise AssertionError("unreachable")

    def authenticate(self) -> None:
        url = self.args.base_url.rstrip("/") + self.args.token_path
        self.stats["token_requests"] += 1
        status, body = self.with_retries("POST", url, lambda: {"X-API-Key": self.api_key})
        if status != 200:
            raise ExportFailed(f"token request answered {status}: {snippet(body)}")
        token = parse_json(body, url).get("access_token")
        if not token:
            raise ExportFailed("token response has no access_token")
        self.token = token

    def get(self, url: str) -> dict[str, Any]:
        if self.token is None:
            self.authenticate()
        for renewed in (False, True):
            status, body = self.with_retries("GET", url, lambda: {"Authorization": f"Bearer {self.token}"})
            if status == 401 and not renewed:
                self.authenticate()
                continue
            if status != 200:
                raise ExportFailed(f"GET {url} answered {status}: {snippet(body)}")
            return parse_json(body, url)
        raise AssertionError("unreachable")


def retry_after(headers: dict[str, str], default: float) -> float:
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return default
    try:
        return float(value)
    except ValueError:
        try:
            return parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return default


def snippet(body: bytes) -> str:
    return body[:200].decode("utf-8", "replace").strip()


def parse_json(body: bytes, url: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except ValueError as exc:
        raise ExportFailed(f"{url}: response is not JSON: {snippet(body)!r}") from exc
    if not isinstance(data, dict):
        raise ExportFailed(f"{url}: expected a JSON object")
    return data


def flatten(record: dict[str, Any], prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in record.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, name + "."))
        elif isinstance(value, list):
            out[name] = ";".join(json.dumps(v) if isinstance(v, (dict, list)) else str(v) for v in value)
        elif value is None:
            out[name] = ""
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        else:
            out[name] = str(value)
    return out


def export(client: Client, args: argparse.Namespace) -> tuple[list[dict[str, str]], dict[str, Any]]:
    base = args.base_url.rstrip("/") + args.resource
    cursor: str | None = None
    seen_cursors: set[str] = set()
    rows: list[dict[str, str]] = []
    keys: set[str] = set()
    pages = duplicates = 0
    while True:
        query = {args.limit_param: str(args.page_size)}
        if cursor is not None:
            query[args.cursor_param] = cursor
        page = client.get(f"{base}?{urllib.parse.urlencode(query)}")
        pages += 1
        records = page.get("data")
        if not isinstance(records, list):
            raise ExportFailed(f"page {pages}: no 'data' list in the response")
        for record in records:
            key = str(record.get(args.key))
            if key in keys:
                duplicates += 1
                continue
            keys.add(key)
            rows.append(flatten(record))
        cursor = page.get("next_cursor")
        if cursor in (None, ""):
            break
        cursor = str(cursor)
        if cursor in seen_cursors:
            raise ExportFailed(f"cursor {cursor!r} returned twice; the pagination loops")
        seen_cursors.add(cursor)
    return rows, {"pages": pages, "records": len(rows), "duplicates_skipped": duplicates}


def write_csv(path: Path, rows: list[dict[str, str]], fields: list[str] | None) -> list[str]:
    columns = fields or list(dict.fromkeys(k for row in rows for k in row))
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore", restval="")
        writer.writeheader()
        writer.writerows(rows)
    partial.replace(path)
    return columns


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Export all records of a paginated JSON API (bearer token from an API key) to CSV.",
        epilog="Exit codes: 0 export complete, 1 export failed, 2 usage or input error.",
    )
    parser.add_argument("--base-url", required=True, help="e.g. http://127.0.0.1:8080")
    parser.add_argument("--resource", default="/v1/customers", help="collection path (default /v1/customers)")
    parser.add_argument("--token-path", default="/v1/auth/token", help="token endpoint (default /v1/auth/token)")
    parser.add_argument("--api-key-file", type=Path, help="file holding the API key (else $API_KEY)")
    parser.add_argument("--output", required=True, type=Path, help="CSV file to write")
    parser.add_argument("--fields", help="comma-separated columns to keep, in order (default: all, first seen)")
    parser.add_argument("--key", default="id", help="record field that identifies a record (default id)")
    parser.add_argument("--page-size", type=int, default=50, help="records per page (default 50)")
    parser.add_argument("--limit-param", default="limit")
    parser.add_argument("--cursor-param", default="cursor")
    parser.add_argument("--max-retries", type=int, default=4, help="retries per request (default 4)")
    parser.add_argument("--backoff", type=float, default=1.0, help="first backoff in seconds (default 1)")
    parser.add_argument("--max-wait", type=float, default=60.0, help="longest single wait in seconds (default 60)")
    parser.add_argument("--timeout", type=float, default=30.0, help="per-request timeout in seconds")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


def api_key(args: argparse.Namespace) -> str:
    if args.api_key_file is not None:
        if not args.api_key_file.is_file():
            raise InputError(f"API key file not found: {args.api_key_file}")
        key = args.api_key_file.read_text(encoding="utf-8").strip()
    else:
        key = os.environ.get("API_KEY", "").strip()
    if not key:
        raise InputError("no API key: pass --api-key-file or set API_KEY")
    return key


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        url = urllib.parse.urlsplit(args.base_url)
        if url.scheme not in {"http", "https"} or not url.hostname:
            raise InputError(f"--base-url must be an http(s) URL, got {args.base_url!r}")
        if args.page_size < 1 or args.max_retries < 0:
            raise InputError("--page-size must be >= 1 and --max-retries >= 0")
        client = Client(args, api_key(args))
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        rows, summary = export(client, args)
    except ExportFailed as exc:
        print(f"error: export failed, nothing written: {exc}", file=sys.stderr)
        return EXIT_FAILED
    fields = [f.strip() for f in args.fields.split(",") if f.strip()] if args.fields else None
    summary["columns"] = write_csv(args.output, rows, fields)
    summary.update(client.stats)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{summary['records']} records from {summary['pages']} pages -> {args.output} "
              f"({summary['requests']} requests, {summary['rate_limited']} rate limited, "
              f"{summary['server_errors']} server errors, {summary['token_requests']} token requests)")  # fmt: skip
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

"""Reference solver for the web-API kit.

It starts the local service, reads the limits from the API docs, exchanges the key for a token (and
again whenever one expires), names the latest snapshot on every request, writes the request's
conditions in the filter language as its reference defines it (half-open day ranges, `~` for any
letter case, `missing(f) or f != x`), lists the category in slices narrow enough for the search cap
(by region, then status), deduplicates the overlapping pages, reads the records in full batches
(within the metered quota), retries 503s with exponential backoff and 429s after their Retry-After,
reports the records that answer 404, drops the sandbox fixtures (by source, or by the feed's
environment), writes the CSV and the summary, and stops the service.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import date, timedelta
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

TIMEOUT = 10.0
ATTEMPTS = 10


def start() -> tuple[subprocess.Popen[bytes], str]:
    port_file = rt.workspace() / "service" / "run" / "port"
    port_file.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, str(rt.workspace() / "service" / "server.py")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and process.poll() is None:
        port = port_file.read_text().strip() if port_file.exists() else ""
        if port:
            return process, f"http://127.0.0.1:{port}"
        time.sleep(0.02)
    process.kill()
    raise SystemExit("the service did not start")


def send(base: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, dict[str, str], Any]:
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    request = urllib.request.Request(base + path, data=data, method=method)  # noqa: S310 - loopback only
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:  # noqa: S310 - loopback only
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, dict(error.headers), json.loads(raw or b"null")
        except ValueError:
            return error.code, dict(error.headers), None


class Client:
    def __init__(self, base: str, key: str) -> None:
        self.base, self.key, self.token = base, key, ""

    def login(self) -> None:
        status, _, body = send(self.base, "POST", "/v1/auth/token", {"api_key": self.key})
        if status != 200:
            raise SystemExit(f"token exchange failed: {status} {body}")
        self.token = body["access_token"]

    def call(self, method: str, path: str, params: dict[str, Any] | None = None, body: Any = None) -> tuple[int, Any]:
        """The final answer to a request after re-authentication and retries of transient failures."""
        url = path + ("?" + urllib.parse.urlencode(params) if params else "")
        if not self.token:
            self.login()
        pause, tries = 0.02, 0
        while True:
            status, headers, parsed = send(self.base, method, url, body, self.token)
            error = parsed.get("error") if isinstance(parsed, dict) else None
            if status == 401 and error == "token_expired":
                self.login()
                continue
            tries += 1
            if tries >= ATTEMPTS:
                return status, parsed
            if status == 429 and error == "rate_limited":
                time.sleep(float(headers.get("Retry-After") or pause) + 0.02)
            elif status >= 500:
                time.sleep(pause)
                pause = min(pause * 2, 0.16)
            else:
                return status, parsed


def limits(doc: str) -> dict[str, int]:
    def number(pattern: str, default: int) -> int:
        found = re.search(pattern, doc)
        return int(found.group(1)) if found else default

    return {
        "page": number(r"`page_size` is at most (\d+)", 10),
        "batch": number(r"\(1 to (\d+) ids\)", 1),
        "cap": number(r"serves at most (\d+) matches", 0),
        "filter": number(r"A filter may be at most (\d+) bytes", 0),
    }


def expression(request: str) -> str:
    """The request's conditions in the filter language: half-open day ranges, `~` for any letter case,
    `missing(f) or f != x` to keep records without the field."""
    parts = []
    window = re.search(r"^Updated: from (\S+) through (\S+)", request, re.M)
    if window:
        after = date.fromisoformat(window.group(2)) + timedelta(days=1)
        parts += [f"updated >= {window.group(1)}", f"updated < {after.isoformat()}"]
    status = re.search(r"^Status: (\S+)", request, re.M)
    if status:
        parts.append(f'status ~ "{status.group(1)}"')
    tier = re.search(r"^Tier: any but (\S+)", request, re.M)
    if tier:
        parts.append(f'(missing(tier) or tier != "{tier.group(1)}")')
    return " and ".join(parts)


def chunked(condition: str, request: str, most: int) -> list[str]:
    """The request's filter, as several filters each under `most` URL-encoded bytes when a watchlist of ids
    makes it too long (their results are merged)."""
    watch = re.search(r"^Ids: only those in (\S+)", request, re.M)
    if not watch:
        return [condition]
    ids = rt.read_text(rt.workspace() / watch.group(1)).split()

    def compose(chunk: list[str]) -> str:
        listed_ids = "(" + " or ".join(f'id == "{i}"' for i in chunk) + ")"
        return f"{condition} and {listed_ids}" if condition else listed_ids

    chunks: list[list[str]] = [[]]
    for record_id in ids:
        if chunks[-1] and most and len(urllib.parse.quote_plus(compose([*chunks[-1], record_id]))) > most:
            chunks.append([])
        chunks[-1].append(record_id)
    return [compose(chunk) for chunk in chunks if chunk]


def listed(client: Client, snapshot: str, filters: dict[str, str], limit: dict[str, int]) -> list[dict[str, Any]]:
    """Every match of `filters`, narrowed by region, then status, while a query exceeds the search cap."""
    params = {**filters, "snapshot": snapshot, "page_size": limit["page"]}
    status, first = client.call("GET", "/v1/records", params)
    if status != 200:
        raise SystemExit(f"listing failed: {status} {first}")
    if limit["cap"] and first["total_count"] > limit["cap"]:
        facet = next(f for f in ("region", "status") if f not in filters)
        status, facets = client.call("GET", "/v1/facets", {**filters, "snapshot": snapshot})
        if status != 200:
            raise SystemExit(f"facets failed: {status} {facets}")
        return [item for value in facets[facet] for item in listed(client, snapshot, {**filters, facet: value}, limit)]
    items, page = list(first["items"]), first
    while page["next_cursor"]:
        status, page = client.call("GET", "/v1/records", {**params, "cursor": page["next_cursor"]})
        if status != 200:
            raise SystemExit(f"listing failed: {status} {page}")
        items += page["items"]
    return items


def live(record: dict[str, Any], feeds: dict[str, str]) -> bool:
    """A catalogue record, not a sandbox fixture (its source, or its feed's environment, says)."""
    if "source" in record and record["source"] != "live":
        return False
    return "feed" not in record or feeds.get(record["feed"]) == "live"


def main() -> None:
    root = rt.workspace()
    request = rt.read_text(root / "request.md")
    category = re.search(r"^Category:\s*(\S+)", request, re.M).group(1)  # type: ignore[union-attr]
    field = re.search(r"^Value field:\s*(\S+)", request, re.M).group(1)  # type: ignore[union-attr]
    limit = limits(rt.read_text(root / "docs" / "api.md"))
    process, base = start()
    try:
        client = Client(base, rt.read_text(root / "config" / "api_key.txt").strip())
        status, latest = client.call("GET", "/v1/snapshots/latest")
        if status != 200:
            raise SystemExit(f"snapshot lookup failed: {status} {latest}")
        snapshot = latest["snapshot"]
        found: list[str] = []
        for condition in chunked(expression(request), request, limit["filter"]):
            filters = {"category": category, **({"filter": condition} if condition else {})}
            found += [item["id"] for item in listed(client, snapshot, filters, limit)]
        ids = list(dict.fromkeys(found))
        records: dict[str, dict[str, Any]] = {}
        missing: list[str] = []
        for start_at in range(0, len(ids), limit["batch"]):
            chunk = ids[start_at : start_at + limit["batch"]]
            status, body = client.call("POST", "/v1/records/batch", {"snapshot": snapshot}, {"ids": chunk})
            if status != 200:
                raise SystemExit(f"batch read failed: {status} {body}")
            records.update((r["id"], r) for r in body["records"])
            missing += body["missing"]
        feeds_file = root / "config" / "feeds.json"
        feeds = json.loads(rt.read_text(feeds_file))["feeds"] if feeds_file.exists() else {}
        rows = [records[i] for i in ids if i in records and live(records[i], feeds)]
        with rt.out("records.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["id", "title", "region", field])
            writer.writerows([r["id"], r["title"], r["region"], r[field]] for r in rows)
        if rt.partial_mode():
            return
        counts: dict[str, int] = {}
        sums: dict[str, float] = {}
        for r in rows:
            counts[r["region"]] = counts.get(r["region"], 0) + 1
            sums[r["region"]] = sums.get(r["region"], 0.0) + r[field]
        rt.write_json(
            "summary.json",
            {
                "category": category,
                "count": len(rows),
                "total": round(sum(r[field] for r in rows), 2),
                "failed_ids": sorted(missing),
                "by_region": dict(sorted(counts.items())),
                "top_region": min(counts, key=lambda k: (-counts[k], k)) if counts else "",
                "total_by_region": {k: round(v, 2) for k, v in sorted(sums.items())},
            },
        )
    finally:
        with contextlib.suppress(OSError):
            send(base, "POST", "/v1/admin/shutdown")
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


if __name__ == "__main__":
    main()

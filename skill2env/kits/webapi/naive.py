"""Naive baseline for the web-API kit: the obvious client.

It starts the service, exchanges the key for a token once, writes the request's conditions as a filter
the way SQL reads (`updated <= <last day>`, `status == "x"`, `tier != "y"`, every watchlist id in one
filter), lists the category page after page without naming a snapshot (stopping at the first error),
keeps every item the pages return, reads each record with its own request, reports every record whose
read fails, whatever the error, without retrying, and keeps the sandbox fixtures. It stops the service
when done.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime


def send(base: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else (b"" if method == "POST" else None)
    request = urllib.request.Request(base + path, data=data, method=method)  # noqa: S310 - loopback only
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - loopback only
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None


def main() -> None:
    root = rt.workspace()
    request = rt.read_text(root / "request.md")
    category = re.search(r"^Category:\s*(\S+)", request, re.M).group(1)  # type: ignore[union-attr]
    field = re.search(r"^Value field:\s*(\S+)", request, re.M).group(1)  # type: ignore[union-attr]
    port_file = root / "service" / "run" / "port"
    port_file.unlink(missing_ok=True)
    process = subprocess.Popen([sys.executable, str(root / "service" / "server.py")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    for _ in range(500):
        if port_file.exists() and port_file.read_text().strip():
            break
        time.sleep(0.02)
    base = f"http://127.0.0.1:{port_file.read_text().strip()}"
    try:
        key = rt.read_text(root / "config" / "api_key.txt").strip()
        token = send(base, "POST", "/v1/auth/token", {"api_key": key})[1]["access_token"]
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {"category": category, "page_size": 100}
        conditions = []
        window = re.search(r"^Updated: from (\S+) through (\S+)", request, re.M)
        if window:
            conditions.append(f"updated >= {window.group(1)} and updated <= {window.group(2)}")
        wanted = re.search(r"^Status: (\S+)", request, re.M)
        if wanted:
            conditions.append(f'status == "{wanted.group(1)}"')
        tier = re.search(r"^Tier: any but (\S+)", request, re.M)
        if tier:
            conditions.append(f'tier != "{tier.group(1)}"')
        watch = re.search(r"^Ids: only those in (\S+)", request, re.M)
        if watch:
            ids = rt.read_text(root / watch.group(1)).split()
            conditions.append("(" + " or ".join(f'id == "{i}"' for i in ids) + ")")
        if conditions:
            params["filter"] = " and ".join(conditions)
        while True:
            status, page = send(base, "GET", "/v1/records?" + urllib.parse.urlencode(params), token=token)
            if status != 200:
                break
            items += page["items"]
            if not page["next_cursor"]:
                break
            params["cursor"] = page["next_cursor"]
        rows, failed = [], []
        for item in items:
            status, record = send(base, "GET", f"/v1/records/{item['id']}", token=token)
            if status == 200:
                rows.append(record)
            else:
                failed.append(item["id"])
        with rt.out("records.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(["id", "title", "region", field])
            writer.writerows([r["id"], r["title"], r["region"], r[field]] for r in rows)
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
                "failed_ids": sorted(failed),
                "by_region": counts,
                "top_region": max(counts, key=lambda k: counts[k]) if counts else "",
                "total_by_region": {k: round(v, 2) for k, v in sums.items()},
            },
        )
    finally:
        send(base, "POST", "/v1/admin/shutdown")
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()


if __name__ == "__main__":
    main()

"""Render a web-API world into the workspace: the service, its private store, its documentation and the key.

The records live only in the service's store (`service/store.bin`, zlib-compressed JSON the service
reads at start), so the API is the way to them. The docs (Markdown and an OpenAPI-style YAML) state
the contract, including every limit the patterns set.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from skill2env.kits.spec import Workspace
from skill2env.kits.webapi.world import BATCH_MAX, PAGE_MAX, RETRY_AFTER, Record, World

SERVER = "service/server.py"
STORE = "service/store.bin"
API_DOC = "docs/api.md"
OPENAPI = "docs/openapi.yaml"
KEY_FILE = "config/api_key.txt"
REQUEST = "request.md"
FILTER_DOC = "docs/filter_syntax.md"
FEEDS = "config/feeds.json"
WATCHLIST = "config/watchlist.txt"
SERVER_SOURCE = (Path(__file__).parent / "server.py").read_text(encoding="utf-8")


def record_json(record: Record, world: World) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": record.id,
        "title": record.title,
        "category": record.category,
        "region": record.region,
        "status": record.status,
        world.field_name: record.value,
        "updated": record.updated,
    }
    if record.tier is not None:
        row["tier"] = record.tier
    if world.scope_level in (1, 2):
        row["source"] = "live" if record.live else ("sandbox" if world.scope_level == 1 else "live-staging")
    if world.scope_level == 3:
        row["feed"] = record.feed
    if record.id in world.gone:
        row["gone"] = True
    return row


def store(world: World) -> dict[str, Any]:
    return {
        "api_key": world.api_key,
        "snapshot": world.snapshot,
        "pinned": world.pinned,
        "published": "2024-06-30",
        "records": [record_json(r, world) for r in world.records],
        "stale": [record_json(r, world) for r in world.stale.values()] if world.stale is not None else None,
        "token_uses": world.token_uses,
        "page_max": PAGE_MAX,
        "batch_max": BATCH_MAX,
        "search_cap": world.search_cap,
        "filter_max": world.filter_max,
        "filter_max_said": world.filter_max_said,
        "cap_warning": world.cap_warning,
        "resend": world.resend,
        "quota": world.quota,
        "retry_after": RETRY_AFTER,
        "faults": dict(sorted(world.faults.items())),
    }


def render_world(world: World) -> Workspace:
    ws = Workspace()
    ws.add_text("README.md", readme(world))
    ws.add_text(API_DOC, api_doc(world))
    ws.add_text(OPENAPI, openapi(world))
    ws.add_text(SERVER, SERVER_SOURCE)
    data = json.dumps(store(world), sort_keys=True)
    ws.add(STORE, zlib.compress(data.encode(), 9), data)
    ws.add_text(KEY_FILE, world.api_key + "\n")
    ws.add_text(REQUEST, request(world))
    if world.window or world.watchlist:
        ws.add_text(FILTER_DOC, filter_doc(world))
    if world.watchlist:
        ws.add_text(WATCHLIST, "".join(i + "\n" for i in world.watchlist))
    if world.feeds:
        ws.add_text(FEEDS, json.dumps({"feeds": world.feeds}, indent=2) + "\n")
    return ws


def conditions(world: World) -> list[str]:
    lines = []
    if world.window:
        lines.append(f"Updated: from {world.window[0]} through {world.window[1]} (both days included, UTC)")
    if world.status_wanted:
        lines.append(f"Status: {world.status_wanted} (in any letter case)")
    if world.tier_excluded:
        lines.append(f"Tier: any but {world.tier_excluded} (records without a tier count)")
    if world.watchlist:
        lines.append(f"Ids: only those in {WATCHLIST}")
    return lines


def filter_doc(world: World) -> str:
    example = ""
    if not world.status_wanted:
        example = """
Example: the records updated in May 2024 are `updated >= 2024-05-01 and updated < 2024-06-01`, not
`updated <= 2024-05-31` (that stops at midnight opening 31 May and misses the rest of the day).
"""
    return f"""# Filter expressions

`GET /v1/records` and `GET /v1/facets` take `filter=<expression>` (URL-encoded). An expression compares
fields of a record with literals and combines the comparisons:

    expression := term (("and" | "or") term)*      -- "and" binds tighter than "or"
    term       := "not" term | "(" expression ")" | "missing(" field ")" | field operator literal
    operator   := "==" | "!=" | "<" | "<=" | ">" | ">=" | "~"
    literal    := "text in double quotes" | a number | a date YYYY-MM-DD | a time YYYY-MM-DDTHH:MM

Semantics:

- `updated` is a time (minute precision, UTC). A date literal means its midnight (`2024-05-31` is
  `2024-05-31T00:00`), so ranges of days are half-open: `updated >= <first day> and updated < <day after the
  last>`.
- `==` and `!=` compare text exactly, letter case included. `~` compares text ignoring letter case.
- A comparison with a field the record lacks is false, `!=` included: use `missing(<field>) or <field> != ...`
  to keep records without the field.
- A malformed expression answers `400 {{"error": "bad_filter"}}`.
{example}"""


def request(world: World) -> str:
    return f"""# Data request

Category: {world.category}
Value field: {world.field_name}
{"".join(line + chr(10) for line in conditions(world))}
Every {world.noun} of the category in the latest catalogue that meets the conditions above (if any), with its
value, and a summary.
"""


def readme(world: World) -> str:
    return f"""# Catalogue service ({world.theme})

The catalogue of {world.theme} is served by a small HTTP service that runs on this machine only.

* Start it with `python3 {SERVER} &`. It binds a free port on 127.0.0.1 and writes the port number to
  `service/run/port` once it listens (the file is removed when it stops). The base URL is
  `http://127.0.0.1:<port>`.
* Stop it with `POST /v1/admin/shutdown` when you are done (it also stops by itself after ten minutes
  without requests). A restart keeps what the key has used up.
* `{STORE}` is the service's private store; clients use the API (`{API_DOC}`, `{OPENAPI}`).
* `{KEY_FILE}` holds the API key of this workspace.
"""


def api_doc(world: World) -> str:
    sections = [
        f"# Catalogue API v1 ({world.theme})",
        "",
        "All responses are JSON. Every request except the token exchange needs `Authorization: Bearer <token>`.",
        "",
        "## Authentication",
        "",
        f'`POST /v1/auth/token` with `{{"api_key": "<key>"}}` (the key is in `{KEY_FILE}`) returns',
        '`{"access_token": "tok_...", "token_type": "Bearer", "expires_in_requests": <n>}`.',
        "A token serves `expires_in_requests` authorized requests; after that every request answers",
        '`401 {"error": "token_expired"}`: exchange the key for a new token and repeat the request.',
        "",
        "## Snapshots",
        "",
        "The catalogue is published in snapshots. `GET /v1/snapshots/latest` returns",
        '`{"snapshot": "<id>", "published": "<date>"}`. Listing, facet and record requests take `snapshot=<id>`.',
    ]
    if world.stale is not None:
        sections += [
            "Without `snapshot`, a request reads the snapshot pinned to the key when it was issued",
            f"(`{world.pinned}`), which may be older than the latest.",
        ]
    sections += [
        "",
        "## Listing",
        "",
        "`GET /v1/records?category=<c>[&region=<r>][&status=<s>][&page_size=<n>][&cursor=<c>]` returns",
        '`{"items": [{"id", "title", "region", "status"}, ...], "total_count": <n>, "next_cursor": "<c>" | null}`,',
        f"items ordered by id. `page_size` is at most {PAGE_MAX}. Pass `next_cursor` back as `cursor` for the next",
        "page; the last page has `next_cursor: null`.",
    ]
    if world.window or world.watchlist:
        sections += [
            "",
            f"`filter=<expression>` narrows the matches of a listing or facet query ({FILTER_DOC} gives the syntax).",
        ]
    if world.filter_max:
        sections += [
            f"A filter may be at most {world.filter_max} bytes long once URL-encoded as a form value (spaces as `+`);",
            'a longer one answers `413 {"error": "payload_too_large"}`.',
        ]
    if world.resend or world.overlap_documented:
        sections += [
            "",
            "Pages are cut on the server's replica boundaries: the first items of a page may repeat items the",
            "previous page already served. Deduplicate by `id`.",
        ]
    if world.search_cap:
        sections += [
            "",
            f"A listing query serves at most {world.search_cap} matches in total, however many pages are read;",
            "`total_count` is the number of matches. Narrow a larger query with `region` and `status` (their",
            "values and counts are in `GET /v1/facets?category=<c>[&region=<r>]`, which returns",
            '`{"region": {"<r>": <n>, ...}, "status": {"<s>": <n>, ...}}`).',
        ]
    else:
        sections += [
            "",
            "`GET /v1/facets?category=<c>[&region=<r>]` counts the matches by region and status.",
        ]
    sections += [
        "",
        "## Records",
        "",
        "`GET /v1/records/<id>` returns one record: `id`, `title`, `category`, `region`, `status`,",
        f"`{world.field_name}`, `updated`.",
        f'`POST /v1/records/batch` with `{{"ids": [...]}}` (1 to {BATCH_MAX} ids) returns',
        '`{"records": [...], "missing": ["<id>", ...]}`.',
    ]
    if world.quota:
        sections += [
            "",
            f"Record reads are metered: this key may make {world.quota} record reads in all. Each",
            "`GET /v1/records/<id>` and each `POST /v1/records/batch` counts one, whatever it returns (a malformed",
            "batch included); 429 and 5xx answers do not count. Responses carry `X-Quota-Remaining`. Once the",
            'quota is spent, record reads answer `429 {"error": "quota_exhausted"}` (no Retry-After).',
        ]
    if world.scope_level:
        sections += ["", "## Sandbox fixtures", ""]
        if world.scope_level < 3:
            sections += [
                "The listing also serves the sandbox's test fixtures. A record whose `source` is anything but exactly",
                "`live` is a fixture: it is not part of the catalogue.",
            ]
        else:
            sections += [
                "The listing also serves the sandbox's test fixtures. A record's `feed` names the feed it came from;",
                f"`{FEEDS}` gives each feed's environment. Records of a feed whose environment is not `live` are",
                "fixtures: they are not part of the catalogue.",
            ]
    sections += [
        "",
        "## Errors",
        "",
        "- `404 not_found` on a record: the record is listed but was removed; it answers 404 on every request.",
        "  Report it; do not retry it.",
        "- `503 upstream_unavailable`: transient. Retry with exponential backoff (start near 0.02 s, double each",
        "  time); an upstream can stay unavailable for several attempts, so allow at least 8 attempts.",
        "- `429 rate_limited`: wait the number of seconds in the `Retry-After` header (it may be fractional)",
        "  before repeating the request; a request inside that window is refused again.",
        "- `400`: a malformed request (bad cursor, page size or batch).",
    ]
    return "\n".join(sections) + "\n"


def openapi(world: World) -> str:
    return f"""openapi: 3.0.3
info:
  title: Catalogue API ({world.theme})
  version: "1.4"
servers:
  - url: http://127.0.0.1:{{port}}
    description: the port is in service/run/port
paths:
  /v1/auth/token:
    post:
      summary: Exchange the API key for a bearer token
  /v1/snapshots/latest:
    get:
      summary: The latest published snapshot
  /v1/facets:
    get:
      summary: Match counts by region and status
  /v1/records:
    get:
      summary: List records (paginated by cursor)
      parameters:
        - {{name: category, in: query}}
        - {{name: region, in: query}}
        - {{name: status, in: query}}
        - {{name: snapshot, in: query}}
        - {{name: page_size, in: query, schema: {{type: integer, maximum: {PAGE_MAX}}}}}
        - {{name: cursor, in: query}}
  /v1/records/{{id}}:
    get:
      summary: One record
  /v1/records/batch:
    post:
      summary: Up to {BATCH_MAX} records by id
  /v1/admin/shutdown:
    post:
      summary: Stop the service
components:
  schemas:
    Record:
      type: object
      properties:
        id: {{type: string}}
        title: {{type: string}}
        category: {{type: string}}
        region: {{type: string}}
        status: {{type: string}}
        {world.field_name}: {{type: number}}
        updated: {{type: string, format: date}}
"""

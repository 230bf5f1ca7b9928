"""Pattern transformers of the web-API kit: each builds one designed behaviour into the service at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the behaviour is there, but on
records of other categories or with room to spare, so the obvious client happens to be right): likely
at intensity 1, less so at 2, never at 3. Each tags the ids of the asked category whose rows its trap
changes; the rubric checks those rows on their own.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta

from skill2env.kits.spec import Design
from skill2env.kits.webapi.docs import API_DOC, FEEDS, FILTER_DOC
from skill2env.kits.webapi.world import PAGE_MAX, Record, World, reads_needed

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.75, 2: 0.4, 3: 0.0}
STUBBORN = 5
"""Failures in a row of the stubborn record at intensity 3 (a three-retry loop gives up)."""


def benign(rng: random.Random, level: int) -> bool:
    return rng.random() < BENIGN[level]


def tool_dsl_expression(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    first = rng.randint(1, 2)
    last = first + 3
    end = (date(2024, last + 1, 1) - timedelta(days=1)).isoformat()
    world.window = (f"2024-{first:02d}-01", end)
    category = [r for r in world.records if r.category == world.category]
    inside = [r for r in category if world.window[0] <= r.updated[:10] <= end]
    if not harmless:
        for record in rng.sample(inside, 2):
            record.updated = f"{end}T{rng.randint(6, 22):02d}:{rng.randint(0, 59):02d}"
            world.tag("tool_dsl_expression", record.id)
    if level >= 2:
        world.status_wanted = world.statuses[0]
        if not harmless:
            wanted = [r for r in inside if r.status == world.status_wanted]
            for record in rng.sample(wanted, min(3, len(wanted))):
                record.status = rng.choice((record.status.upper(), record.status.capitalize()))
                world.tag("tool_dsl_expression", record.id)
    if level == 3:
        world.tier_excluded = "internal"
        for record in world.records:
            record.tier = rng.choice(("public", "partner", "internal"))
        if not harmless:
            kept = [r for r in inside if r.tier != "internal" and world.wanted(r)]
            for record in rng.sample(kept, min(3, len(kept))):
                record.tier = None
                world.tag("tool_dsl_expression", record.id)
    world.tags["tool_dsl_expression"] = {i for i in world.tags.get("tool_dsl_expression", set())
                                          if any(r.id == i for r in world.asked())}  # fmt: skip
    design.plant("tool_dsl_expression", "filter.syntax", "the filter language's semantics", "half-open", FILTER_DOC)
    design.forms["tool_dsl_expression"] = {
        1: "The request's window is given in days, both included; in the filter language a date means its midnight "
        "and records on the last day carry a time, so `updated <= <last day>` drops them.",
        2: "As level 1, and the status must match in any letter case while `==` is case-sensitive.",
        3: "As level 2, and records without a tier count, while `!=` never matches a missing field.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.scope_level = level
    category = world.category if not harmless else rng.choice([c for c in world.categories if c != world.category])
    templates = [r for r in world.records if r.category == category and world.wanted(r)]
    taken = {r.id for r in world.records}
    for template in rng.sample(templates, min(len(templates), level + 1)):
        number = int(template.id.split("-")[1])
        while f"{world.prefix}-{number}" in taken:
            number += 1
        taken.add(f"{world.prefix}-{number}")
        fixture = replace(template, id=f"{world.prefix}-{number}", title=template.title.split(" ")[0] + " (fixture)",
                          value=world.value(), live=False)  # fmt: skip
        world.records.append(fixture)
        if not harmless:
            world.tag("scope_distractor", fixture.id)
    if level == 3:
        names = [f"feed-{rng.randint(100, 999)}" for _ in range(5)]
        world.feeds = {name: ("staging" if n in (1, 3) else "live") for n, name in enumerate(names)}
        live = [n for n, env in world.feeds.items() if env == "live"]
        staging = [n for n, env in world.feeds.items() if env == "staging"]
        for record in world.records:
            record.feed = rng.choice(live if record.live else staging)
    where = API_DOC if level < 3 else FEEDS
    design.plant("scope_distractor", "scope.fixtures", "sandbox fixtures are not part of the catalogue",
                 "fixture" if level < 3 else "staging", where)  # fmt: skip
    design.forms["scope_distractor"] = {
        1: "Sandbox fixtures (source: sandbox) are listed beside the catalogue's records of the category.",
        2: "The fixtures' source differs only by a suffix (live-staging against live).",
        3: "Only a record's feed tells a fixture: the feed's environment is in config/feeds.json.",
    }[level]


def payload_size_limit_chunking(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    listed = world.listed()
    kept = {r.id for r in listed if r.id in world.gone or not r.live}
    kept |= {r.id for r in rng.sample(listed, (len(listed) * 5) // 6)}
    kept |= {r.id for r in rng.sample(world.others(), 8)}
    world.watchlist = sorted(kept)
    world.filter_max = 20000 if harmless else {1: 900, 2: 700, 3: 500}[level]
    world.filter_max_said = level == 1
    world.tags["tool_dsl_expression"] = world.tags.get("tool_dsl_expression", set()) & kept
    if not harmless:
        world.tag("payload_size_limit_chunking", *(r.id for r in world.asked()))
    design.plant("payload_size_limit_chunking", "filter.limit", "a filter has a size limit", world.filter_max,
                 API_DOC)  # fmt: skip
    design.forms["payload_size_limit_chunking"] = {
        1: "The request names a watchlist of ids too long for one filter: the 413 answer names the limit, and the "
        "ids must be split into filters under it and the results merged.",
        2: "As level 1, and the 413 answer gives no size: the limit is only in the API docs.",
        3: "As level 2, with a lower limit counted after URL encoding.",
    }[level]


def state_dependency(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.pinned = f"snp_2023{rng.randint(1, 12):02d}{rng.randint(10, 28)}"
    stale = {r.id: replace(r) for r in world.records}
    pool = [stale[r.id] for r in world.others()] if harmless else [stale[r.id] for r in world.fresh(2)]
    for record in rng.sample(pool, 2):
        record.value = round(record.value * rng.choice((0.8, 0.9, 1.1, 1.25)), 2)
        if not harmless:
            world.tag("state_dependency", record.id)
    if level >= 2 and not harmless:
        world.token_uses = 6
        world.tag("state_dependency", *(r.id for r in world.fresh(3)[-3:]))
    if level == 3:
        dropped = rng.choice(world.fresh())
        del stale[dropped.id]
        world.tag("state_dependency", dropped.id)
        number = int(max(r.id for r in world.records).split("-")[1]) + rng.randint(1, 50)
        extra = Record(f"{world.prefix}-{number}", dropped.title + " (old)", world.category, dropped.region,
                       dropped.status, world.value(), "2023-11-02T08:15", dropped.tier)  # fmt: skip
        stale[extra.id] = extra
    world.stale = stale
    design.plant("state_dependency", "snapshot.latest", "requests must name the latest snapshot",
                 "GET /v1/snapshots/latest", API_DOC)  # fmt: skip
    design.forms["state_dependency"] = {
        1: "A request without a snapshot reads the key's pinned, older snapshot; the latest snapshot's id comes "
        "from one call and must be passed on every later request.",
        2: "As level 1, and tokens serve only a few requests: each expiry needs a new token exchange.",
        3: "As level 2, and the pinned snapshot lacks a current record and holds a removed one.",
    }[level]


def documented_input_limit(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    asked = world.listed()
    by_region = Counter(r.region for r in asked)
    by_slice = Counter((r.region, r.status) for r in asked)
    if harmless:
        world.search_cap = len(asked) + rng.randint(5, 20)
    elif level < 3:
        world.search_cap = max(by_region.values())
    else:
        world.search_cap = max(by_slice.values())
    world.cap_warning = level == 1
    if world.search_cap < len(asked):
        world.tag("documented_input_limit", *(r.id for r in asked[world.search_cap :] if r.id not in world.gone))
    design.plant("documented_input_limit", "listing.cap", "a listing query serves a limited number of matches",
                 world.search_cap, API_DOC)  # fmt: skip
    design.forms["documented_input_limit"] = {
        1: "A listing query serves only its first matches (documented; the response warns); the rest must be "
        "read by narrowing the query by region.",
        2: "As level 1, with no warning in the response: the limit is only in the API docs.",
        3: "As level 2, with a lower limit: a region alone exceeds it and must be split by status too.",
    }[level]


def chunk_boundary_state(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    world.resend = 0 if harmless else level
    world.overlap_documented = True
    if not harmless:
        asked = world.listed()
        for start in range(PAGE_MAX, len(asked), PAGE_MAX):
            world.tag("chunk_boundary_state", *(r.id for r in asked[start - level : start] if r.id not in world.gone))
    design.plant("chunk_boundary_state", "listing.overlap", "pages may repeat the previous page's last items",
                 "Deduplicate by `id`", API_DOC)  # fmt: skip
    design.forms["chunk_boundary_state"] = {
        1: "Each page after the first repeats the last item of the previous page; the ids seen must carry across "
        "pages.",
        2: "Each page repeats the last two items of the previous page.",
        3: "Each page repeats the last three items of the previous page.",
    }[level]


def transient_service_failure_retry(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    plans = {1: [[503], [503]], 2: [[503, 503], [429], [429, 503]], 3: [[503, 503], [429], [429, 503]]}[level]
    if level == 3:
        plans.append([503] * STUBBORN)
    pool = [r.id for r in world.others()] if harmless else [r.id for r in world.fresh(len(plans))]
    chosen = rng.sample(pool, len(plans))
    for record_id, plan in zip(chosen, plans, strict=True):
        world.faults[f"record:{record_id}"] = list(plan)
        if not harmless:
            world.tag("transient_service_failure_retry", record_id)
    if level >= 2:
        category = rng.choice([c for c in world.categories if c != world.category]) if harmless else world.category
        world.faults[f"page:{category}:{PAGE_MAX}"] = [503]
        if not harmless:
            world.tag(
                "transient_service_failure_retry", *(r.id for r in world.listed()[PAGE_MAX:] if r.id not in world.gone)
            )
    world.persistent_fault = level == 3
    design.plant("transient_service_failure_retry", "errors.transient", "503 and 429 answers are transient",
                 "503 upstream_unavailable", API_DOC)  # fmt: skip
    design.forms["transient_service_failure_retry"] = {
        1: "Some record reads answer 503 once; a single retry succeeds, while the removed records' 404s are permanent.",
        2: "503s and 429s with a fractional Retry-After, some twice in a row, and a listing page fails once.",
        3: "As level 2, and one record read fails five times in a row: only backoff with enough attempts succeeds.",
    }[level]


def resource_budget(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    listed, need = len(world.listed()), reads_needed(world)
    if harmless:
        world.quota = 2 * listed + rng.randint(5, 15)
    else:
        world.quota = {1: need + (listed - need) // 2, 2: need + 2, 3: need}[level]
        world.tag("resource_budget", *(r.id for r in world.listed()[world.quota :] if r.id not in world.gone))
    design.plant("resource_budget", "reads.quota", "record reads are metered against a quota", world.quota, API_DOC)
    design.forms["resource_budget"] = {
        1: "Record reads are metered with a quota below one read per record; the batch endpoint fits under it.",
        2: "As level 1, with the quota just above the batches a careful client needs.",
        3: "The quota is exactly the full batches needed: every batch must be packed and none wasted.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.summary_level = level
    design.plant("cross_deliverable_agreement", "deliverables.agree", "the summary agrees with the CSV", None, "")
    design.forms["cross_deliverable_agreement"] = {
        1: "The summary's count per region must equal the CSV's rows per region.",
        2: "As level 1, and the summary names the region with the most records.",
        3: "As level 2, and the summary sums the value per region.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "tool_dsl_expression": tool_dsl_expression,
    "scope_distractor": scope_distractor,
    "payload_size_limit_chunking": payload_size_limit_chunking,
    "state_dependency": state_dependency,
    "documented_input_limit": documented_input_limit,
    "chunk_boundary_state": chunk_boundary_state,
    "transient_service_failure_retry": transient_service_failure_retry,
    "resource_budget": resource_budget,
    "cross_deliverable_agreement": cross_deliverable_agreement,
}
PATTERNS = tuple(TRANSFORMERS)

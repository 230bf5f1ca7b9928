"""A scripted author for twelve real skills of the development corpus, and every other role it needs.

Each of the twelve skills gets one small, real task that exercises what its SKILL.md teaches (a
SimPy clinic simulation, unread items of local RSS / Atom feeds with feedparser, type errors found
by `tsc`, secrets checked with `openssl`, an Excalidraw diagram read as a graph, a D&D encounter
budget, upcoming birthdays, current learnings of a memory store, split-adjusted stock metrics, JTBD
forces of progress, spaced-repetition reviews, an Open-Meteo forecast in local time). A task is a
`TaskSpec`: its workspace (inline files and/or a deterministic generator), a reference solution in
steps, its declared packages, and its results: author-only facts, each graded by one
`json_path_equals` item on `out/result.json` (plus, for one task, a note the judge reads). The
blueprint and build answers are assembled from a spec by one set of helpers.

`respond(request)` answers every role of a pipeline run over those skills:

* pattern choice: the spec's own patterns where the candidates list them, then the best-ranked
  candidates, never two that conflict;
* blueprint and build: the spec's (its challenges are the patterns the skill was offered);
* solver: runs the reference solution of the task its instruction names (by the skill's mount)
  with one bash call, then finishes; asked to red-team, it finishes at once; in an agent loop without
  a `finish` tool (CompoWorld's) it answers in plain text that it has no solution;
* judge: scores a note 1 when it says what the spec's `Note.marker` holds, else 0 (the JTBD task has one);
* curator: `pass` for every criterion it is asked about on these skills (the rules keep them anyway);
  a refusal for any other skill, which so stays as the rules left it;
* any other skill: pattern choice is answered, the blueprint refused, so the author rejects it by
  name; a solver asked about a task of no spec finishes at once. `BAD_PACKAGE_SKILL`
  gets a valid blueprint whose every build declares a PyPI package that does not exist.

`python tests/corpus_author_script.py [--port N]` serves `respond` on 127.0.0.1 and prints its
base URL on the first line.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script, `llm_server` is its neighbour

from llm_server import Scripted, ScriptedServer, json_answer, refusal, text, tool_calls

OUT = "out/result.json"
PREAMBLE = """#!/usr/bin/env bash
set -euo pipefail
cd "${SKILL2ENV_WORKSPACE:-/workspace}"
mkdir -p out
"""


@dataclass(frozen=True)
class Result:
    """One author-only result: a key of `out/result.json`, its value, its rubric weight, what it follows from."""

    key: str
    value: Any
    weight: float
    statement: str
    derived_from: tuple[str, ...]
    reasoning: str


@dataclass(frozen=True)
class Note:
    """A deliverable the judge reads: full credit when it carries `marker` (what a correct note must say)."""

    path: str
    weight: float
    description: str
    judge_instruction: str
    marker: str


@dataclass(frozen=True)
class TaskSpec:
    skill_path: str
    slug: str
    """The skill's mount under /skills (from its frontmatter name)."""
    task_name: str
    goal: str
    patterns: dict[str, str]
    """Pattern id -> the form it takes in this task."""
    inputs: tuple[tuple[str, str, Any, str], ...]
    """Discoverable facts: (id, statement, value exactly as written, file)."""
    results: tuple[Result, ...]
    instruction: str
    steps: tuple[tuple[str, str], ...]
    """(name, bash) of the reference solution, in order."""
    files: dict[str, str] = field(default_factory=dict)
    generator: str = ""
    pip: tuple[str, ...] = ()
    apt: tuple[str, ...] = ()
    note: Note | None = None
    """A judged note, for tasks whose answer needs reading."""
    npm: tuple[str, ...] = ()

    @property
    def mount(self) -> str:
        return f"/skills/{self.slug}"

    @property
    def solve_sh(self) -> str:
        return PREAMBLE + "".join(f"\n# --- step: {name} ---\n{body.strip()}\n" for name, body in self.steps)

    @property
    def packages(self) -> tuple[str, ...]:
        return self.pip + self.apt + self.npm


def _py(code: str) -> str:
    return f"python3 - <<'PY'\n{code.strip()}\nPY"


def _merge(values: str) -> str:
    """A solution step's last lines: merge `values` (a Python expression) into out/result.json."""
    return f"""
import json as _json
from pathlib import Path as _Path
_out = _Path("{OUT}")
_doc = _json.loads(_out.read_text()) if _out.exists() else {{}}
_doc.update({values})
_out.write_text(_json.dumps(_doc, indent=2, sort_keys=True) + "\\n")
"""


# --- the twelve tasks ---------------------------------------------------------------------------

SIMPY_GENERATOR = r'''"""Arrivals of one clinic morning: minutes after opening, service time in SECONDS."""
import random
from pathlib import Path

rng = random.Random(4111)
rows, clock = ["patient,arrival_min,service_s"], 0.0
for number in range(1, 41):
    clock += round(rng.expovariate(1 / 4.5), 2)
    rows.append(f"P{number:02d},{clock:.2f},{rng.randint(300, 960)}")
Path("clinic").mkdir()
Path("clinic/arrivals.csv").write_text("\n".join(rows) + "\n")
'''

SIMPY_SIM = """
import configparser, csv, json
import simpy

config = configparser.ConfigParser()
config.read("clinic/clinic.ini")
doctors = config.getint("clinic", "doctors")
with open("clinic/arrivals.csv", newline="") as handle:
    patients = list(csv.DictReader(handle))
waits, departures = {}, []

def visit(env, desk, patient):
    yield env.timeout(float(patient["arrival_min"]))
    arrived = env.now
    with desk.request() as turn:
        yield turn
        waits[patient["patient"]] = env.now - arrived
        yield env.timeout(int(patient["service_s"]) / 60)
    departures.append(env.now)

env = simpy.Environment()
desk = simpy.Resource(env, capacity=doctors)
for patient in patients:
    env.process(visit(env, desk, patient))
env.run()
json.dump({"waits": waits, "last": max(departures)}, open("/tmp/clinic-run.json", "w"))
"""

SIMPY = TaskSpec(
    skill_path="k-dense-scientific-skills/simpy",
    slug="simpy",
    task_name="clinic-morning-queue",
    goal="The clinic manager wants to know how long patients waited this morning with the doctors on duty, "
    "simulated with SimPy from the recorded arrivals.",
    patterns={
        "unit_convention_lock": "arrivals.csv gives arrival times in minutes but service times in seconds; "
        "every result is in minutes.",
        "nested_container_evidence": "The number of doctors on duty is only in clinic/clinic.ini.",
        "offline_dependency_install": "SimPy is installed in the image; the sandbox has no network.",
    },
    inputs=(
        ("doctors", "Doctors on duty", "doctors = 3", "clinic/clinic.ini"),
        ("service_unit", "Service times are in seconds", "service_s", "clinic/arrivals.csv"),
    ),
    results=(
        Result(
            "mean_wait_min",
            12.083,
            0.4,
            "Mean wait for a doctor, minutes",
            ("doctors", "service_unit"),
            "SimPy run with a Resource of capacity 3, service seconds / 60",
        ),
        Result(
            "max_wait_min",
            27.177,
            0.3,
            "Longest wait, minutes",
            ("doctors", "service_unit"),
            "The largest wait of the same run",
        ),
        Result(
            "last_departure_min",
            172.603,
            0.3,
            "When the last patient left, minutes after opening",
            ("doctors", "service_unit"),
            "The last departure of the same run",
        ),
    ),
    instruction="""# How long did patients wait this morning?

The `simpy` skill is available at `/skills/simpy`; read its `SKILL.md` and model the clinic with SimPy.

This morning's arrivals are in `/workspace/clinic/arrivals.csv` (one row per patient, first come first
served); the clinic's setup is in `/workspace/clinic/clinic.ini`. Every patient waits for any free doctor,
then is seen for their service time. Simulate the morning and write `/workspace/out/result.json` with

* `mean_wait_min`: the mean time patients waited for a doctor, in minutes, rounded to 3 decimals,
* `max_wait_min`: the longest wait, in minutes, rounded to 3 decimals,
* `last_departure_min`: when the last patient left, in minutes after opening, rounded to 3 decimals.
""",
    files={"clinic/clinic.ini": "[clinic]\nname = Riverside walk-in\ndoctors = 3\n"},
    generator=SIMPY_GENERATOR,
    steps=(
        (
            "simulate-and-mean-wait",
            _py(SIMPY_SIM + _merge('{"mean_wait_min": round(sum(waits.values()) / len(waits), 3)}')),
        ),
        (
            "longest-wait-and-close",
            _py(
                """
import json
run = json.load(open("/tmp/clinic-run.json"))
"""
                + _merge(
                    '{"max_wait_min": round(max(run["waits"].values()), 3), '
                    '"last_departure_min": round(run["last"], 3)}'
                )
            ),
        ),
    ),
    pip=("simpy==4.1.1",),
)

FEED_TECH = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Tech Desk</title><link>https://tech.example.org</link>
<item><guid>tech-101</guid><title>Kernel 6.9 lands</title><link>https://tech.example.org/101</link>
<pubDate>Sun, 09 Mar 2025 21:30:00 -0500</pubDate></item>
<item><guid>tech-102</guid><title>Rust in the firmware</title><link>https://tech.example.org/102</link>
<pubDate>Sun, 09 Mar 2025 17:45:00 -0500</pubDate></item>
<item><guid>tech-103</guid><title>Open hardware fair</title><link>https://shared.example.org/fair</link>
<pubDate>Mon, 10 Mar 2025 08:15:00 +0000</pubDate></item>
<item><guid>tech-104</guid><title>Old news about compilers</title><link>https://tech.example.org/104</link>
<pubDate>Fri, 07 Mar 2025 10:00:00 +0000</pubDate></item>
<item><guid>tech-105</guid><title>Database release notes</title><link>https://tech.example.org/105</link>
<pubDate>Tue, 11 Mar 2025 06:05:00 +0100</pubDate></item>
</channel></rss>
"""

FEED_SCIENCE = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Science Daily Digest</title><id>urn:science</id>
<updated>2025-03-11T09:00:00Z</updated>
<entry><id>sci-201</id><title>Comet returns</title><link href="https://science.example.org/201"/>
<updated>2025-03-10T12:00:00Z</updated></entry>
<entry><id>sci-202</id><title>Open hardware fair</title><link href="https://shared.example.org/fair"/>
<updated>2025-03-10T08:10:00Z</updated></entry>
<entry><id>sci-203</id><title>Deep sea vents</title><link href="https://science.example.org/203"/>
<updated>2025-03-09T23:59:00-02:00</updated></entry>
<entry><id>sci-204</id><title>Battery chemistry</title><link href="https://science.example.org/204"/>
<updated>2025-03-11T07:30:00+02:00</updated></entry>
</feed>
"""

FRESHRSS_PARSE = """
import calendar, json
from pathlib import Path
import feedparser

state = json.loads(Path("reader/state.json").read_text())
read = set(state["read_ids"])
since = calendar.timegm((2025, 3, 10, 0, 0, 0))
items, seen_links = [], set()
for path in sorted(Path("reader/feeds").iterdir()):
    parsed = feedparser.parse(path.read_bytes())
    for entry in parsed.entries:
        stamp = entry.get("published_parsed") or entry.get("updated_parsed")
        items.append((calendar.timegm(stamp), entry.id, entry.link, path.stem))
unread = []
for when, ident, link, feed in sorted(items, reverse=True):
    if when < since or ident in read or link in seen_links:
        continue
    seen_links.add(link)
    unread.append((ident, feed))
json.dump(unread, open("/tmp/unread.json", "w"))
"""

FRESHRSS = TaskSpec(
    skill_path="openclaw-skills/nickian--freshrss-reader",
    slug="freshrss",
    task_name="unread-since-monday",
    goal="The reader wants the unread headlines published since Monday 2025-03-10 (UTC) across their "
    "exported FreshRSS feeds, each story once.",
    patterns={
        "implicit_timezone": "pubDate carries -0500 and +0100 offsets and one Atom entry -02:00; the cut-off is UTC.",
        "nested_container_evidence": "What was already read is in reader/state.json, not in the feeds.",
        "scattered_edit_checklist": "The same story (one link) appears in both feeds and counts once.",
    },
    inputs=(
        ("read_ids", "An item already read", "tech-102", "reader/state.json"),
        ("offset_item", "An item dated in US Eastern time", "Sun, 09 Mar 2025 21:30:00 -0500", "reader/feeds/tech.xml"),
        ("shared_link", "A story in both feeds", "https://shared.example.org/fair", "reader/feeds/science.atom"),
    ),
    results=(
        Result(
            "unread_ids",
            "sci-204,tech-105,tech-103,tech-101,sci-203",
            0.5,
            "Unread items since the cut-off, newest first",
            ("read_ids", "offset_item", "shared_link"),
            "Offsets converted to UTC, read ids and the duplicate link dropped",
        ),
        Result(
            "per_feed",
            "science=2;tech=3",
            0.5,
            "Unread items per feed file",
            ("read_ids", "shared_link"),
            "Counted over the same list",
        ),
    ),
    instruction="""# What is unread since Monday?

The `freshrss` skill is available at `/skills/freshrss`; read its `SKILL.md` for how the reader's items look.
There is no FreshRSS server here: the feeds were exported to `/workspace/reader/feeds/` (parse them with
feedparser), and `/workspace/reader/state.json` is the reader's state.

List the items that are unread and were published on or after 2025-03-10 00:00 UTC. A story that is in two
feeds (the same link) is listed once, under the newer item. Write `/workspace/out/result.json` with

* `unread_ids`: the item ids (guid / Atom id), newest first, joined with `,`,
* `per_feed`: how many listed items each feed file contributed, as `feed=count` pairs (feed = file name
  without extension) sorted by feed and joined with `;`.
""",
    files={
        "reader/feeds/tech.xml": FEED_TECH,
        "reader/feeds/science.atom": FEED_SCIENCE,
        "reader/state.json": '{"user": "mara", "read_ids": ["sci-201", "tech-102"]}\n',
    },
    steps=(
        ("parse-feeds-and-list-unread", _py(FRESHRSS_PARSE + _merge('{"unread_ids": ",".join(i for i, _ in unread)}'))),
        (
            "count-per-feed",
            _py(
                """
import json
from collections import Counter
unread = json.load(open("/tmp/unread.json"))
counts = Counter(feed for _, feed in unread)
"""
                + _merge('{"per_feed": ";".join(f"{k}={v}" for k, v in sorted(counts.items()))}')
            ),
        ),
    ),
    pip=("feedparser==6.0.11",),
)

TS_TYPES = """export type Route = `/${string}`;
export type Method = "GET" | "POST" | "DELETE";
export type Handler<M extends Method> = M extends "GET" ? () => string : (body: unknown) => string;
export type Events = { login: { user: string }; logout: { user: string; reason: string }; ping: undefined };
export type Payload<K extends keyof Events> = Events[K] extends undefined ? [] : [payload: Events[K]];
export declare function emit<K extends keyof Events>(name: K, ...args: Payload<K>): void;
export type DeepReadonly<T> = { readonly [P in keyof T]: T[P] extends object ? DeepReadonly<T[P]> : T[P] };
export type Getters<T> = { [K in keyof T & string as `get${Capitalize<K>}`]: () => T[K] };
"""

TS_CASES = """import { emit, DeepReadonly, Getters, Handler, Route } from "./types";

const home: Route = "/home";
const bad: Route = "home";
emit("login", { user: "ana" });
emit("logout", { user: "ana" });
emit("ping");
emit("ping", { user: "ana" });
const getter: Handler<"GET"> = () => "ok";
const poster: Handler<"POST"> = () => 42;
const config: DeepReadonly<{ db: { host: string } }> = { db: { host: "x" } };
config.db.host = "y";
const user: Getters<{ name: string; age: number }> = { getName: () => "ana", getAge: () => 3 };
const partial: Getters<{ name: string }> = { name: () => "ana" };
emit("signup", { user: "ana" });
export { home, bad, getter, poster, config, user, partial };
"""

TS_CHECK = """
npx_tsc() { tsc -p tsconfig.json --noEmit --pretty false; }
npx_tsc > /tmp/tsc.out 2>&1 || true
""" + _py(
    r"""
import re
LINE = re.compile(r"^src/cases\.ts\((\d+),\d+\): error (TS\d+):", re.M)
errors = [m.groups() for m in LINE.finditer(open("/tmp/tsc.out").read())]
open("/tmp/tsc.errors", "w").write("\n".join(f"{line} {code}" for line, code in errors))
"""
    + _merge('{"failing_lines": ",".join(str(n) for n in sorted({int(line) for line, _ in errors}))}')
)

TYPESCRIPT = TaskSpec(
    skill_path="wshobson-agents/typescript-advanced-types",
    slug="typescript-advanced-types",
    task_name="which-cases-fail-typecheck",
    goal="A reviewer wants to know which lines of the type-level test file fail under the project's strict "
    "compiler settings, and with which TypeScript error codes.",
    patterns={
        "nested_container_evidence": "The compiler settings (strict) are only in tsconfig.json.",
        "scattered_edit_checklist": "Conditional, mapped, template-literal and key-remapped types each make "
        "some cases fail; every failing line must be found.",
        "installed_version_behaviour": "The compiler is the installed tsc 5.4.5; error codes are its own.",
    },
    inputs=(
        ("strict", "The project compiles in strict mode", "strict", "tsconfig.json"),
        ("cases_file", "The type-level cases", 'emit("signup", { user: "ana" });', "src/cases.ts"),
    ),
    results=(
        Result(
            "failing_lines",
            "4,6,8,10,12,14,15",
            0.5,
            "Lines of src/cases.ts that fail to type-check",
            ("strict", "cases_file"),
            "tsc --noEmit over the project",
        ),
        Result(
            "error_codes",
            "TS2322=2;TS2345=2;TS2353=1;TS2540=1;TS2554=1",
            0.5,
            "Error codes and how often",
            ("strict", "cases_file"),
            "Counted from the same tsc run",
        ),
    ),
    instruction="""# Which type-level cases fail?

The `typescript-advanced-types` skill is available at `/skills/typescript-advanced-types`; read its `SKILL.md`.

`/workspace/src/types.ts` defines the project's advanced types and `/workspace/src/cases.ts` exercises them.
Type-check the project as configured in `/workspace/tsconfig.json` with the installed TypeScript compiler
(`tsc`; there is no network) and write `/workspace/out/result.json` with

* `failing_lines`: the line numbers of `src/cases.ts` with at least one type error, ascending, joined with `,`,
* `error_codes`: every error code reported for `src/cases.ts` with its number of occurrences, as `CODE=n`
  pairs (e.g. `TS1234=2`) sorted by code and joined with `;`.

Do not change the source files.
""",
    files={
        "tsconfig.json": '{\n  "compilerOptions": {\n    "strict": true,\n    "target": "ES2020",\n'
        '    "module": "commonjs",\n    "noEmit": true\n  },\n  "include": ["src"]\n}\n',
        "src/types.ts": TS_TYPES,
        "src/cases.ts": TS_CASES,
    },
    steps=(
        ("typecheck-and-failing-lines", TS_CHECK),
        (
            "count-error-codes",
            _py(
                """
from collections import Counter
pairs = [line.split() for line in open("/tmp/tsc.errors").read().splitlines() if line.strip()]
codes = Counter(code for _, code in pairs)
"""
                + _merge('{"error_codes": ";".join(f"{c}={n}" for c, n in sorted(codes.items()))}')
            ),
        ),
    ),
    apt=("nodejs",),
    npm=("typescript@5.4.5",),
)

OPENSSL_GENERATOR = r'''"""Secrets as a generator wrote them, base64 or hex; deterministic."""
import base64
import hashlib
from pathlib import Path

Path("secrets").mkdir()
specs = [("api-gateway", "base64", 32), ("billing-hmac", "hex", 32), ("session-key", "base64", 24),
         ("webhook-signing", "base64-wrapped", 32), ("backup-key", "HEX", 32), ("smtp-relay", "base64", 33)]
manifest = ["name,encoding,file"]
for name, encoding, size in specs:
    raw = b"".join(hashlib.sha256(f"{name}:{i}".encode()).digest() for i in range(2))[:size]
    if encoding.startswith("base64"):
        text = base64.b64encode(raw).decode()
        if encoding == "base64-wrapped":
            text = "\n".join(text[i:i + 16] for i in range(0, len(text), 16))
        encoding = "base64"
    else:
        text = raw.hex().upper() if encoding == "HEX" else raw.hex()
        encoding = "hex"
    Path(f"secrets/{name}.txt").write_text(text + "\n")
    manifest.append(f"{name},{encoding},secrets/{name}.txt")
Path("secrets/manifest.csv").write_text("\n".join(manifest) + "\n")
'''

OPENSSL_DECODE = r"""
mkdir -p /tmp/secrets
tail -n +2 secrets/manifest.csv | while IFS=, read -r name encoding file; do
  if [ "$encoding" = base64 ]; then
    openssl base64 -d -in "$file" -out "/tmp/secrets/$name.bin"
  else
    python3 -c "import sys; sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read().strip()))" "$file" \
      > "/tmp/secrets/$name.bin"
  fi
  echo "$name $(wc -c < "/tmp/secrets/$name.bin")" >> /tmp/secrets/sizes
done
""" + _py(
    """
sizes = dict(line.split() for line in open("/tmp/secrets/sizes").read().splitlines())
bad = sorted(name for name, size in sizes.items() if int(size) != 32)
"""
    + _merge('{"invalid": ";".join(bad)}')
)

OPENSSL_FINGERPRINTS = r"""
rm -f /tmp/secrets/prints
for bin in /tmp/secrets/*.bin; do
  name="$(basename "$bin" .bin)"
  [ "$(wc -c < "$bin")" -eq 32 ] || continue
  echo "$name $(openssl dgst -sha256 -r "$bin" | cut -c1-12)" >> /tmp/secrets/prints
done
""" + _py(
    """
prints = sorted(line.split() for line in open("/tmp/secrets/prints").read().splitlines())
"""
    + _merge('{"fingerprints": ";".join(f"{n}={h}" for n, h in prints)}')
)

OPENSSL = TaskSpec(
    skill_path="openclaw-skills/asleep123--openssl",
    slug="openssl",
    task_name="audit-generated-secrets",
    goal="Security wants every generated secret checked: each must decode to exactly 32 random bytes, "
    "and the valid ones are registered by the first 12 hex digits of their SHA-256.",
    patterns={
        "nested_container_evidence": "Each secret's encoding is only in secrets/manifest.csv.",
        "payload_size_limit_chunking": "One base64 secret is wrapped over several lines, as `openssl rand -base64` "
        "wraps long output; decoding it as one line fails.",
        "scattered_edit_checklist": "One hex secret is upper case; short and long secrets hide among valid ones.",
    },
    inputs=(
        (
            "manifest",
            "Encodings per secret",
            "secrets/webhook-signing.txt",
            "secrets/manifest.csv",
        ),
        ("upper_hex", "A hex secret in upper case", "secrets/backup-key.txt", "secrets/manifest.csv"),
    ),
    results=(
        Result(
            "invalid", "session-key;smtp-relay", 0.4, "Secrets that are not 32 bytes", ("manifest",), "Decoded sizes"
        ),
        Result(
            "fingerprints",
            "api-gateway=9140b3205a29;backup-key=a991da405f53;billing-hmac=e235c52ad19b;webhook-signing=52d4739ba804",
            0.6,
            "Fingerprints of the valid secrets",
            ("manifest", "upper_hex"),
            "sha256 of the decoded bytes",
        ),
    ),
    instruction="""# Audit the generated secrets

The `openssl` skill is available at `/skills/openssl`; read its `SKILL.md` and use the `openssl` command line.

A generator wrote the service secrets into `/workspace/secrets/`, listed in `/workspace/secrets/manifest.csv`
with their encodings. Every secret must decode to exactly 32 bytes. Write `/workspace/out/result.json` with

* `invalid`: the names of the secrets that do not decode to 32 bytes, sorted, joined with `;`,
* `fingerprints`: for every valid secret, `name=` followed by the first 12 lower-case hex digits of the
  SHA-256 of its decoded bytes; sorted by name, joined with `;`.
""",
    generator=OPENSSL_GENERATOR,
    steps=(("decode-and-sizes", OPENSSL_DECODE), ("fingerprint-valid-secrets", OPENSSL_FINGERPRINTS)),
)


def _excalidraw() -> str:
    boxes = [
        ("b1", "Client"),
        ("b2", "API Gateway"),
        ("b3", "Orders"),
        ("b4", "Billing"),
        ("b5", "Legacy CRM"),
        ("b6", "Metrics"),
        ("b7", "Old Queue"),
    ]
    elements: list[dict[str, Any]] = []
    for index, (ident, label) in enumerate(boxes):
        elements.append(
            {
                "id": ident,
                "type": "rectangle",
                "x": 120 * index,
                "y": 40,
                "width": 100,
                "height": 60,
                "boundElements": [{"id": f"t-{ident}", "type": "text"}],
                "isDeleted": ident == "b7",
            }
        )
        elements.append(
            {
                "id": f"t-{ident}",
                "type": "text",
                "text": label,
                "containerId": ident,
                "x": 120 * index + 10,
                "y": 60,
                "isDeleted": ident == "b7",
            }
        )
    arrows = [
        ("a1", "b1", "b2", False),
        ("a2", "b2", "b3", False),
        ("a3", "b3", "b4", False),
        ("a4", "b5", "b6", False),
        ("a5", "b2", "b7", False),
        ("a6", "b4", None, False),
        ("a7", "b3", "b6", True),
    ]
    for ident, start, end, deleted in arrows:
        arrow: dict[str, Any] = {
            "id": ident,
            "type": "arrow",
            "x": 0,
            "y": 0,
            "isDeleted": deleted,
            "startBinding": {"elementId": start, "focus": 0, "gap": 4},
        }
        arrow["endBinding"] = {"elementId": end, "focus": 0, "gap": 4} if end else None
        elements.append(arrow)
    elements.append(
        {
            "id": "note",
            "type": "text",
            "text": "Metrics is fed by CRM only",
            "containerId": None,
            "x": 10,
            "y": 200,
            "isDeleted": False,
        }
    )
    document = {
        "type": "excalidraw",
        "version": 2,
        "source": "https://excalidraw.com",
        "elements": elements,
        "appState": {"viewBackgroundColor": "#ffffff"},
    }
    return json.dumps(document, indent=1) + "\n"


EXCALIDRAW_EDGES = """
import json
doc = json.load(open("diagrams/architecture.excalidraw"))
live = [e for e in doc["elements"] if not e.get("isDeleted")]
labels = {e["containerId"]: e["text"] for e in live if e["type"] == "text" and e.get("containerId")}
boxes = {e["id"]: labels.get(e["id"], e["id"]) for e in live if e["type"] in ("rectangle", "ellipse", "diamond")}
edges = sorted({(boxes[a["startBinding"]["elementId"]], boxes[a["endBinding"]["elementId"]])
                for a in live if a["type"] == "arrow" and a.get("startBinding") and a.get("endBinding")
                and a["startBinding"]["elementId"] in boxes and a["endBinding"]["elementId"] in boxes})
json.dump({"boxes": sorted(boxes.values()), "edges": edges}, open("/tmp/graph.json", "w"))
""" + _merge('{"edges": ";".join(f"{a}->{b}" for a, b in edges)}')

EXCALIDRAW_REACH = """
import json
graph = json.load(open("/tmp/graph.json"))
reached, frontier = {"Client"}, ["Client"]
while frontier:
    node = frontier.pop()
    for a, b in graph["edges"]:
        if a == node and b not in reached:
            reached.add(b)
            frontier.append(b)
""" + _merge('{"unreachable": ";".join(sorted(set(graph["boxes"]) - reached))}')

EXCALIDRAW = TaskSpec(
    skill_path="openclaw-skills/a-anand-91119--excalidraw",
    slug="excalidraw",
    task_name="diagram-reachability",
    goal="The architect wants the connections drawn in the Excalidraw architecture diagram as a list, and "
    "which boxes cannot be reached from the Client by following arrows.",
    patterns={
        "nested_container_evidence": "Box labels are separate text elements bound by containerId.",
        "scattered_edit_checklist": "Deleted elements (isDeleted) and an arrow with no end binding are still in "
        "the file and must be ignored.",
        "incremental_rebuild_scope": "A free text note claims a connection that no arrow draws.",
    },
    inputs=(
        ("bound_labels", "Labels bound to their boxes", '"containerId": "b2"', "diagrams/architecture.excalidraw"),
        ("deleted", "Deleted elements stay in the file", '"isDeleted": true', "diagrams/architecture.excalidraw"),
    ),
    results=(
        Result(
            "edges",
            "API Gateway->Orders;Client->API Gateway;Legacy CRM->Metrics;Orders->Billing",
            0.5,
            "The live connections",
            ("bound_labels", "deleted"),
            "Arrows with both ends bound, not deleted",
        ),
        Result(
            "unreachable",
            "Legacy CRM;Metrics",
            0.5,
            "Boxes not reachable from Client",
            ("bound_labels", "deleted"),
            "Breadth-first search from Client",
        ),
    ),
    instruction="""# What does the architecture diagram connect?

The `excalidraw` skill is available at `/skills/excalidraw`; read its `SKILL.md` for the Excalidraw JSON format.

`/workspace/diagrams/architecture.excalidraw` is the current architecture diagram. Read the drawing as a graph:
boxes (by their label text) connected by arrows from the box an arrow starts at to the box it ends at. Only what
the diagram still shows counts. Write `/workspace/out/result.json` with

* `edges`: every connection as `From->To`, sorted, joined with `;`,
* `unreachable`: the labels of the boxes that cannot be reached from `Client` by following arrows, sorted,
  joined with `;`.
""",
    files={"diagrams/architecture.excalidraw": _excalidraw()},
    steps=(("read-live-arrows", _py(EXCALIDRAW_EDGES)), ("reach-from-client", _py(EXCALIDRAW_REACH))),
)

DND_FILES = {
    "party.json": json.dumps(
        {
            "party": [
                {"name": "Brannoc", "level": 5},
                {"name": "Ysolde", "level": 5},
                {"name": "Tamsin", "level": 4},
                {"name": "Orrin", "level": 3},
            ]
        },
        indent=1,
    )
    + "\n",
    "srd/monsters.json": json.dumps(
        [
            {"index": "goblin", "name": "Goblin", "challenge_rating": 0.25, "xp": 50},
            {"index": "hobgoblin", "name": "Hobgoblin", "challenge_rating": 0.5, "xp": 100},
            {"index": "bugbear", "name": "Bugbear", "challenge_rating": 1, "xp": 200},
            {"index": "ogre", "name": "Ogre", "challenge_rating": 2, "xp": 450},
            {"index": "troll", "name": "Troll", "challenge_rating": 5, "xp": 1800},
        ],
        indent=1,
    )
    + "\n",
    "encounters.json": json.dumps(
        {
            "bridge": {"goblin": 6, "hobgoblin": 1},
            "cave": {"ogre": 2},
            "tower": {"troll": 1, "bugbear": 2},
            "camp": {"hobgoblin": 3, "bugbear": 1},
        },
        indent=1,
    )
    + "\n",
    "rules/xp_thresholds.csv": "level,easy,medium,hard,deadly\n1,25,50,75,100\n2,50,100,150,200\n3,75,150,225,400\n"
    "4,125,250,375,500\n5,250,500,750,1100\n6,300,600,900,1400\n",
    "rules/multipliers.csv": "min_monsters,max_monsters,multiplier\n1,1,1\n2,2,1.5\n3,6,2\n7,10,2.5\n11,14,3\n"
    "15,99,4\n",
}

DND_ADJUSTED = """
import csv, json
monsters = {m["index"]: m for m in json.load(open("srd/monsters.json"))}
encounters = json.load(open("encounters.json"))
rules = list(csv.DictReader(open("rules/multipliers.csv")))
adjusted = {}
for name, group in encounters.items():
    count = sum(group.values())
    base = sum(monsters[m]["xp"] * n for m, n in group.items())
    factor = next(float(r["multiplier"]) for r in rules if int(r["min_monsters"]) <= count <= int(r["max_monsters"]))
    adjusted[name] = round(base * factor)
json.dump(adjusted, open("/tmp/adjusted.json", "w"))
""" + _merge('{"adjusted_xp": ";".join(f"{k}={v}" for k, v in sorted(adjusted.items()))}')

DND_RATING = """
import csv, json
adjusted = json.load(open("/tmp/adjusted.json"))
table = {row["level"]: row for row in csv.DictReader(open("rules/xp_thresholds.csv"))}
party = json.load(open("party.json"))["party"]
limits = {k: sum(int(table[str(p["level"])][k]) for p in party) for k in ("easy", "medium", "hard", "deadly")}
def rate(xp):
    rated = "trivial"
    for k in ("easy", "medium", "hard", "deadly"):
        if xp >= limits[k]:
            rated = k
    return rated
""" + _merge('{"difficulty": ";".join(f"{k}={rate(v)}" for k, v in sorted(adjusted.items()))}')

DND = TaskSpec(
    skill_path="openclaw-skills/andrewdmwalker--dnd",
    slug="dnd",
    task_name="rate-the-session-encounters",
    goal="The DM wants each planned encounter's adjusted XP and difficulty for tonight's party, by the 5e rules.",
    patterns={
        "nested_container_evidence": "Monster XP is in the SRD extract; the multiplier table in rules/.",
        "exhaustive_item_accounting": "Every encounter, every monster count and every party member (mixed levels) "
        "enters the budget.",
        "resource_budget": "Difficulty compares adjusted XP with the party's summed thresholds.",
    },
    inputs=(
        ("ogre_xp", "An ogre is worth 450 XP", 450, "srd/monsters.json"),
        ("multiplier", "Seven to ten monsters multiply the XP by 2.5", 2.5, "rules/multipliers.csv"),
        ("levels", "Orrin is the party's level-3 character", "Orrin", "party.json"),
    ),
    results=(
        Result(
            "adjusted_xp",
            "bridge=1000;camp=1000;cave=1350;tower=4400",
            0.5,
            "Adjusted XP per encounter",
            ("ogre_xp", "multiplier"),
            "Sum of monster XP times the count multiplier",
        ),
        Result(
            "difficulty",
            "bridge=easy;camp=easy;cave=easy;tower=deadly",
            0.5,
            "Difficulty per encounter",
            ("multiplier", "levels"),
            "Adjusted XP against the party's summed thresholds",
        ),
    ),
    instruction="""# How hard are tonight's encounters?

The `dnd` skill is available at `/skills/dnd`; read its `SKILL.md`. There is no network: the SRD monster data
you need was saved to `/workspace/srd/monsters.json`, and the DMG tables are in `/workspace/rules/`.

The party is in `/workspace/party.json`, the planned encounters (monster index -> how many) in
`/workspace/encounters.json`. Write `/workspace/out/result.json` with

* `adjusted_xp`: each encounter's adjusted XP (monster XP summed, times the multiplier for the number of
  monsters), as `encounter=xp` sorted by encounter, joined with `;`,
* `difficulty`: each encounter's difficulty for this party (`trivial`, `easy`, `medium`, `hard` or `deadly`:
  the highest threshold the adjusted XP reaches, thresholds summed over the characters), as
  `encounter=difficulty` sorted by encounter, joined with `;`.
""",
    files=DND_FILES,
    steps=(("adjusted-xp", _py(DND_ADJUSTED)), ("rate-for-party", _py(DND_RATING))),
)

BIRTHDAYS_MD = """# Geburtstage

- **Valentina** - 14.02.2000 (wird 26)
- **Max** - 15.03.1990
- **Jonas** - 29.02.1996
- **Lea** - 3.3.1988
- **Oma Ruth** - 01. März
- **Tobias** - 05.04.1979
- **Henrik** - 28.02.2001
- **Mira** - 10.03.2015
"""

BIRTHDAY_PARSE = r"""
import json, re
from datetime import date
MONTHS = {"januar": 1, "februar": 2, "märz": 3, "april": 4}
TODAY = date(2025, 2, 26)
people = []
for line in open("data/birthdays.md", encoding="utf-8"):
    match = re.match(r"- \*\*(.+?)\*\* - (\d{1,2})\.\s*(\d{1,2}|[A-Za-zä]+)\.?(?:(\d{4}))?", line.strip())
    if not match:
        continue
    name, day, month, year = match.groups()
    month = int(month) if month.isdigit() else MONTHS[month.lower()]
    day = int(day)
    if (month, day) == (2, 29):
        month, day = 3, 1  # the house rule in data/notes.md
    when = date(TODAY.year, month, day)
    if when < TODAY:
        when = date(TODAY.year + 1, month, day)
    people.append({"name": name, "when": when.isoformat(), "age": when.year - int(year) if year else None,
                   "days": (when - TODAY).days})
people.sort(key=lambda p: (p["days"], p["name"]))
json.dump(people, open("/tmp/people.json", "w"))
soon = [p for p in people if p["days"] <= 14]
""" + _merge('{"next_14_days": ";".join(p["name"] + "@" + p["when"][5:] for p in soon)}')

BIRTHDAY_AGES = """
import json
people = json.load(open("/tmp/people.json"))
soon = [p for p in people if p["days"] <= 14 and p["age"] is not None]
""" + _merge('{"turning": ";".join(f"{p[\'name\']}={p[\'age\']}" for p in soon)}')

BIRTHDAY = TaskSpec(
    skill_path="openclaw-skills/manantra--birthday-reminder",
    slug="birthday-reminder",
    task_name="birthdays-next-two-weeks",
    goal="On 2025-02-26 the user asks which birthdays come in the next 14 days and how old each person turns.",
    patterns={
        "nested_container_evidence": "How a 29 February birthday is celebrated in other years is in data/notes.md.",
        "date_dependent_rates": "Ages depend on the year of the coming birthday, not today's year.",
        "skill_template_as_is": "The list mixes the skill's date formats: 14.02.2000, 3.3.1988, '01. März'.",
    },
    inputs=(
        ("leap_rule", "Leap-day birthdays are celebrated on 1 March", "celebrated on 1 March", "data/notes.md"),
        ("jonas", "Jonas was born on a leap day", "29.02.1996", "data/birthdays.md"),
        ("ruth", "Oma Ruth's year is unknown", "01. März", "data/birthdays.md"),
    ),
    results=(
        Result(
            "next_14_days",
            "Henrik@02-28;Jonas@03-01;Oma Ruth@03-01;Lea@03-03;Mira@03-10",
            0.5,
            "Birthdays within 14 days, in order",
            ("leap_rule", "jonas", "ruth"),
            "Days until each birthday from 2025-02-26",
        ),
        Result(
            "turning",
            "Henrik=24;Jonas=29;Lea=37;Mira=10",
            0.5,
            "Ages turned, where the year is known",
            ("jonas",),
            "Birthday year minus birth year",
        ),
    ),
    instruction="""# Whose birthday is coming up?

The `birthday-reminder` skill is available at `/skills/birthday-reminder`; read its `SKILL.md`. Here the
birthday list is `/workspace/data/birthdays.md` (not the path the skill names) and today is 2025-02-26.
`/workspace/data/notes.md` holds the user's notes about the list.

Write `/workspace/out/result.json` with

* `next_14_days`: everyone whose next birthday falls within the next 14 days (today counts), as
  `Name@MM-DD` of the day it is celebrated, ordered by date then name, joined with `;`,
* `turning`: for those of them whose birth year is known, `Name=age` (the age they turn), in the same order,
  joined with `;`.
""",
    files={
        "data/birthdays.md": BIRTHDAYS_MD,
        "data/notes.md": "# Notes\n\nJonas's birthday is celebrated on 1 March in years without 29 February.\n"
        "Oma Ruth never told us her year.\n",
    },
    steps=(("parse-and-upcoming", _py(BIRTHDAY_PARSE)), ("ages-turned", _py(BIRTHDAY_AGES))),
)

KEEP_NOTES = [
    {
        "id": "%a1f3",
        "created": "2025-01-06T09:12:00Z",
        "tags": {"type": "learning", "topic": "deploys"},
        "text": "Deploys on Friday need a second reviewer.",
    },
    {
        "id": "%b7c2",
        "created": "2025-01-20T15:40:00Z",
        "tags": {"type": "learning", "topic": "deploys"},
        "text": "Run the migration dry-run before every deploy.",
        "supersedes": None,
    },
    {
        "id": "%c9d0",
        "created": "2025-02-03T11:05:00Z",
        "tags": {"type": "learning", "topic": "deploys"},
        "text": "Friday deploys are frozen entirely since the Q1 policy.",
        "supersedes": "%a1f3",
    },
    {
        "id": "%d4e8",
        "created": "2025-02-10T08:30:00Z",
        "tags": {"type": "breakdown", "topic": "deploys"},
        "text": "Assumed staging matched prod; it did not.",
    },
    {
        "id": "%e2a6",
        "created": "2025-02-11T10:00:00Z",
        "tags": {"type": "learning", "topic": "oncall"},
        "text": "Page the database owner before failing over.",
    },
    {
        "id": "%f5b1",
        "created": "2025-02-14T16:20:00Z",
        "tags": {"type": "learning", "topic": "deploys"},
        "text": "Roll back first, investigate second.",
        "status": "retracted",
    },
    {
        "id": "%a8e4",
        "created": "2025-02-18T13:45:00Z",
        "tags": {"type": "learning", "topic": "Deploys"},
        "text": "Announce deploys in #release ten minutes ahead.",
    },
]

KEEP_FIND = """
import json
notes = [json.loads(line) for line in open("memory/store.jsonl") if line.strip()]
superseded = {n["supersedes"] for n in notes if n.get("supersedes")}
current = [n for n in notes if n["tags"].get("type") == "learning" and n["tags"].get("topic", "").lower() == "deploys"
           and n["id"] not in superseded and n.get("status") != "retracted"]
current.sort(key=lambda n: n["created"])
json.dump(current, open("/tmp/current.json", "w"))
""" + _merge('{"current_learnings": ";".join(n["id"] for n in current)}')

KEEP_REMEMBER = """
import json
current = json.load(open("/tmp/current.json"))
""" + _merge('{"latest_learning": current[-1]["id"] + " " + current[-1]["created"][:10]}')

KEEP = TaskSpec(
    skill_path="openclaw-skills/hughpyle--keep",
    slug="keep",
    task_name="current-deploy-learnings",
    goal="Before a deploy, the agent grounds itself in memory: which learnings about deploys still hold?",
    patterns={
        "needle_in_large_corpus": "The store mixes learnings, breakdowns and other topics.",
        "conditional_branch_on_data": "A note superseded by a later one and a retracted note no longer hold.",
        "chunk_boundary_state": "One learning is tagged topic=Deploys, in another case.",
    },
    inputs=(
        ("supersedes", "The learning a later one replaces", "%a1f3", "memory/store.jsonl"),
        ("retracted", "A learning was retracted", "retracted", "memory/store.jsonl"),
        ("case", "A topic tag in another case", "Deploys", "memory/store.jsonl"),
    ),
    results=(
        Result(
            "current_learnings",
            "%b7c2;%c9d0;%a8e4",
            0.6,
            "Learnings about deploys that still hold",
            ("supersedes", "retracted", "case"),
            "type=learning, topic deploys in any case, not superseded or retracted, oldest first",
        ),
        Result(
            "latest_learning",
            "%a8e4 2025-02-18",
            0.4,
            "The newest of them and its day",
            ("case",),
            "The last of the same list",
        ),
    ),
    instruction="""# What have we learned about deploys?

The `keep` skill is available at `/skills/keep`; read its `SKILL.md` (the practice: consult memory before acting).
The `keep` command is not installed here; its store was exported to `/workspace/memory/store.jsonl`, one note per
line with its id, creation time, tags and text.

Before tomorrow's deploy, find the learnings (`type=learning`) about deploys (`topic=deploys`) that still hold.
Write `/workspace/out/result.json` with

* `current_learnings`: their ids, oldest first, joined with `;`,
* `latest_learning`: the newest of them as `<id> <YYYY-MM-DD>` (its creation day).
""",
    files={"memory/store.jsonl": "".join(json.dumps(note) + "\n" for note in KEEP_NOTES)},
    steps=(("find-current-learnings", _py(KEEP_FIND)), ("latest-learning", _py(KEEP_REMEMBER))),
)

STOCK_GENERATOR = r'''"""Daily closes of ACME over Q1 2025 as the vendor delivered them (unadjusted; a 2:1 split)."""
import random
from datetime import date, timedelta
from pathlib import Path

rng = random.Random(2025)
day, price, rows = date(2025, 1, 2), 182.40, ["date,open,high,low,close,volume"]
while day <= date(2025, 3, 31):
    if day.weekday() < 5:
        if day == date(2025, 2, 18):
            price /= 2
        change = rng.gauss(0.0006, 0.018)
        close = price * (1 + change)
        high, low = max(price, close) * 1.004, min(price, close) * 0.995
        rows.append(f"{day},{price:.2f},{high:.2f},{low:.2f},{close:.2f},{rng.randint(800_000, 2_400_000)}")
        price = close
    day += timedelta(days=1)
Path("data").mkdir()
Path("data/ACME.csv").write_text("\n".join(rows) + "\n")
'''

STOCK_RETURN = """
import csv, json
splits = {r["date"]: float(r["ratio"].split(":")[0]) / float(r["ratio"].split(":")[1])
          for r in csv.DictReader(open("data/corporate_actions.csv")) if r["action"] == "split"}
rows = list(csv.DictReader(open("data/ACME.csv")))
adjusted = []
for row in rows:
    factor = 1.0
    for when, ratio in splits.items():
        if row["date"] < when:
            factor *= ratio
    adjusted.append((row["date"], float(row["close"]) / factor))
json.dump(adjusted, open("/tmp/adjusted.json", "w"))
total = (adjusted[-1][1] / adjusted[0][1] - 1) * 100
""" + _merge('{"q1_return_pct": round(total, 2)}')

STOCK_DRAWDOWN = """
import json
adjusted = json.load(open("/tmp/adjusted.json"))
peak, peak_day, worst, window = adjusted[0][1], adjusted[0][0], 0.0, ""
for day, close in adjusted:
    if close > peak:
        peak, peak_day = close, day
    if close / peak - 1 < worst:
        worst, window = close / peak - 1, f"{peak_day}..{day}"
""" + _merge('{"max_drawdown_pct": round(worst * 100, 2), "drawdown_window": window}')

STOCK = TaskSpec(
    skill_path="openclaw-skills/kys42--stock-info-explorer",
    slug="stock-info-explorer",
    task_name="acme-q1-performance",
    goal="An investor wants ACME's Q1 2025 return and its worst drawdown from the saved daily prices.",
    patterns={
        "unit_convention_lock": "Returns and drawdowns are percentages with two decimals.",
        "nested_container_evidence": "The 2:1 split on 2025-02-18 is only in data/corporate_actions.csv; the "
        "prices are unadjusted, so a naive reading sees a 50 % crash.",
        "prioritized_objectives": "The return first, then the drawdown and its window.",
    },
    inputs=(
        ("split", "A 2:1 split", "2:1", "data/corporate_actions.csv"),
        ("split_day", "The split's day", "2025-02-18", "data/corporate_actions.csv"),
    ),
    results=(
        Result(
            "q1_return_pct",
            2.16,
            0.4,
            "Split-adjusted return over Q1, %",
            ("split", "split_day"),
            "Last adjusted close over the first, minus 1",
        ),
        Result(
            "max_drawdown_pct",
            -9.2,
            0.3,
            "Largest peak-to-trough fall of adjusted closes, %",
            ("split", "split_day"),
            "Running peak over adjusted closes",
        ),
        Result(
            "drawdown_window",
            "2025-01-17..2025-02-12",
            0.3,
            "The peak and trough days of that fall",
            ("split", "split_day"),
            "The running peak's day and the close of the largest fall",
        ),
    ),
    instruction="""# How did ACME do in Q1?

The `stock-info-explorer` skill is available at `/skills/stock-info-explorer`; read its `SKILL.md`. There is no
network here: the daily prices of ACME for Q1 2025 were saved to `/workspace/data/ACME.csv` as the vendor
delivered them, and `/workspace/data/corporate_actions.csv` lists the company's corporate actions.

Write `/workspace/out/result.json` with

* `q1_return_pct`: the return from the first to the last close of the file, in percent, 2 decimals,
* `max_drawdown_pct`: the largest fall of the close from its running peak, in percent (negative), 2 decimals,
* `drawdown_window`: that fall as `<peak date>..<trough date>` (dates `YYYY-MM-DD`).

Compare prices on a like-for-like basis.
""",
    files={"data/corporate_actions.csv": "date,action,ratio\n2025-02-18,split,2:1\n2025-03-14,dividend,\n"},
    generator=STOCK_GENERATOR,
    steps=(("adjust-and-return", _py(STOCK_RETURN)), ("drawdown", _py(STOCK_DRAWDOWN))),
)

JTBD_INTERVIEWS = {
    "interviews/01-dana.md": "# Dana, bakery owner\nJob: J2\n"
    "Push: spreadsheets broke every time a supplier changed prices\n"
    "Pull: wanted to see margins per product at a glance\nAnxiety: worried the staff would not adopt it\n"
    "Habit: kept the paper order book for a month\n",
    "interviews/02-ilker.md": "# Ilker, caterer\nJob: J1\nPush: missed two invoices in March\n"
    "Pull: automatic reminders\nJob: J2\nPush: could not price a new menu quickly\n",
    "interviews/03-sam.md": "# Sam, café\nJob: J2\nPull: a colleague showed the margin view\n"
    "Anxiety: data migration might lose recipes\nAnxiety: monthly price\n",
    "interviews/04-rosa.md": "# Rosa, food truck\nJob: J3\nPush: taxes at year end were chaos\n"
    "Habit: shoebox of receipts\nJob: J1\nPull: one place for unpaid invoices\n",
    "interviews/05-tom.md": "# Tom, bakery (second call)\n"
    "Note: duplicate of an earlier interview; excluded from analysis\n"
    "Job: J3\nPush: taxes\nPull: export for the accountant\nJob: J3\nPull: receipts by photo\n",
    "interviews/jobs.md": "# Job statements\n\n"
    "- J1: When invoices pile up, I want to see who still owes me, so I can get paid on time.\n"
    "- J2: When supplier prices change, I want to know each product's margin, so I can price with confidence.\n"
    "- J3: When the tax deadline comes, I want my receipts in order, so I can file without panic.\n",
}

JTBD_RANK = r"""
import json, re
from collections import Counter, defaultdict
from pathlib import Path
people, forces = defaultdict(set), defaultdict(Counter)
for path in sorted(Path("interviews").glob("*.md")):
    text = path.read_text()
    if "excluded from analysis" in text:
        continue
    job = None
    for line in text.splitlines():
        match = re.match(r"^(Job|Push|Pull|Anxiety|Habit):\s*(.+)$", line)
        if not match:
            continue
        kind, value = match.groups()
        if kind == "Job":
            job = value.strip()
            people[job].add(path.name)
        elif job:
            forces[job][kind.lower()] += 1
ranking = sorted(people, key=lambda j: (-len(people[j]), j))
json.dump({"ranking": ranking, "forces": {j: dict(c) for j, c in forces.items()}}, open("/tmp/jobs.json", "w"))
""" + _merge('{"job_ranking": ">".join(f"{j}:{len(people[j])}" for j in ranking)}')

JTBD_FORCES = """
import json
jobs = json.load(open("/tmp/jobs.json"))
top = jobs["ranking"][0]
counts = jobs["forces"][top]
""" + _merge('{"top_job_forces": ";".join(f"{k}={counts.get(k, 0)}" for k in ("push", "pull", "anxiety", "habit"))}')

JTBD_STORY = """
import re
statements = dict(re.findall(r"^- (J\\d+): (.+)$", open("interviews/jobs.md").read(), re.M))
strongest = max(("push", "pull", "anxiety", "habit"), key=lambda k: counts.get(k, 0))
story = [f"# Top job: {top}", "", statements[top], "",
         f"Strongest force: {strongest} ({counts.get(strongest, 0)} coded lines)."]
open("out/job-story.md", "w").write("\\n".join(story) + "\\n")
"""

JTBD = TaskSpec(
    skill_path="openclaw-skills/artyomx33--jtbd-analyzer",
    slug="jtbd-analyzer",
    task_name="rank-jobs-from-interviews",
    goal="Product marketing wants to know which job customers hire the product for most, and the forces of "
    "progress behind it, from the coded switch interviews.",
    patterns={
        "nested_container_evidence": "One interviewee talks about two jobs; forces belong to the job coded above them.",
        "pending_item_closure": "One interview file is a duplicate marked as excluded from analysis.",
        "skill_template_as_is": "The four forces (push, pull, anxiety, habit) of the skill's framework.",
    },
    inputs=(
        ("excluded", "A duplicate interview is excluded", "excluded from analysis", "interviews/05-tom.md"),
        ("two_jobs", "An interviewee with two jobs", "missed two invoices in March", "interviews/02-ilker.md"),
    ),
    results=(
        Result(
            "job_ranking",
            "J2:3>J1:2>J3:1",
            0.4,
            "Jobs by distinct interviewees",
            ("excluded", "two_jobs"),
            "Interviewees per job, the excluded file left out",
        ),
        Result(
            "top_job_forces",
            "push=2;pull=2;anxiety=3;habit=1",
            0.4,
            "Forces of the top job",
            ("two_jobs",),
            "Force lines under that job's codes",
        ),
    ),
    instruction="""# Which job do customers hire us for?

The `jtbd-analyzer` skill is available at `/skills/jtbd-analyzer`; read its `SKILL.md` (jobs to be done, the
forces of progress).

The switch interviews are coded in `/workspace/interviews/`: a `Job: <id>` line opens what the interviewee said
about that job (`/workspace/interviews/jobs.md` states the jobs), and the `Push:`, `Pull:`, `Anxiety:` and
`Habit:` lines under it are the forces for that job. Write `/workspace/out/result.json` with

* `job_ranking`: the jobs by how many distinct interviewees hold them, most first (ties by id), as `id:count`
  joined with `>`,
* `top_job_forces`: for the first job of that ranking, how many push, pull, anxiety and habit lines were coded,
  as `push=n;pull=n;anxiety=n;habit=n`.

Also write `/workspace/out/job-story.md`, a short note for the team: the top job's statement and the force that
is strongest for it.
""",
    files=JTBD_INTERVIEWS,
    steps=(("rank-jobs", _py(JTBD_RANK)), ("forces-of-top-job", _py(JTBD_FORCES + JTBD_STORY))),
    note=Note(
        path="out/job-story.md",
        weight=0.2,
        description="The note for the team states the top job and its strongest force",
        judge_instruction="Score 1 if the note gives the top job's statement as written in interviews/jobs.md "
        "(When ..., I want ..., so I can ...) and names the force coded most often for it; 0.5 if only one of "
        "the two; 0 otherwise.",
        marker="so I can price with confidence",
    ),
)

DECK_CSV = """word,translation,interval_days,ease,last_review
la ventana,window,6,2.5,2025-04-01
el cuchillo,knife,1,2.36,2025-04-06
madrugar,to get up early,15,2.7,2025-03-23
el ayuntamiento,town hall,3,1.3,2025-04-04
aprovechar,to make the most of,4,2.2,2025-04-03
la cuchara,spoon,10,2.5,2025-03-30
el sobremesa,after-meal chat,2,2.1,2025-04-06
"""

SRS_RULES = """# Review rules (SM-2)

Grades go from 0 (blackout) to 5 (perfect).
- grade < 3: the card is relearned: the new interval is 1 day, the ease stays.
- grade >= 3: new ease = ease + (0.1 - (5 - grade) * (0.08 + (5 - grade) * 0.02)), never below 1.3;
  new interval = round(interval * new ease) days, with 1 -> 6 for a card on its first day.
A card is due when last_review + interval_days is on or before today.
"""

LANG_DUE = """
import csv, json
from datetime import date, timedelta
today = date(2025, 4, 7)
deck = list(csv.DictReader(open("deck.csv")))
due = sorted(c["word"] for c in deck
             if date.fromisoformat(c["last_review"]) + timedelta(days=int(c["interval_days"])) <= today)
""" + _merge('{"due_today": ";".join(due)}')

LANG_SCHEDULE = """
import csv
deck = {c["word"]: c for c in csv.DictReader(open("deck.csv"))}
grades = {r["word"]: int(r["grade"]) for r in csv.DictReader(open("session/today.csv"))}
plan = []
for word, grade in sorted(grades.items()):
    card = deck[word]
    interval, ease = int(card["interval_days"]), float(card["ease"])
    if grade < 3:
        interval = 1
    else:
        ease = max(1.3, ease + (0.1 - (5 - grade) * (0.08 + (5 - grade) * 0.02)))
        interval = 6 if interval == 1 else round(interval * ease)
    plan.append(f"{word}={interval}")
""" + _merge('{"next_intervals": ";".join(plan)}')

LANGUAGE = TaskSpec(
    skill_path="openclaw-skills/chipagosfinest--language-learning",
    slug="language-learning",
    task_name="spanish-review-session",
    goal="A Spanish learner asks which flashcards are due on 2025-04-07 and, after grading today's session, "
    "when each reviewed card comes back.",
    patterns={
        "nested_container_evidence": "The scheduling rules are in srs_rules.md, the grades in session/today.csv.",
        "exhaustive_item_accounting": "Every card of the deck is checked for being due; every graded card rescheduled.",
        "conditional_branch_on_data": "A failed grade resets the interval; the ease floor of 1.3 bites one card.",
    },
    inputs=(
        ("floor", "The ease floor", "never below 1.3", "srs_rules.md"),
        ("reset", "A failed card is relearned", "the new interval is 1 day", "srs_rules.md"),
        ("low_ease", "A card at the floor", "1.3", "deck.csv"),
    ),
    results=(
        Result(
            "due_today",
            "aprovechar;el ayuntamiento;el cuchillo;la ventana;madrugar",
            0.5,
            "Cards due today",
            ("low_ease",),
            "last_review + interval <= 2025-04-07",
        ),
        Result(
            "next_intervals",
            "aprovechar=8;el ayuntamiento=4;el cuchillo=6;la ventana=1",
            0.5,
            "New intervals after today's grades",
            ("floor", "reset", "low_ease"),
            "SM-2 as stated",
        ),
    ),
    instruction="""# Today's Spanish review

The `language-learning` skill is available at `/skills/language-learning`; read its `SKILL.md` (vocabulary drills,
spaced repetition).

The learner's deck is `/workspace/deck.csv`; the review rules they follow are in `/workspace/srs_rules.md`.
Today is 2025-04-07; today's session grades are in `/workspace/session/today.csv`. Write
`/workspace/out/result.json` with

* `due_today`: the words due today, sorted, joined with `;`,
* `next_intervals`: for each word graded today, `word=days` (its new interval in days), sorted by word,
  joined with `;`.
""",
    files={
        "deck.csv": DECK_CSV,
        "srs_rules.md": SRS_RULES,
        "session/today.csv": "word,grade\nla ventana,2\nel cuchillo,5\nel ayuntamiento,3\naprovechar,3\n",
    },
    steps=(("cards-due", _py(LANG_DUE)), ("reschedule-graded", _py(LANG_SCHEDULE))),
)


def _forecast() -> str:
    import math

    times, temps, rain = [], [], []
    for hour in range(72):
        day, clock = divmod(hour, 24)
        times.append(f"2025-07-{14 + day:02d}T{clock:02d}:00")
        temps.append(round(70 + 14 * math.sin((hour - 14) / 24 * 2 * math.pi) + day * 1.7 + (hour % 5) * 0.3, 1))
        rain.append(round(max(0.0, 2.4 * math.sin((hour - 30) / 9)) if 27 <= hour <= 57 else 0.0, 2))
    document = {
        "latitude": 41.88,
        "longitude": -87.63,
        "timezone": "GMT",
        "timezone_abbreviation": "GMT",
        "utc_offset_seconds": 0,
        "location_local_utc_offset_seconds": -18000,
        "hourly_units": {"time": "iso8601", "temperature_2m": "°F", "precipitation": "mm"},
        "hourly": {"time": times, "temperature_2m": temps, "precipitation": rain},
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


WEATHER_DAILY = """
import json
from collections import defaultdict
from datetime import datetime, timedelta
doc = json.load(open("forecast/chicago.json"))
offset = timedelta(seconds=doc["location_local_utc_offset_seconds"])
hourly = doc["hourly"]
to_c = (lambda f: (f - 32) * 5 / 9) if doc["hourly_units"]["temperature_2m"] == "°F" else (lambda c: c)
days = defaultdict(list)
for when, temp, rain in zip(hourly["time"], hourly["temperature_2m"], hourly["precipitation"]):
    local = datetime.fromisoformat(when) + offset
    days[local.date().isoformat()].append((to_c(temp), rain))
full = {d: v for d, v in days.items() if len(v) == 24}
json.dump(full, open("/tmp/days.json", "w"))
""" + _merge('{"daily_max_c": ";".join(f"{d}={max(t for t, _ in v):.1f}" for d, v in sorted(full.items()))}')

WEATHER_RAIN = """
import json
days = json.load(open("/tmp/days.json"))
totals = {d: sum(r for _, r in v) for d, v in days.items()}
wettest = max(sorted(totals), key=lambda d: totals[d])
""" + _merge('{"wettest_day": f"{wettest}={totals[wettest]:.2f}"}')

WEATHER = TaskSpec(
    skill_path="openclaw-skills/noypearl--get-weather",
    slug="weather-data-fetcher",
    task_name="chicago-trip-forecast",
    goal="A traveller to Chicago wants each full local day's high in °C and the wettest local day from the "
    "saved Open-Meteo forecast.",
    patterns={
        "payload_size_limit_chunking": "72 hourly values; only whole local days count.",
        "nested_container_evidence": "Times are GMT; Chicago's offset is in location_local_utc_offset_seconds.",
        "installed_version_behaviour": "The forecast was fetched in °F (hourly_units), the answer is in °C.",
    },
    inputs=(
        (
            "offset",
            "Chicago is 5 hours behind UTC",
            -18000,
            "forecast/chicago.json",
        ),
        ("fahrenheit", "Temperatures are in °F", "°F", "forecast/chicago.json"),
    ),
    results=(
        Result(
            "daily_max_c",
            "2025-07-14=29.3;2025-07-15=30.5",
            0.5,
            "High per full local day, °C",
            ("offset", "fahrenheit"),
            "Hours shifted to local time, °F to °C",
        ),
        Result(
            "wettest_day",
            "2025-07-15=38.90",
            0.5,
            "The wettest full local day and its total",
            ("offset",),
            "Precipitation summed per local day",
        ),
    ),
    instruction="""# Chicago trip: highs and rain

The `weather-data-fetcher` skill is available at `/skills/weather-data-fetcher`; read its `SKILL.md`. There is
no network: the Open-Meteo forecast for Chicago was saved to `/workspace/forecast/chicago.json`.

Only full local (Chicago) calendar days count: days for which the forecast has all 24 hours. Write
`/workspace/out/result.json` with

* `daily_max_c`: each such day's highest temperature in °C with one decimal, as `YYYY-MM-DD=value`, sorted by
  day, joined with `;`,
* `wettest_day`: the day with the most precipitation as `YYYY-MM-DD=total` (mm, two decimals).
""",
    files={"forecast/chicago.json": _forecast()},
    steps=(("local-days-and-highs", _py(WEATHER_DAILY)), ("wettest-day", _py(WEATHER_RAIN))),
)

SPECS: tuple[TaskSpec, ...] = (
    SIMPY,
    FRESHRSS,
    TYPESCRIPT,
    OPENSSL,
    EXCALIDRAW,
    DND,
    BIRTHDAY,
    KEEP,
    STOCK,
    JTBD,
    LANGUAGE,
    WEATHER,
)

BAD_PACKAGE_SKILL = "k-dense-scientific-skills/pymoo"
BAD_PACKAGE = "simpy-no-such-package==1.0"
"""A skill whose every build declares a PyPI package that does not exist (its blueprint is SimPy's
clinic): the author must reject it by name while the run goes on."""
BAD = TaskSpec(
    **{
        **SIMPY.__dict__,
        "skill_path": BAD_PACKAGE_SKILL,
        "slug": "pymoo",
        "instruction": SIMPY.instruction.replace("/skills/simpy", "/skills/pymoo"),
        "pip": (BAD_PACKAGE,),
    }
)
BY_MOUNT = {spec.mount: spec for spec in (*SPECS, BAD)}
BY_PATH = {spec.skill_path: spec for spec in (*SPECS, BAD)}


# --- blueprint and build answers ----------------------------------------------------------------


def _item_id(key: str) -> str:
    return key.replace("_", "-") + "-right"


def blueprint_answer(spec: TaskSpec, selected: list[str]) -> dict[str, Any]:
    """The blueprint: one challenge per pattern the skill was offered (`selected`, else the spec's own)."""
    inputs = [spec_input[0] for spec_input in spec.inputs]
    challenges = []
    for index, pattern_id in enumerate(selected or list(spec.patterns)):
        form = spec.patterns.get(pattern_id) or (
            f"{pattern_id.replace('_', ' ').capitalize()}: the workspace holds "
            f"{'; '.join(statement.lower() for _, statement, _, _ in spec.inputs)}, and the results depend on it."
        )
        challenges.append(
            {"pattern_id": pattern_id, "intensity": 1, "form": form, "facts": [inputs[index % len(inputs)]]}
        )
    facts = [
        {
            "id": fact_id,
            "statement": statement,
            "value": value,
            "level": "discoverable",
            "location": location,
            "derived_from": [],
        }
        for fact_id, statement, value, location in spec.inputs
    ]
    facts += [
        {
            "id": r.key,
            "statement": r.statement,
            "value": r.value,
            "level": "author_only",
            "location": None,
            "derived_from": list(r.derived_from),
        }
        for r in spec.results
    ]
    items = [
        {
            "id": _item_id(r.key),
            "description": f"result.json has the right {r.key}",
            "weight": r.weight,
            "method": "deterministic",
            "target_files": [OUT],
            "check": {"check": "json_path_equals", "params": {"path": OUT, "values": {f"$.{r.key}": r.value}}},
        }
        for r in spec.results
    ]
    deliverables = [{"path": OUT, "format": "json", "description": "The results, one key each"}]
    criteria = [
        {"id": f"ac-{_item_id(r.key)}", "description": r.statement, "rubric_item": _item_id(r.key)}
        for r in spec.results
    ]
    if spec.note is not None:
        note = spec.note
        deliverables.append({"path": note.path, "format": "md", "description": note.description})
        criteria.append({"id": "ac-note", "description": note.description, "rubric_item": "note-reads-right"})
        items.append(
            {
                "id": "note-reads-right",
                "description": note.description,
                "weight": note.weight,
                "method": "llm_judge",
                "target_files": [note.path],
                "judge_instruction": note.judge_instruction,
            }
        )
    return {
        "task_name": spec.task_name,
        "goal": spec.goal,
        "challenges": challenges,
        "facts": facts,
        "derivations": [
            {"result": r.key, "from_facts": list(r.derived_from), "reasoning": r.reasoning} for r in spec.results
        ],
        "deliverables": deliverables,
        "acceptance_criteria": criteria,
        "rubric": {"summary": "; ".join(r.statement for r in spec.results), "items": items},
    }


def build_answer(spec: TaskSpec) -> dict[str, Any]:
    return {
        "instruction": spec.instruction,
        "files": [{"path": path, "content": text} for path, text in sorted(spec.files.items())],
        "generator": spec.generator,
        "solve_sh": spec.solve_sh,
        "apt_packages": list(spec.apt),
        "pip_packages": list(spec.pip),
        "npm_packages": list(spec.npm),
        "verifier_files": [],
    }


# --- every role ---------------------------------------------------------------------------------

PICKS = 3
SKILL_LINE = re.compile(r"^Skill: (.+?) \(domain: ", re.MULTILINE)
MOUNT = re.compile(r"/skills/[a-z0-9-]+")
SELECTED = re.compile(r"^- ([a-z0-9_]+)(?: \([a-z_]+\))?: ", re.MULTILINE)
CANDIDATE = re.compile(r"^- ([a-z0-9_]+) — [^\n]*?(?:\(conflicts with: ([^)]*)\))?$", re.MULTILINE)


def _spec_of_text(text: str) -> TaskSpec | None:
    for mount in MOUNT.findall(text):
        if mount in BY_MOUNT:
            return BY_MOUNT[mount]
    return None


def _user(messages: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "user")


def _skill_name(user: str) -> str:
    found = SKILL_LINE.search(user) or re.search(r"^Skill: (.+)$", user, flags=re.MULTILINE)
    return found.group(1).strip() if found else ""


def _spec_of_name(name: str) -> TaskSpec | None:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40]
    return BY_MOUNT.get(f"/skills/{slug}")


def _picks(user: str) -> dict[str, Any]:
    spec = _spec_of_name(_skill_name(user))
    candidates = {
        m.group(1): {c.strip() for c in (m.group(2) or "").split(",") if c.strip()} for m in CANDIDATE.finditer(user)
    }
    order = [p for p in (spec.patterns if spec else ()) if p in candidates] + list(candidates)
    chosen: list[str] = []
    for pattern in dict.fromkeys(order):
        if len(chosen) < PICKS and not any(pattern in candidates[c] or c in candidates[pattern] for c in chosen):
            chosen.append(pattern)
    return {"picks": [{"pattern_id": p, "rationale": f"{p} shows up in the task's inputs"} for p in chosen]}


def _selected(user: str) -> list[str]:
    _, _, rest = user.partition("Difficulty patterns selected for this skill")
    listed, _, _ = rest.partition("Deterministic checks")
    return SELECTED.findall(listed)


def _judge(user: str) -> Scripted:
    for spec in SPECS:
        note = spec.note
        if note is not None and f"=== file {note.path} (" in user:
            shown = user.split(f"=== file {note.path} (", 1)[1].split(f"=== end of {note.path} [", 1)[0]
            if note.marker in shown:
                quote = {"path": note.path, "quote": note.marker}
                return json_answer({"score": 1.0, "evidence": [quote], "reasoning": "The note says what it must."})
    return json_answer({"score": 0.0, "evidence": [], "reasoning": "No note that says what it must."})


def respond(request: dict[str, Any]) -> Scripted:
    """Every role's answer, told apart by the request (tools: the solver; else the system prompt)."""
    messages = request["messages"]
    everything = "\n".join(str(m.get("content") or "") for m in messages)
    if request.get("tools"):
        names = {tool["function"]["name"] for tool in request["tools"]}
        if "finish" not in names:  # another agent loop (CompoWorld's): a plain answer ends it
            return text("I have no prepared solution for this task.")
        if "red-team tester" in everything:
            return tool_calls(("finish", {"message": "I did not try any shortcut."}))
        turns = sum(1 for message in messages if message["role"] == "assistant")
        spec = _spec_of_text(everything)
        if turns == 0 and spec is not None:
            return tool_calls(("bash", {"command": spec.solve_sh, "timeout": 300}))
        return tool_calls(("finish", {"message": "done" if spec else "no task I know"}))
    system = messages[0]["content"] if messages[0]["role"] == "system" else ""
    user = _user(messages)
    if system.startswith("You are the judge"):
        return _judge(user)
    if system.startswith("You curate agent skills"):
        if _spec_of_name(_skill_name(user)) is None:
            return refusal(f"I curate only the skills I was prepared for, not {_skill_name(user)!r}.")
        criteria = re.findall(r"^- (practical|compatible|feasible|safe): rules said undecided", user, re.MULTILINE)
        return json_answer(
            {
                c: {
                    "outcome": "pass",
                    "reason": "workflow:clear",
                    "explanation": "The skill describes a concrete workflow.",
                }
                for c in criteria
            }
        )
    if system.startswith("You build one training task"):
        spec = _spec_of_text(user.split("The base image", 1)[0])
        if spec is None:
            return refusal("I build tasks only for the skills I was prepared for.")
        return json_answer(build_answer(spec))
    if "Each environment is one task" in system:
        return json_answer(_picks(user))
    if "One environment is one task" in system:
        spec = _spec_of_name(_skill_name(user))
        if spec is None:
            return refusal(f"I have no task prepared for the skill {_skill_name(user)!r}.")
        return json_answer(blueprint_answer(spec, _selected(user)))
    return refusal("No scripted answer for this request.")


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the corpus author's scripted answers on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0)
    server = ScriptedServer(respond, port=parser.parse_args().port).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()

"""Render the text-coding world: the batch file, the codebook (with its footnotes, precedence rules and
scoring), its dated amendments, its cue export, and the documents (text files, a JSONL batch file,
e-mail files, a zip archive)."""

from __future__ import annotations

import json
from datetime import timedelta

from skill2env.kits import render as r
from skill2env.kits.spec import Workspace
from skill2env.kits.textcodes.patterns import BATCH, CODEBOOK, EXPORT, amendment_path, doc_path
from skill2env.kits.textcodes.world import BODY, DUP, NEGATED, SIGN_OFF, Doc, World

INDEX = "corpus/INDEX.md"


def revised(world: World) -> str:
    return (world.start - timedelta(days=10)).isoformat()


def quoted(cue: str) -> str:
    return f'"{cue}"'


def codebook(world: World) -> str:
    low, high = world.thresholds
    bands = world.scheme.bands
    rows = [[c.code, c.name, str(c.weight), "; ".join(quoted(q) for q in c.cues)] for c in world.codes]
    rows.append([DUP, "Re-sent copy", "0", "none²"])
    if world.precedence:
        rules = [
            "Apply these rules in the order listed, each to the codes the rules before it left:",
            "",
            *(
                f"{n}. When a document has both {w} and {loser}, it keeps {w} only ({w} absorbs {loser})."
                for n, (w, loser) in enumerate(world.precedence, 1)
            ),
        ]
    else:
        rules = ["No code absorbs another: a document gets every code whose cue phrase it shows."]
    return "\n".join([
        f"# Codebook: {world.scheme.title}", "",
        f"Version 3, revised {revised(world)}. Maintained by the {world.org} research desk.", "",
        "Where a dated amendment in `codebook/amendments/` and this codebook differ, the amendment governs (a "
        f"later amendment over an earlier one). `{EXPORT}` is a convenience export of the table below for "
        "scripts; this file is the reference.", "",
        "## Codes", "",
        r.markdown_table(["Code", "Name", "Weight", "Cue phrases¹"], rows).rstrip("\n"), "",
        "¹ A document gets a code when one of the code's cue phrases appears in the document's body (case "
        "ignored, whole words). A cue phrase does not count in a quoted earlier message (the `On ... wrote:` line "
        "and the lines starting with `>`), in the signature or disclaimer below the `-- ` line, or right after the "
        'word "not".', "",
        "² A document whose body repeats an earlier document's body (the same words, ignoring case, spacing, "
        "punctuation, the quoted message and the signature) is a re-sent copy: it gets the code DUP and no other, "
        "and no score. The earlier one (by date) is coded as usual.", "",
        "## Precedence", "", *rules, "",
        "## Scoring", "",
        "A document's score is the sum of the weights of its codes. "
        f"Band: {bands[2]} at a score of {high} or more, {bands[1]} at {low} or more, {bands[0]} below.", "",
    ])  # fmt: skip


def amendment(world: World) -> str | None:
    lines = []
    for code, weight in world.amended_weights.items():
        lines.append(f"- Weight of {code} ({world.code(code).name}): now {weight}.")
    for code, cue in world.added_cues.items():
        lines.append(f"- Cue phrase added to {code} ({world.code(code).name}): {quoted(cue)}.")
    for code, cue in world.retired_cues.items():
        lines.append(f"- Cue phrase retired from {code} ({world.code(code).name}): {quoted(cue)} no longer counts.")
    if world.clarified:
        lines.append(f"- Definition of {world.clarified} ({world.code(world.clarified).name}) clarified; its cue "
                     "phrases and weight are unchanged.")  # fmt: skip
    if not lines:
        return None
    day = amendment_path(world).split("/")[-1][:10]
    head = f"# Codebook amendment ({day})\n\nThis amendment supersedes the codebook where they differ.\n\n"
    return head + "\n".join(lines) + "\n"


def export(world: World) -> str:
    stale = bool(world.export_date)
    codes = []
    for c in world.codes:
        cues = [q for q in c.cues if world.export_missing.get(c.code) != q]
        cues += [world.export_extra[c.code]] if c.code in world.export_extra else []
        codes.append({"code": c.code, "name": c.name, "weight": world.export_weights.get(c.code, c.weight),
                      "cues": cues})  # fmt: skip
    codes.append({"code": DUP, "name": "Re-sent copy", "weight": 0, "cues": []})
    data = {
        "generated": world.export_date if stale else revised(world),
        "source": f"{CODEBOOK} version {2 if stale else 3}",
        "codes": codes,
        "bands": {"labels": list(world.scheme.bands), "thresholds": list(world.thresholds)},
    }
    return json.dumps(data, indent=2) + "\n"


def sentence(world: World, doc: Doc, index: int) -> str:
    if index < 0:
        return doc.fillers[-1 - index]
    mention = doc.mentions[index]
    if mention.where == "negated":
        return NEGATED.format(cue=mention.cue)
    template = BODY[(index + doc.ref) % len(BODY)]
    return template.format(cue=mention.cue, Cue=mention.cue[0].upper() + mention.cue[1:])


def body(world: World, doc: Doc) -> str:
    lines = [f"Reference: {doc.ref}"]
    said = [sentence(world, doc, n) for n in doc.order]
    if doc.variant:
        lines.append("  ".join(said).lower())
    else:
        lines += said
    quotes = [m for m in doc.mentions if m.where == "quote"]
    if quotes:
        day = (doc.day - timedelta(days=3)).isoformat()
        lines += ["", f"On {day}, {world.scheme.people[0]} wrote:"]
        lines += [f"> {BODY[0].format(cue=m.cue, Cue=m.cue[0].upper() + m.cue[1:])}" for m in quotes]
        lines.append(f"> {doc.fillers[0]}")
    lines += ["", SIGN_OFF[doc.ref % len(SIGN_OFF)], "-- ", doc.author, world.org]
    lines += [f"Footer: {m.cue[0].upper() + m.cue[1:]}." for m in doc.mentions if m.where == "signature"]
    return "\n".join(lines) + "\n"


def headers(world: World, doc: Doc) -> list[tuple[str, str]]:
    return [("ID", doc.id), ("From", doc.author), ("Date", doc.day.isoformat()),
            (world.scheme.scope_field, doc.scope), ("Subject", doc.subject)]  # fmt: skip


def text_file(world: World, doc: Doc) -> str:
    return "".join(f"{k}: {v}\n" for k, v in headers(world, doc)) + "\n" + body(world, doc)


def email_file(world: World, doc: Doc) -> str:
    field = world.scheme.scope_field
    head = [("X-Doc-Id", doc.id), ("From", f"{doc.author} <noreply@example.com>"), ("Date", doc.day.isoformat()),
            (f"X-{field}", doc.scope), ("Subject", doc.subject), ("Content-Type", "text/plain")]  # fmt: skip
    return "".join(f"{k}: {v}\n" for k, v in head) + "\n" + body(world, doc)


def render_world(world: World) -> Workspace:
    ws = Workspace()
    scheme = world.scheme
    count = len(world.in_scope())
    ws.add_text(BATCH, "\n".join([
        f"# Coding batch: {world.org}", "",
        f"Code the {scheme.what} of {scheme.scope_field} `{world.scope}` dated {world.start.isoformat()} to "
        f"{world.end.isoformat()} (both inclusive) with the codebook in `{CODEBOOK}`. The batch holds {count} "
        f"{scheme.what}; other {scheme.what} under `corpus/` belong to other batches.", "",
        "Documents arrive as text files, and sometimes as JSONL batch files, e-mail files or archives.", "",
    ]))  # fmt: skip
    ws.add_text(CODEBOOK, codebook(world))
    amended = amendment(world)
    if amended:
        ws.add_text(amendment_path(world), amended)
    ws.add_text(EXPORT, export(world))
    batch: list[str] = []
    archive: dict[str, bytes] = {}
    for doc in sorted(world.docs, key=lambda d: d.id):
        if doc.container == "jsonl":
            record = {k.lower(): v for k, v in headers(world, doc)} | {"text": body(world, doc)}
            batch.append(json.dumps(record, ensure_ascii=False))
        elif doc.container == "eml":
            ws.add_text(doc_path(world, doc), email_file(world, doc))
        elif doc.container == "zip":
            archive[f"{doc.id}.txt"] = text_file(world, doc).encode()
        else:
            ws.add_text(doc_path(world, doc), text_file(world, doc))
    if batch:
        ws.add_text(f"corpus/batch-{world.end.isoformat()}.jsonl", "\n".join(batch) + "\n")
    if archive:
        text = "\n".join(data.decode() for data in archive.values())
        ws.add("corpus/archive.zip", r.zip_bytes(archive), text)
    if world.listing:
        rows = [[d.id, d.subject] for d in sorted(world.docs, key=lambda d: d.id)]
        ws.add_text(INDEX, f"# Corpus index\n\n{r.markdown_table(['Document', 'Subject'], rows)}")
    return ws

"""Pattern transformers of the text-coding kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (its occasion is there, but the
obvious reading happens to be right): likely at intensity 1, less so at 2, never at 3. A harmful trap
changes what a coder who matches the exported cue list against whole files, every file of the
folder's top level, gets wrong.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.spec import Design
from skill2env.kits.textcodes.world import Doc, Mention, World, counted

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.7, 2: 0.45, 3: 0.0}
CODEBOOK = "codebook/CODEBOOK.md"
EXPORT = "codebook/cues.json"
BATCH = "BATCH.md"
ITEMS = ("codes.map", "summary.counts", "summary.scores", "summary.bands")
SCORES = ("summary.scores", "summary.bands")


def benign(level: int, rng: random.Random) -> bool:
    return rng.random() < BENIGN[level]


def amendment_path(world: World) -> str:
    return f"codebook/amendments/{(world.start - timedelta(days=3)).isoformat()}-amendment.md"


def doc_path(world: World, doc: Doc) -> str:
    if doc.container == "jsonl":
        return f"corpus/batch-{world.end.isoformat()}.jsonl"
    if doc.container == "eml":
        return f"corpus/inbox/{doc.id}.eml"
    if doc.container == "zip":
        return "corpus/archive.zip"
    return f"corpus/{doc.id}.txt"


def plain(world: World) -> list[Doc]:
    """In-scope documents that are neither copies nor moved, in id order."""
    return [d for d in sorted(world.in_scope(), key=lambda d: d.id) if not d.duplicate_of]


def without(world: World, code: str) -> list[Doc]:
    return [d for d in plain(world) if code not in counted(world, d)]


def with_code(world: World, code: str) -> list[Doc]:
    return [d for d in plain(world) if code in counted(world, d)]


def spare_codes(world: World) -> list[str]:
    """Codes whose third cue phrase no other pattern has taken yet."""
    taken = {*world.added_cues, *world.export_missing, *world.export_extra}
    return [c.code for c in world.codes if c.code not in taken]


def third_cue(world: World, code: str) -> str:
    return next(cues[2] for c, _, cues in world.scheme.codes if c == code)


def authority_resolution(world: World, level: int, rng: random.Random, design: Design) -> None:
    path = amendment_path(world)
    if benign(level, rng):
        world.clarified = rng.choice(world.codes).code
    else:
        present = [c.code for c in world.codes if with_code(world, c.code)]
        code = rng.choice(present or [c.code for c in world.codes])
        old = world.weight(code)
        world.amended_weights[code] = rng.choice([w for w in (1, 2, 3, 4) if w != old])
        world.tag("authority_resolution", *SCORES)
        design.plant("authority_resolution", f"amend.weight.{code}", "the amendment changes a code's weight",
                     world.amended_weights[code], path)  # fmt: skip
        if level >= 2:
            code = rng.choice(spare_codes(world))
            cue = third_cue(world, code)
            world.added_cues[code] = cue
            world.used_cues.add(cue)
            doc = rng.choice(without(world, code))
            world.place(doc, Mention(code, cue))
            world.tag("authority_resolution", *ITEMS)
            design.plant("authority_resolution", f"amend.cue.{code}", "the amendment adds a cue phrase", cue, path)
        if level == 3:
            code = rng.choice([c for c in world.codes if c.code not in world.added_cues]).code
            cue = rng.choice(world.code(code).cues)
            world.retired_cues[code] = cue
            doc = rng.choice(without(world, code))
            world.place(doc, Mention(code, cue))
            world.tag("authority_resolution", *ITEMS)
            design.plant("authority_resolution", f"amend.retired.{code}", "the amendment retires a cue phrase", cue,
                         path)  # fmt: skip
    design.plant("authority_resolution", "codebook.precedence", "amendments supersede the codebook", "governs",
                 CODEBOOK)  # fmt: skip
    design.forms["authority_resolution"] = {
        1: "A dated amendment to the codebook changes one code's weight; the codebook says amendments supersede it.",
        2: "As level 1, and the amendment adds a cue phrase that one document uses.",
        3: "As level 2, and it retires a cue phrase that a document still uses.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    world.export_date = (world.start - timedelta(days=rng.randint(20, 40))).isoformat()
    code = rng.choice(spare_codes(world))
    cue = third_cue(world, code)
    world.export_missing[code] = cue
    index = next(n for n, c in enumerate(world.codes) if c.code == code)
    original = world.codes[index]
    world.codes[index] = type(original)(original.code, original.name, (*original.cues, cue), original.weight)
    world.used_cues.add(cue)
    if not benign(level, rng):
        world.place(rng.choice(without(world, code)), Mention(code, cue))
        world.tag("stale_derived_artifact", *ITEMS)
        design.plant("stale_derived_artifact", f"codebook.cue.{code}", "the codebook has a cue its export lacks", cue,
                     CODEBOOK)  # fmt: skip
        if level >= 2:
            present = [c.code for c in world.codes if with_code(world, c.code)]
            other = rng.choice(present)
            world.export_weights[other] = rng.choice([w for w in (1, 2, 3, 4) if w != world.code(other).weight])
            world.tag("stale_derived_artifact", *SCORES)
            design.plant("stale_derived_artifact", f"export.weight.{other}", "the export has an old weight",
                         world.export_weights[other], EXPORT)  # fmt: skip
        if level == 3:
            other = rng.choice(spare_codes(world))
            dropped = third_cue(world, other)
            world.export_extra[other] = dropped
            world.used_cues.add(dropped)
            world.place(rng.choice(without(world, other)), Mention(other, dropped))
            design.plant("stale_derived_artifact", f"export.dropped.{other}", "the export lists a dropped cue",
                         dropped, EXPORT)  # fmt: skip
    design.plant("stale_derived_artifact", "export.generated", "the cue export predates the codebook revision",
                 world.export_date, EXPORT)  # fmt: skip
    design.forms["stale_derived_artifact"] = {
        1: "The codebook's cue export was generated before the codebook's last revision and lacks a cue phrase "
        "a document uses.",
        2: "As level 1, and the export still has a code's old weight.",
        3: "As level 2, and the export still lists a cue phrase the codebook dropped, which a document uses.",
    }[level]


def footnote_qualification(world: World, level: int, rng: random.Random, design: Design) -> None:
    kinds = ("quote", "signature", "negated")[:level]
    harmless = benign(level, rng)
    docs = rng.sample(plain(world), len(kinds))
    for kind, doc in zip(kinds, docs, strict=True):
        has = counted(world, doc)
        pool = has if harmless and has else [c.code for c in world.codes if c.code not in has]
        code = rng.choice(pool)
        mention = Mention(code, rng.choice(world.current_cues(code)), kind)
        if kind == "negated":
            world.place(doc, mention)
        else:
            doc.mentions.append(mention)
        if not (harmless and has):
            world.tag("footnote_qualification", *ITEMS)
            design.plant("footnote_qualification", f"excluded.{doc.id}.{kind}", f"a cue phrase in a {kind} place",
                         mention.cue, doc_path(world, doc))  # fmt: skip
    design.plant("footnote_qualification", "codebook.exclusions", "the codebook's footnote on excluded cues",
                 "does not count", CODEBOOK)  # fmt: skip
    design.forms["footnote_qualification"] = {
        1: "A document has a cue phrase only in a quoted earlier message; the codebook's footnote excludes it.",
        2: "As level 1, and another has one only in its signature or disclaimer.",
        3: "As level 2, and a third has one only negated.",
    }[level]


def skill_decision_rules(world: World, level: int, rng: random.Random, design: Design) -> None:
    names = [c.code for c in world.codes]
    if level == 3:
        x, y, z = rng.sample(names, 3)
        world.precedence = [(x, y), (y, z)]
    else:
        pairs: list[tuple[str, str]] = []
        while len(pairs) < level:
            x, y = rng.sample(names, 2)
            if not any({x, y} & set(p) for p in pairs):
                pairs.append((x, y))
        world.precedence = pairs
    if not benign(level, rng):
        targets = [world.precedence[0][0], *(p[1] for p in world.precedence)]
        if level == 3:
            doc = rng.choice(plain(world))
            for code in targets:
                if code not in counted(world, doc):
                    world.place(doc, Mention(code, world.unused_cue(code)))
            doc2 = rng.choice([d for d in plain(world) if d is not doc])
            for code in targets[1:]:
                if code not in [m.code for m in doc2.mentions if m.where == "body"]:
                    world.place(doc2, Mention(code, world.unused_cue(code)))
        else:
            for winner, loser in world.precedence:
                doc = rng.choice(plain(world))
                for code in (winner, loser):
                    if code not in [m.code for m in doc.mentions if m.where == "body"]:
                        world.place(doc, Mention(code, world.unused_cue(code)))
        world.tag("skill_decision_rules", *ITEMS)
    else:
        for winner, loser in world.precedence:  # no document holds both: the rules change nothing
            for doc in plain(world):
                has = {m.code for m in doc.mentions if m.where == "body"}
                if winner in has and loser in has:
                    world.precedence = []
    design.plant("skill_decision_rules", "codebook.rules", "the codebook's precedence rules",
                 len(world.precedence), CODEBOOK)  # fmt: skip
    design.forms["skill_decision_rules"] = {
        1: "The codebook has a precedence rule (one code absorbs another) and a document shows both codes.",
        2: "Two precedence rules, each applying to a document.",
        3: "A chain of two rules applied in order, to a document with all three codes and one with two.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    names = [c.code for c in world.codes]
    if benign(level, rng):
        world.add_doc(rng.sample(names, 1), day=world.end)
    else:
        other = rng.choice([s for s in world.scheme.scopes if s != world.scope])
        days = [world.start + timedelta(days=rng.randint(0, (world.end - world.start).days))]
        days += [world.start - timedelta(days=rng.randint(1, 5))] if level >= 2 else []
        days += [world.end + timedelta(days=1)] if level == 3 else []
        for n, day in enumerate(days):
            doc = world.add_doc(rng.sample(names, rng.randint(1, 2)), day=day, scope=other if n == 0 else "")
            design.plant("scope_distractor", f"out.{doc.id}", "a document of another batch", doc.id,
                         doc_path(world, doc))  # fmt: skip
        world.tag("scope_distractor", *ITEMS)
    design.plant("scope_distractor", "batch.scope", "the batch's scope", world.scope, BATCH)
    design.forms["scope_distractor"] = {
        1: "A document of another campaign or study sits in the corpus folder; the batch file names the scope.",
        2: "As level 1, and one of the right scope is dated before the batch's window.",
        3: "As level 2, and one is dated the day after the window ends.",
    }[level]


def duplicate_claim_across_periods(world: World, level: int, rng: random.Random, design: Design) -> None:
    if benign(level, rng):
        doc = rng.choice(plain(world))
        world.add_doc(rng.sample([c.code for c in world.codes], 1), day=doc.day).subject = "Re: " + doc.subject
    else:
        candidates = [d for d in plain(world) if d.day < world.end and counted(world, d)]
        for n, original in enumerate(rng.sample(candidates, 2 if level == 3 else 1)):
            twin = copy.deepcopy(original)
            twin.id = world.new_id()
            twin.day = original.day + timedelta(days=rng.randint(1, (world.end - original.day).days))
            twin.subject = ("Fwd: ", "Resent: ")[n] + original.subject
            twin.duplicate_of = original.id
            twin.variant = 0 if level == 1 else 1
            if level == 3 and n == 1:
                twin.author = rng.choice([p for p in world.scheme.people if p != original.author])
            world.docs.append(twin)
            design.plant("duplicate_claim_across_periods", f"copy.{twin.id}", "a re-sent copy of an earlier document",
                         twin.id, doc_path(world, twin))  # fmt: skip
        world.tag("duplicate_claim_across_periods", *ITEMS)
    design.plant("duplicate_claim_across_periods", "codebook.duplicates", "the codebook's rule on duplicates", "DUP",
                 CODEBOOK)  # fmt: skip
    design.forms["duplicate_claim_across_periods"] = {
        1: "A document is re-sent later in the batch under a new id; the codebook codes the copy DUP only.",
        2: "As level 1, the copy re-wrapped and re-cased.",
        3: "Two re-sent copies, one of them from another sender.",
    }[level]


def exhaustive_item_accounting(world: World, level: int, rng: random.Random, design: Design) -> None:
    if benign(level, rng):
        world.listing = True
    else:
        docs = rng.sample([d for d in world.in_scope() if d.container == "txt"], {1: 2, 2: 3, 3: 4}[level])
        kinds = ["jsonl", "jsonl", "eml", "zip"][: len(docs)]
        for doc, kind in zip(docs, kinds, strict=True):
            doc.container = kind
            design.plant("exhaustive_item_accounting", f"packed.{doc.id}", f"a document in a {kind} file", doc.id,
                         doc_path(world, doc))  # fmt: skip
        world.tag("exhaustive_item_accounting", *ITEMS)
    design.plant("exhaustive_item_accounting", "batch.count", "the batch's document count", len(world.in_scope()),
                 BATCH)  # fmt: skip
    design.forms["exhaustive_item_accounting"] = {
        1: "Two documents of the batch arrive in a JSONL batch file, not as text files.",
        2: "As level 1, and one more as an e-mail file in a subfolder.",
        3: "As level 2, and one more inside a zip archive.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "authority_resolution": authority_resolution,
    "stale_derived_artifact": stale_derived_artifact,
    "footnote_qualification": footnote_qualification,
    "skill_decision_rules": skill_decision_rules,
    "scope_distractor": scope_distractor,
    "duplicate_claim_across_periods": duplicate_claim_across_periods,
    "exhaustive_item_accounting": exhaustive_item_accounting,
}
PATTERNS = tuple(TRANSFORMERS)

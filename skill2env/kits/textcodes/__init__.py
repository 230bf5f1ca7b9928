"""Kit: coding a text corpus with a codebook.

A batch of short texts (sales messages, customer interview transcripts or plugin descriptions) to
code with a written codebook: codes with cue phrases and weights, footnotes that exclude cues in a
quoted message, a signature or after "not", a rule for re-sent copies, precedence rules and score
bands; with traps (a dated amendment that changes a weight, adds or retires a cue phrase; a cue export
older than the codebook; excluded cues; codes one absorbs; documents of another batch or outside the
window; re-sent copies; documents in a JSONL batch file, an e-mail file or an archive) → the codes of
every document of the batch (JSON) and a summary: counts per code, each document's score and band.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.kits.textcodes.docs import render_world
from skill2env.kits.textcodes.patterns import BATCH, CODEBOOK, EXPORT, PATTERNS, TRANSFORMERS
from skill2env.kits.textcodes.world import (
    World,
    expected_bands,
    expected_codes,
    expected_counts,
    expected_scores,
    generate,
)
from skill2env.patterns.models import InformationLevel, Trait

CODES = "output/codes.json"
SUMMARY = "output/summary.json"


class TextCodesKit(Kit):
    name = "textcodes"
    title = "Coding texts with a codebook"
    formats = ("markdown", "txt", "jsonl", "json", "eml", "zip")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.TEXT_CODING: 1.5,
        Trait.TEXT_CORPUS: 0.1,
        Trait.NUMERIC_COMPUTATION: 0.1,
        Trait.STRUCTURED_DATA: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.TEXT_CODING: 0.4}
    """More than a mention of a label or a score: tactics, dimensions, rubrics or codebooks applied to texts."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.TEXT_CODING: "footnote_qualification",
        Trait.TEXT_CORPUS: "exhaustive_item_accounting",
        Trait.NUMERIC_COMPUTATION: "authority_resolution",
        Trait.STRUCTURED_DATA: "stale_derived_artifact",
        Trait.VERSION_HISTORY: "authority_resolution",
        Trait.DOCUMENTS: "scope_distractor",
    }
    starters = (
        "footnote_qualification",
        "skill_decision_rules",
        "stale_derived_artifact",
        "scope_distractor",
        "duplicate_claim_across_periods",
    )
    solver_module = "skill2env.kits.textcodes.solver"
    naive_module = "skill2env.kits.textcodes.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        scheme = world.scheme
        composition = Composition(
            title=f"Code the {scheme.what} of {world.org}'s batch {world.scope}",
            goal=f"Code every {scheme.what[:-1]} of the batch with the codebook ({scheme.title.lower()}) and "
            "summarise the codes: counts per code, each document's score and band.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (CODES, "json", "the codes of every document of the batch", 0.4),
                (SUMMARY, "json", "counts per code, and each coded document's score and band", 0.6),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.batch", "the batch to code", InformationLevel.STATED, world.scope)
        composition.fact("batch.window", "the batch's scope and window", found, world.start.isoformat(),
                         location=BATCH)  # fmt: skip
        composition.fact("codebook.codes", "the codes and their cue phrases", found, world.codes[0].code,
                         location=CODEBOOK)  # fmt: skip
        composition.fact("codebook.scoring", "the scoring and bands", found, world.scheme.bands[2], location=CODEBOOK)
        composition.fact("export.cues", "the codebook's cue export", found, "cues", location=EXPORT)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    what = world.scheme.what
    return f"""`{BATCH}` says which {what} make up this coding batch; `corpus/` holds the {what}, and
`{CODEBOOK}` is the codebook to code them with (its codes and cue phrases, its footnotes, its precedence
rules and its scoring), with any dated amendments in `codebook/amendments/`.

1. `{CODES}`: `{{"<document id>": ["<code>", ...]}}` — every document of the batch exactly once (by the id in its
   header), each with the codes that apply to it under the codebook (an empty list when none does).
2. `{SUMMARY}`: `{{"counts": {{"<code>": <number of documents of the batch coded with it>}}, "scores":
   {{"<document id>": <score>}}, "bands": {{"<document id>": "<band>"}}}}` — counts for every code of the
   codebook (zero included), scores and bands for every document of the batch that gets a score.
"""


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    def tied(item_id: str) -> tuple[str, ...]:
        return tuple(p for p in patterns if item_id in world.tags.get(p, set()))

    def facts(item_id: str, *base: str) -> tuple[str, ...]:
        return (*base, *(f for p in tied(item_id) for f in design.facts_of(p)))

    codes, counts = expected_codes(world), expected_counts(world)
    scores, bands = expected_scores(world), expected_bands(world)
    result = [
        Item("codes.map", "Every document of the batch has exactly the codes the codebook gives it.", CODES,
             checks.json_value(CODES, "$", codes, unordered=True), codes,
             facts("codes.map", "batch.window", "codebook.codes"),
             "Each document of the batch's scope and window, wherever it is stored, coded by the cue phrases "
             "of its own words under the codebook, its footnotes, amendments and precedence rules.",
             tied("codes.map")),
        Item("summary.counts", "The summary counts the documents coded with each code.", SUMMARY,
             checks.json_value(SUMMARY, "$.counts", counts), counts,
             facts("summary.counts", "codebook.codes"), "The codes of the batch counted per code.",
             tied("summary.counts")),
        Item("summary.scores", "The summary gives each scored document its weighted score.", SUMMARY,
             checks.json_value(SUMMARY, "$.scores", scores), scores,
             facts("summary.scores", "codebook.scoring"),
             "Each document's codes' weights summed, by the codebook and its amendments.", tied("summary.scores")),
        Item("summary.bands", "The summary gives each scored document its band.", SUMMARY,
             checks.json_value(SUMMARY, "$.bands", bands), bands,
             facts("summary.bands", "codebook.scoring"), "Each score banded by the codebook's thresholds.",
             tied("summary.bands")),
    ]  # fmt: skip
    checked = {p for item in result for p in item.patterns}
    quiet = tuple(p for p in patterns if p not in checked)
    if quiet:
        last = result[-1]
        result[-1] = Item(last.id, last.description, last.deliverable, last.check, last.expected, last.derived_from,
                          last.reasoning, (*last.patterns, *quiet))  # fmt: skip
    return result


KIT = TextCodesKit()

"""Kit 7: research from sources.

A folder of sources about a generated topic (Markdown notes, HTML pages, plain-text abstracts, a
BibTeX bibliography, notices of retractions and errata, a review protocol) with traps: a retracted
study, values corrected by errata, studies that disagree and a protocol that ranks them, a study of
another population, one work listed twice under two keys → a cited Markdown summary answering the
review's questions and a JSON reference list whose keys must resolve to the bibliography.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits.base import Kit
from skill2env.kits.research.docs import QUESTIONS, render_world
from skill2env.kits.research.patterns import BIBLIOGRAPHY, PATTERNS, PROTOCOL, TRANSFORMERS
from skill2env.kits.research.world import World, answers, generate
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

SUMMARY = "output/summary.md"
REFERENCES = "output/references.json"
TOLERANCE = 0.05
CHECK_SOURCE = (Path(__file__).parent / "citecheck.py").read_text(encoding="utf-8")


class ResearchKit(Kit):
    name = "research"
    title = "Research summary from sources"
    formats = ("markdown", "html", "txt", "bibtex", "json")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.RESEARCH: 1.5,
        Trait.TEXT_CORPUS: 0.2,
        Trait.DOCUMENTS: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.RESEARCH: 0.5}
    """More than a mention of sources or evidence: citations, bibliographies, literature."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.RESEARCH: "claim_without_receipt",
        Trait.TEXT_CORPUS: "scope_distractor",
        Trait.DOCUMENTS: "authority_resolution",
        Trait.VERSION_HISTORY: "retroactive_correction",
        Trait.STRUCTURED_DATA: "ambiguous_identifier",
    }
    starters = (
        "claim_without_receipt",
        "authority_resolution",
        "retroactive_correction",
        "scope_distractor",
        "ambiguous_identifier",
    )
    solver_module = "skill2env.kits.research.solver"
    naive_module = "skill2env.kits.research.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title=f"Answer the review questions on {world.topic} from the sources",
            goal=f"Answer the review's questions on {world.topic} for {world.population} from the sources, "
            "each answer cited, with a reference list that resolves to the bibliography.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (SUMMARY, "markdown", "one section per question: the answer and its citations", 0.6),
                (REFERENCES, "json", "the works the answers rest on, one entry per work", 0.4),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.topic", "the review's topic", InformationLevel.STATED, world.topic)
        composition.fact("questions.list", "the review's questions", found, world.asked[0], location=QUESTIONS)
        composition.fact("protocol.rules", "how the review weighs sources", found, world.population, location=PROTOCOL)
        composition.fact("sources.bibliography", "the citation keys", found, "@article", location=BIBLIOGRAPHY)
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    return f"""`sources/` holds the sources of a literature review on {world.topic} (Markdown notes, web pages,
plain-text abstracts and notices), `{BIBLIOGRAPHY}` their bibliography, `{PROTOCOL}` the review protocol and
`{QUESTIONS}` the questions. Answer each question from the sources as the protocol says.

1. `{SUMMARY}`: one section per question, headed `## Q<n>` (the question's number), holding one line
   `Answer: <number>` (the value in the question's unit, as the governing source reports it, after any
   correction) and the citations the answer rests on as `[@key]` (several as `[@key1; @key2]`), with keys
   of `{BIBLIOGRAPHY}`. Never cite a retracted article.
2. `{REFERENCES}`: `{{"references": [{{"key": "<bibtex key>", "doi": "<doi>", "title": "<title>"}}, ...]}}` —
   exactly the works the answers rest on, each once, under the key the protocol says.
"""


def cite_check(kind: str, world: World, **args: Any) -> CheckSpec:
    params = {"kind": kind, "summary": SUMMARY, "references": REFERENCES, "questions": len(world.asked), **args}
    return CheckSpec(check="python", params={"source": CHECK_SOURCE, "function": "check", "args": params})


def keys_of(world: World, key: str) -> list[str]:
    return [key, *(d for c, d in world.duplicates if c == key)]


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    truth = answers(world)
    facts = ("questions.list", "protocol.rules")
    retracted = sorted(k for key in world.retracted for k in keys_of(world, key))
    outside = sorted(s.key for s in world.sources if s.population != world.population)
    result: list[Item] = []
    for n, metric in enumerate(world.asked, 1):
        value, key = truth[metric]
        linked = tuple(p for p in patterns if metric in world.tags.get(p, set()))
        forbidden = sorted({*retracted, *outside})
        result.append(
            Item(
                f"summary.q{n}",
                f"Q{n} ({metric}) is answered with the governing source's value, citing that source.",
                SUMMARY,
                cite_check(
                    "answer",
                    world,
                    question=n,
                    value=value,
                    tolerance=TOLERANCE,
                    keys=keys_of(world, key),
                    forbidden=forbidden,
                ),
                {"value": value, "key": key},
                tuple(f for p in linked for f in design.facts_of(p)) or facts,
                "The claims on the metric from in-scope, unretracted sources, ranked by the protocol, "
                "with the errata applied.",
                patterns=linked,
            )
        )
    bibliography = sorted({s.key for s in world.sources} | {d for _, d in world.duplicates})
    retraction = ("claim_without_receipt",) if "claim_without_receipt" in patterns else ()
    checked = {p for item in result for p in item.patterns} | {*retraction, "cross_deliverable_agreement"}
    quiet = tuple(p for p in patterns if p not in checked)
    result.append(
        Item(
            "summary.citations",
            "Every question section cites, and every cited key is in the bibliography; no retracted article is cited.",
            SUMMARY,
            cite_check("citations", world, bibliography=bibliography, forbidden=retracted),
            len(world.asked),
            ("sources.bibliography",),
            "The keys of the bibliography.",
            patterns=(*retraction, *quiet),
        )
    )
    expected = sorted({key for _, key in truth.values()})
    result.append(
        Item(
            "references.keys",
            "The reference list holds exactly the works the answers rest on, each once, under its first key.",
            REFERENCES,
            cite_check("references", world, expected=expected),
            expected,
            ("sources.bibliography", "protocol.rules"),
            "The governing source of each question, under the key of its first bibliography entry.",
            patterns=("ambiguous_identifier",) if "ambiguous_identifier" in patterns else (),
        )
    )
    if retracted or outside:
        result.append(
            Item(
                "references.excluded",
                "Neither deliverable cites a retracted or out-of-scope study.",
                REFERENCES,
                cite_check("excluded", world, forbidden=sorted({*retracted, *outside})),
                sorted({*retracted, *outside}),
                ("protocol.rules",),
                "The retraction notices and the protocol's scope.",
                patterns=tuple(p for p in ("claim_without_receipt", "scope_distractor") if p in patterns),
            )
        )
    level = patterns.get("cross_deliverable_agreement", 0)
    if level:
        dois = {s.key: s.doi.lower() for s in world.sources}
        result.append(
            Item(
                "references.agree",
                "The reference list agrees with the summary's citations.",
                REFERENCES,
                cite_check("agreement", world, level=level, dois=dois),
                level,
                ("sources.bibliography",),
                "The summary's cited keys and the bibliography's DOIs.",
                patterns=("cross_deliverable_agreement",),
            )
        )
    return result


KIT = ResearchKit()

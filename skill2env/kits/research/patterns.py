"""Pattern transformers of the research kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but on a
metric no question asks about, so the obvious reading happens to be right): likely at intensity 1,
less so at 2, never at 3. Trap sources are by authors whose keys sort before the genuine ones, so a
reader that trusts the first claim it meets takes the trap's value.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from skill2env.kits.research.world import EARLY, Notice, Source, World
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.75, 2: 0.4, 3: 0.0}
PROTOCOL = "protocol.md"
BIBLIOGRAPHY = "sources/references.bib"
NOTICES = "sources/notices/"
SUPPLEMENTS = "sources/supplements/"
OUT_OF_SCOPE = ("laboratory mice", "children aged 8-12", "adolescents aged 13-17")


def targets(world: World, level: int, rng: random.Random, pattern: str) -> list[str]:
    """The metrics the trap lies on: a spare one when benign, one asked (two at intensity 3) otherwise."""
    if rng.random() < BENIGN[level]:
        return [rng.choice(world.spare())]
    free = [m for m in world.asked if not any(m in tagged for tagged in world.tags.values())] or world.asked
    chosen = rng.sample(free, min(len(free), 2 if level == 3 else 1))
    for metric in chosen:
        world.tag(pattern, metric)
    return chosen


def claim_without_receipt(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "claim_without_receipt"):
        genuine = world.genuine(metric)
        retracted = world.add_source(
            EARLY,
            n=genuine.n + world.rng.randint(50, 300),
            claims={metric: world.value(metric, world.claims_of(metric))},
        )
        world.retracted.add(retracted.key)
        names, fmt = {1: ("key", "txt"), 2: ("title", "html"), 3: ("doi", "md")}[level]
        date = f"{retracted.year + 1}-{world.rng.randint(1, 12):02d}-{world.rng.randint(1, 28):02d}"
        world.notices.append(Notice("retraction", date, retracted.key, names, fmt))
        design.plant("claim_without_receipt", f"retraction.{retracted.key}", "a study was retracted",
                     "retracted", NOTICES)  # fmt: skip
    design.forms["claim_without_receipt"] = {
        1: "A retracted study (a notice naming its key) claims a value that disagrees with the others.",
        2: "As level 1, but the notice is a web page naming the study by its title only.",
        3: "Two questions each have a retracted study, the notice naming it by DOI only.",
    }[level]


def retroactive_correction(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "retroactive_correction"):
        source = world.genuine(metric)
        year = source.year + 1
        first = world.value(metric, world.claims_of(metric))
        if level == 1:
            source.erratum_inline.append((f"{year}-03-{world.rng.randint(10, 28)}", metric, first))
            where = source.path
        else:
            world.notices.append(Notice("erratum", f"{year}-02-{world.rng.randint(10, 28)}", source.key, "title",
                                        "md", metric, first))  # fmt: skip
            where = NOTICES
        if level == 3:
            second = world.value(metric, [*world.claims_of(metric), first])
            world.notices.append(Notice("erratum", f"{year + 1}-01-{world.rng.randint(10, 28)}", source.key, "doi",
                                        "txt", metric, second))  # fmt: skip
        design.plant("retroactive_correction", f"erratum.{source.key}", "an erratum corrects a reported value",
                     source.title, where)  # fmt: skip
    design.forms["retroactive_correction"] = {
        1: "A study's reported value was corrected by an erratum appended to its own note.",
        2: "The erratum is a separate notice naming the study by its title.",
        3: "Two questions' studies were corrected, one of them twice (the later erratum, naming the DOI, governs).",
    }[level]


def authority_resolution(world: World, level: int, rng: random.Random, design: Design) -> None:
    for n, metric in enumerate(targets(world, level, rng, "authority_resolution")):
        genuine = world.genuine(metric)
        other = world.value(metric, world.claims_of(metric))
        if level >= 2 and n == 0:
            genuine.design = "meta-analysis"
            genuine.title = world.unique(f"{world.topic} and {metric}: a systematic review and meta-analysis")
            genuine.n = world.rng.randint(300, 900)
            world.add_source(EARLY, n=genuine.n + world.rng.randint(100, 500), claims={metric: other})
        else:
            world.add_source(EARLY, n=max(20, genuine.n // 3), design="cohort study", claims={metric: other})
    design.plant("authority_resolution", "protocol.precedence", "the protocol ranks conflicting sources",
                 "meta-analysis", PROTOCOL)  # fmt: skip
    design.forms["authority_resolution"] = {
        1: "Two studies disagree; the review protocol says the larger sample governs.",
        2: "A large trial disagrees with a meta-analysis; the protocol ranks the meta-analysis first.",
        3: "Two questions have conflicting studies, one against a meta-analysis, one against a larger trial.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    for n, metric in enumerate(targets(world, level, rng, "scope_distractor")):
        genuine = world.genuine(metric)
        population = OUT_OF_SCOPE[(n + rng.randint(0, 2)) % len(OUT_OF_SCOPE)]
        title = (
            f"Effects of {world.topic} in {population}: a randomised controlled trial"
            if level == 1
            else f"Effects of {world.topic}: a randomised controlled trial"
        )
        world.add_source(EARLY, n=genuine.n + world.rng.randint(50, 300), population=population, title=title,
                         claims={metric: world.value(metric, world.claims_of(metric))})  # fmt: skip
    design.plant("scope_distractor", "protocol.scope", "the review covers one population", world.population, PROTOCOL)
    design.forms["scope_distractor"] = {
        1: "A study of another population (named in its title) reports a different value.",
        2: "As level 1, but only the study's population line says it is out of scope.",
        3: "Two questions each have an out-of-scope study.",
    }[level]


def ambiguous_identifier(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "ambiguous_identifier"):
        source = world.genuine(metric)
        duplicate = f"{source.author}_{source.year}_{world.topic.split()[0].replace('-', '')}"
        world.duplicates.append((source.key, duplicate))
        world.dup_form[duplicate] = level
        if metric in world.asked:
            source.header_key = duplicate
        design.plant("ambiguous_identifier", f"duplicate.{duplicate}", "one work is in the bibliography twice",
                     duplicate, BIBLIOGRAPHY)  # fmt: skip
    design.forms["ambiguous_identifier"] = {
        1: "The bibliography lists a work twice under two keys (same DOI); its note uses the second key.",
        2: "As level 1, with the DOI spelt differently (case, doi.org prefix).",
        3: "Two works are listed twice, the duplicate's DOI only in its url field.",
    }[level]


def cross_deliverable_agreement(world: World, level: int, rng: random.Random, design: Design) -> None:
    design.plant("cross_deliverable_agreement", "deliverables.agree", "the reference list matches the summary",
                 None, "")  # fmt: skip
    design.forms["cross_deliverable_agreement"] = {
        1: "Every key the summary cites is in the reference list.",
        2: "The reference list holds exactly the keys the summary cites, each once.",
        3: "As level 2, and each reference's DOI is the bibliography's.",
    }[level]


_FIRST: dict[str, Transformer] = {
    "retroactive_correction": retroactive_correction,
    "authority_resolution": authority_resolution,
    "claim_without_receipt": claim_without_receipt,
    "scope_distractor": scope_distractor,
    "ambiguous_identifier": ambiguous_identifier,
}


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "stale_derived_artifact"):
        genuine = world.genuine(metric)
        year, key = genuine.year - 1, f"{genuine.author.lower()}{genuine.year - 1}"
        while any(s.key == key for s in world.sources):
            key += "p"
        preprint = Source(key, genuine.author, year, f"{genuine.title} (preprint)",
                          "OSF Preprints", f"10.31219/osf.io/{world.rng.getrandbits(24):06x}", "preprint", genuine.n,
                          genuine.population, {metric: world.value(metric, world.claims_of(metric))},
                          world.rng.choice(("md", "html", "txt")))  # fmt: skip
        preprint.header_key = key
        preprint.published = genuine.doi if level == 1 else ""
        world.sources.append(preprint)
        design.plant("stale_derived_artifact", f"preprint.{key}", "an earlier preprint of a published study",
                     preprint.title, preprint.path)  # fmt: skip
    design.forms["stale_derived_artifact"] = {
        1: "A preprint of a published study (it names the published DOI) reports an earlier value.",
        2: "As level 1, but the preprint does not name its published version (same study name).",
        3: "Two questions' studies have an earlier preprint with another value.",
    }[level]


def units_hidden_in_header(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "units_hidden_in_header"):
        source = world.genuine(metric)
        source.scale = 10 if level == 1 else 100
        design.plant("units_hidden_in_header", f"scale.{source.key}", "a source reports scaled values",
                     source.scale, source.path)  # fmt: skip
    design.forms["units_hidden_in_header"] = {
        1: "A source reports its findings multiplied by 10, said only in the findings' heading.",
        2: "As level 1, multiplied by 100.",
        3: "Two questions' sources report values multiplied by 100.",
    }[level]


def footnote_qualification(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "footnote_qualification"):
        source = world.genuine(metric)
        source.footnotes[metric] = world.value(metric, world.claims_of(metric))
    design.plant("footnote_qualification", "protocol.itt", "the review uses intention-to-treat estimates",
                 "intention-to-treat", PROTOCOL)  # fmt: skip
    design.forms["footnote_qualification"] = {
        1: "A source's headline value is per-protocol; a footnote below it gives the intention-to-treat estimate.",
        2: "As level 1, the footnote at the end of the source.",
        3: "Two questions' sources have such a footnote.",
    }[level]
    world.footnote_level = level


def distributed_evidence(world: World, level: int, rng: random.Random, design: Design) -> None:
    for metric in targets(world, level, rng, "distributed_evidence"):
        source = world.genuine(metric)
        source.supplement.append(metric)
        source.footnotes.pop(metric, None)
        design.plant("distributed_evidence", f"supplement.{source.key}", "a result is only in a supplement",
                     metric, SUPPLEMENTS)  # fmt: skip
    world.supplement_level = level
    design.forms["distributed_evidence"] = {
        1: "A source's result is only in a supplementary table its note points to.",
        2: "As level 1, the note saying only 'see the supplementary material'.",
        3: "Two questions' results are only in supplementary tables.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    **_FIRST,
    "stale_derived_artifact": stale_derived_artifact,
    "units_hidden_in_header": units_hidden_in_header,
    "footnote_qualification": footnote_qualification,
    "distributed_evidence": distributed_evidence,
    "cross_deliverable_agreement": cross_deliverable_agreement,
}
PATTERNS = tuple(TRANSFORMERS)

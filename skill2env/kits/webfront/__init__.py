"""Kit: web front-end audit and repair.

A small static site: pages, images (PNG files of known pixel sizes), a stylesheet with design tokens
as custom properties, the design tokens' JSON and changelog, the components and the build's chunk
stats, a bundle report and a Lighthouse run, and the team's front-end conventions; with traps (an
image re-exported at another size under a stale tag, high-density images shown at half their pixels,
a badge before the hero so the LCP image is not the first, an LCP named only by selector or that is
text, token colours spelt in capitals or as rgb(), spacings in rem under a 62.5 % root, renamed and
twice-renamed tokens, a bundle report from an older build, links into another application's paths,
folder links, a dead anchor, a look-alike stylesheet the pages do not link) → the pages and the
stylesheet fixed in place and an audit of the LCP elements, the chunks over budget and the broken links.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item
from skill2env.kits.webfront.docs import render_world
from skill2env.kits.webfront.patterns import (
    BUDGET,
    BUNDLE_REPORT,
    CONVENTIONS,
    LIGHTHOUSE,
    PATTERNS,
    STATS,
    TOKENS,
    TRANSFORMERS,
)
from skill2env.kits.webfront.world import (
    SITE_CSS,
    World,
    expected_broken_links,
    expected_css,
    expected_lcp,
    expected_loading,
    expected_over_budget,
    expected_sizes,
    generate,
)
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

AUDIT = "output/audit.json"
PAGES = "index.html"
CHECK_SOURCE = (Path(__file__).parent / "webcheck.py").read_text(encoding="utf-8")


class WebFrontKit(Kit):
    name = "webfront"
    title = "Web front-end audit and repair"
    formats = ("html", "css", "png", "json", "jsx", "tsx", "markdown")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.WEB_FRONTEND: 1.5,
        Trait.MEDIA: 0.1,
        Trait.STRUCTURED_DATA: 0.1,
        Trait.CODE_REPOSITORY: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.WEB_FRONTEND: 0.4}
    """More than a mention of a page: components, stylesheets, web vitals, accessibility."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.WEB_FRONTEND: "conditional_branch_on_data",
        Trait.MEDIA: "skill_checklist_coverage",
        Trait.STRUCTURED_DATA: "stale_derived_artifact",
        Trait.CODE_REPOSITORY: "misleading_file_name",
        Trait.DOCUMENTS: "scope_distractor",
        Trait.VERSION_HISTORY: "rename_propagation",
    }
    starters = (
        "conditional_branch_on_data",
        "skill_checklist_coverage",
        "units_hidden_in_header",
        "stale_derived_artifact",
        "scope_distractor",
    )
    solver_module = "skill2env.kits.webfront.solver"
    naive_module = "skill2env.kits.webfront.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        composition = Composition(
            title=f"Audit and fix the {world.site} site",
            goal=f"Fix the {world.site} site's pages and stylesheet by the team's front-end conventions (image "
            "dimensions, lazy loading around the LCP image, design tokens) and report the LCP elements, the "
            "chunks over budget and the broken links.",
            body=instruction_body(world),
            workspace=render_world(world),
            facts=[],
            challenges=[],
            deliverables=[
                (PAGES, "html", "index.html and the other pages at the top of the workspace, fixed in place", 0.35),
                (SITE_CSS, "css", "the stylesheet the pages link, fixed in place", 0.3),
                (AUDIT, "json", "the LCP element of each page, the chunks over budget and the broken links", 0.35),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("goal.site", "the site to fix", InformationLevel.STATED, world.site)
        composition.fact("conventions.rules", "the team's front-end rules", found, "conventions", location=CONVENTIONS)
        composition.fact("tokens.values", "the design tokens", found, "color", location=TOKENS)
        composition.fact("lighthouse.run", "the latest Lighthouse run", found, "largest-contentful-paint",
                         location=LIGHTHOUSE)  # fmt: skip
        composition.fact("build.stats", "the build's chunk sizes", found, "chunks", location=STATS)
        composition.fact("build.budget", "the chunk budget", found, "max_chunk_bytes", location=BUDGET)
        composition.fact("bundle.report", "the bundle analyser's report", found, "over_budget",
                         location=BUNDLE_REPORT)  # fmt: skip
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def instruction_body(world: World) -> str:
    pages = ", ".join(f"`{p.path}`" for p in world.pages)
    return f"""The {world.site} site is a small static front end: the pages {pages}, their images under `img/`,
the stylesheet they link, the design tokens in `{TOKENS}`, the components under `src/`, the last build's chunk
figures in `{STATS}` with the budget in `{BUDGET}`, and the reports of the last performance run under `reports/`.
`{CONVENTIONS}` holds the team's front-end rules, which govern. No browser or Node is installed: read the files.

1. Fix the pages in place: every image with its `alt` and its `width` / `height` by the conventions, the images
   of `<main>` lazy-loaded except each page's LCP image, which carries `fetchpriority="high"`. Keep every
   image, link and section where it is.
2. Fix the stylesheet the pages link, in place: colours and spacings through the design tokens (`var(...)`),
   every other declaration and the `:root` tokens as they are.
3. `{AUDIT}`: `{{"lcp": {{"<page>": "<src of its LCP image, or null when the LCP element is not an image>"}},
   "over_budget": ["<source file of each chunk over its budget>"], "broken_links": ["<page> -> <href>"]}}`, the
   broken links being the links of `<main>` (each `href` exactly as written) that point at no file of this site or at
   no anchor of their target page.
"""


def webcheck(**params: Any) -> CheckSpec:
    return CheckSpec(check="python", params={"source": CHECK_SOURCE, "function": "check", "args": params})


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    def of(*names: str) -> tuple[str, ...]:
        return tuple(p for p in names if p in patterns)

    def facts(*names: str, base: str) -> tuple[str, ...]:
        return (base, *(f for p in of(*names) for f in design.facts_of(p)))

    sizes, loading, rules = expected_sizes(world), expected_loading(world), expected_css(world)
    lcp, over, broken = expected_lcp(world), expected_over_budget(world), expected_broken_links(world)
    return [
        Item("pages.images", "Every image of every page has alt text and its CSS pixel size as width and height.",
             PAGES, webcheck(kind="images", pages=sizes, paths=sorted(sizes)), sizes,
             facts("skill_checklist_coverage", base="conventions.rules"),
             "The size read from each image file, halved for @2x files.", of("skill_checklist_coverage")),
        Item("pages.loading", "The images of <main> are lazy-loaded except the LCP image, which has high priority.",
             PAGES, webcheck(kind="loading", pages=loading, paths=sorted(loading)), loading,
             facts("conditional_branch_on_data", base="lighthouse.run"),
             "The Lighthouse run's LCP element per page, matched to its image by src or selector.",
             of("conditional_branch_on_data")),
        Item("css.tokens", "The linked stylesheet uses the current tokens for every token value and keeps the rest.",
             SITE_CSS, webcheck(kind="css", path=SITE_CSS, rules=rules), rules,
             facts("units_hidden_in_header", "rename_propagation", "misleading_file_name", base="tokens.values"),
             "Each colour and spacing compared with the tokens as values (hex case, rgb(), rem under the root "
             "font size), renamed tokens followed to their current names, in the stylesheet the pages link.",
             of("units_hidden_in_header", "rename_propagation", "misleading_file_name")),
        Item("audit.lcp", "The audit names each page's LCP image (null for a text LCP).", AUDIT,
             checks.json_value(AUDIT, "$.lcp", lcp), lcp, facts("conditional_branch_on_data", base="lighthouse.run"),
             "The Lighthouse run's LCP element per page.", of("conditional_branch_on_data")),
        Item("audit.over_budget", "The audit lists exactly the chunks over their budget in the current build.", AUDIT,
             checks.json_value(AUDIT, "$.over_budget", over, unordered=True), over,
             facts("stale_derived_artifact", base="build.stats"),
             "Each chunk's bytes in the build's stats against the budget or its override.",
             of("stale_derived_artifact")),
        Item("audit.broken_links", "The audit lists exactly the broken links of the pages.", AUDIT,
             checks.json_value(AUDIT, "$.broken_links", broken, unordered=True), broken,
             facts("scope_distractor", base="conventions.rules"),
             "Each internal link resolved to a file of the site and an anchor of its target page.",
             of("scope_distractor")),
    ]  # fmt: skip


KIT = WebFrontKit()

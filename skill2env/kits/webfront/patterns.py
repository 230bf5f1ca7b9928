"""Pattern transformers of the web front-end kit: each plants one designed trap at intensity 1-3.

Every transformer first draws whether its trap is benign this time (the trap is there, but the
obvious reading happens to be right: a replaced image exported at its old size, a badge placed after
the hero, a stale report that names the same module): likely at intensity 1, less so at 2, never at 3.
A harmful trap is recorded in `world.harmful`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from skill2env.kits.spec import Design, draw_benign
from skill2env.kits.webfront.world import (
    BLOG,
    DECOY_CSS,
    OUT_OF_SCOPE,
    Image,
    World,
    budget_of,
    expected_over_budget,
    new_decl,
)

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN = {1: 0.9, 2: 0.4, 3: 0.0}
CONVENTIONS = "CONVENTIONS.md"
TOKENS = "design/tokens.json"
TOKENS_CHANGELOG = "design/CHANGELOG.md"
LIGHTHOUSE = "reports/lighthouse.json"
BUNDLE_REPORT = "reports/bundle-report.json"
STATS = "dist/stats.json"
BUDGET = "perf-budget.json"


def benign(world: World, pattern: str, level: int, rng: random.Random) -> bool:
    return draw_benign(world.levels, world.harmful, pattern, level, rng, BENIGN)


def skill_checklist_coverage(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "skill_checklist_coverage", level, rng)
    photos = [i for p in world.pages for i in p.images[2:]]
    stale = rng.sample(photos, 2 if level == 3 else 1)
    for image in stale:
        old = (image.width, image.height)
        if not harmless:
            image.width, image.height = rng.choice(((1024, 683), (720, 540), (900, 900)))
        image.written = old
    if level >= 2:
        retina = [i for i in photos if i not in stale]
        for n, image in enumerate(rng.sample(retina, 2 if level == 3 else 1)):
            image.src = image.src.replace(".png", "@2x.png")
            image.width, image.height = image.width * 2, image.height * 2
            if not harmless:
                image.written = (image.width, image.height) if level == 3 and n == 1 else None
            else:
                image.src = image.src.replace("@2x", "-large")
                image.width, image.height = image.width // 2, image.height // 2
    design.plant("skill_checklist_coverage", "images.sizes", "the images' pixel sizes are in the files themselves",
                 "img/", "img/")  # fmt: skip
    design.forms["skill_checklist_coverage"] = {
        1: "Beside images without alt text or dimensions, one image was re-exported at another size and its tag "
        "still carries the old width and height.",
        2: "As level 1, and a high-density (@2x) image whose width and height must be half its pixels lacks them.",
        3: "Two stale tags and two @2x images, one of which carries its full pixel size.",
    }[level]


def conditional_branch_on_data(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "conditional_branch_on_data", level, rng)
    chosen = rng.sample(world.pages, 2 if level >= 2 else 1)
    for n, page in enumerate(chosen):
        stem = page.path.removesuffix(".html")
        badge = Image(f"img/{stem}-badge.png", 96, 96, True, "award badge", (96, 96), ident=f"{stem}-badge")
        hero = page.images.index(next(i for i in page.images if i.src == page.lcp))
        page.images.insert(hero + 1 if harmless else hero, badge)
        if not harmless:
            page.lcp_by_selector = level >= 2
            if level == 3 and n == 1:
                page.lcp = None
    design.plant("conditional_branch_on_data", "lighthouse.lcp", "the performance run names each page's LCP element",
                 "largest-contentful-paint", LIGHTHOUSE)  # fmt: skip
    design.forms["conditional_branch_on_data"] = {
        1: "On one page a small badge precedes the hero in <main>: the LCP image (named in the Lighthouse report) "
        "is not the first image, and the first one may be lazy-loaded.",
        2: "As level 1 on two pages, the report naming the LCP element by its selector only.",
        3: "As level 2, and one page's LCP element is its heading: every image of its <main> is lazy-loaded.",
    }[level]


def rgb(value: str) -> str:
    return f"rgb({int(value[1:3], 16)}, {int(value[3:5], 16)}, {int(value[5:7], 16)})"


def units_hidden_in_header(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "units_hidden_in_header", level, rng)
    colors = [t for t in world.tokens if t.startswith("--color-")]
    selectors = rng.sample([".hero", ".card", ".btn", ".btn:hover", "footer", "h1", "h2", ".site-header", "body"], 6)
    for n, token in enumerate(rng.sample(colors, 2)):
        value = world.tokens[token]
        if harmless:
            off = f"#{value[1:6]}{(int(value[6], 16) + 1) % 16:x}{value[7:]}"
            new_decl(world, selectors[n], "border-color", off.upper(), off.upper())
        else:
            new_decl(world, selectors[n], "border-color", value.upper(), f"var({token})")
    if level >= 2:
        for n, token in enumerate(rng.sample(colors, 2)):
            value = world.tokens[token]
            written = rgb(value) if not harmless else rgb(f"#{value[1:6]}{(int(value[6], 16) + 1) % 16:x}{value[7:]}")
            new_decl(world, selectors[2 + n], "background-color", written,
                     f"var({token})" if not harmless else written)  # fmt: skip
    if level == 3:
        world.root_font = "62.5%"
        rems = [("--space-4", "1.6rem"), ("--space-5", "2.4rem"), ("--space-6", "3.2rem"), ("--space-2", "0.8rem")]
        for n, (token, rem) in enumerate(rng.sample(rems, 2)):
            new_decl(world, selectors[4 + n], "margin", rem, f"var({token})")
    design.plant("units_hidden_in_header", "css.tokens", "the design tokens hold the site's colours and spacings",
                 "color", TOKENS)  # fmt: skip
    design.forms["units_hidden_in_header"] = {
        1: "Two hard-coded colours spell a token's value in capitals: they must become the token too.",
        2: "As level 1, and two colours written as rgb() triples.",
        3: "As level 2, and spacings written in rem under a root font size of 62.5% (1rem = 10px).",
    }[level]


def rename_propagation(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "rename_propagation", level, rng)
    roles = rng.sample([t for t in world.tokens if t.startswith("--color-")], 3)
    old = {t: t.replace("--color-", "--brand-") for t in roles}
    world.renamed[old[roles[0]]] = roles[0]
    chained = old[roles[1]].replace("--brand-", "--ui-")
    if level >= 2:
        world.renamed[chained] = old[roles[1]]
        world.renamed[old[roles[1]]] = roles[1]
    if level == 3:
        world.changelog_renames[old[roles[2]]] = roles[2]
    if not harmless:
        uses = [(roles[0], old[roles[0]])]
        if level >= 2:
            uses.append((roles[1], chained))
        if level == 3:
            uses.append((roles[2], old[roles[2]]))
        for selector, (token, name) in zip(rng.sample([".card", ".btn", "footer", "h2", ".hero"], len(uses)), uses,
                                           strict=False):  # fmt: skip
            new_decl(world, selector, "outline-color", f"var({name})", f"var({token})")
    design.plant("rename_propagation", "tokens.renamed", "design tokens were renamed", "renamed", TOKENS)
    design.forms["rename_propagation"] = {
        1: "A colour token was renamed; the stylesheet still uses its old name, which no longer resolves.",
        2: "As level 1, and a token renamed twice (the old name maps to a name that was renamed again).",
        3: "As level 2, and a rename recorded only in the design system's changelog.",
    }[level]


def stale_derived_artifact(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "stale_derived_artifact", level, rng)
    if level == 3:
        others = [m for m in world.modules[3:] if m.size <= budget_of(world, m)]
        rng.choice(others).size = rng.randint(52_000, 58_000)
    world.report_build = None if level >= 2 else f"{rng.getrandbits(28):07x}"
    world.report_at = world.built_at - timedelta(days=rng.randint(2, 9), hours=rng.randint(1, 5))
    current = expected_over_budget(world)
    if harmless:
        world.report_over = current
    else:
        fixed = rng.choice([m for m in world.modules[3:] if m.source not in current])
        world.report_over = [fixed.source]
    design.plant("stale_derived_artifact", "bundle.report", "the bundle report was generated from an older build",
                 "generated", BUNDLE_REPORT)  # fmt: skip
    design.forms["stale_derived_artifact"] = {
        1: "The bundle report predates the current build (another build id) and blames a module that has since "
        "shrunk; the build's own stats show which module is over budget.",
        2: "As level 1, the report carrying no build id: only its time stamp, earlier than the build's, shows it.",
        3: "As level 2, and two modules over budget now.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "scope_distractor", level, rng)
    pages = rng.sample(world.pages, 3)
    path = f"{OUT_OF_SCOPE}{rng.choice(('gift-cards', 'orders', 'basket'))}"
    href = f"https://www.{world.slug}.example{path}" if harmless else path
    pages[0].links.append((href, "shop"))
    if level >= 2:
        world.blog = True
        folder = BLOG.removesuffix("index.html")
        pages[1].links.append((BLOG if harmless else folder, "journal"))
        pages[1].links.append((f"{BLOG if harmless else '/' + folder}#posts", "latest posts"))
    if level == 3:
        target = rng.choice([p for p in world.pages if p is not pages[2]])
        good, missing = target.sections[2][0], target.sections[1][0].replace("-intro", "-history")
        pages[2].links.append((f"{target.path}#{good}", "read on"))
        pages[2].links.append((f"{target.path}#{missing}", "our history"))
    design.plant("scope_distractor", "conventions.shop", "another application serves /shop/", OUT_OF_SCOPE,
                 CONVENTIONS)  # fmt: skip
    design.forms["scope_distractor"] = {
        1: "A page links into /shop/, which the conventions say another application serves: not a broken link.",
        2: "As level 1, and links to a folder (blog/) whose index page exists.",
        3: "As level 2, and a link to an anchor that no longer exists on its target page.",
    }[level]


def misleading_file_name(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(world, "misleading_file_name", level, rng)
    world.decoy_css = DECOY_CSS if not harmless else "styles/legacy/site-2019.css"
    world.decoy_banner = "v2: the current stylesheet" if level >= 2 else "stylesheet"
    world.decoy_template = level == 3
    design.plant("misleading_file_name", "pages.stylesheet", "the pages link their stylesheet", "stylesheet",
                 "index.html")  # fmt: skip
    design.forms["misleading_file_name"] = {
        1: f"An older stylesheet {DECOY_CSS} sits beside the one the pages link: fixes belong in the linked one.",
        2: "As level 1, its banner calling it the current stylesheet.",
        3: "As level 2, and an unused page template still links it.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "skill_checklist_coverage": skill_checklist_coverage,
    "conditional_branch_on_data": conditional_branch_on_data,
    "units_hidden_in_header": units_hidden_in_header,
    "rename_propagation": rename_propagation,
    "stale_derived_artifact": stale_derived_artifact,
    "scope_distractor": scope_distractor,
    "misleading_file_name": misleading_file_name,
}
PATTERNS = tuple(TRANSFORMERS)

"""The web front-end world: a small static site (pages, images, one stylesheet, design tokens, a
built bundle and the reports of the last performance run).

What the pages and the stylesheet show is derived from the world's objects in one place (`docs.py`):
each image's pixel size and the attributes written on its tag, each page's links and anchors, each
CSS declaration as written and the value it must end up as. The patterns change what is written
(stale dimensions, an LCP image that is not the first one, colours spelt another way, renamed tokens,
a stale bundle report, out-of-scope links, a look-alike stylesheet). The `expected_*` functions compute
every result the rubric checks from the world itself.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from skill2env.kits.spec import seeded

SITES = (
    ("Harbour Bakery", "bakery", ("menu", "Menu"), ("catering", "Catering")),
    ("Northside Cycles", "cycles", ("bikes", "Bikes"), ("repairs", "Repairs")),
    ("Lumen Studio", "studio", ("work", "Work"), ("process", "Process")),
    ("Fernhill Nursery", "nursery", ("plants", "Plants"), ("courses", "Courses")),
)
COLOR_ROLES = ("primary", "accent", "text", "muted", "surface", "border")
SPACE_STEPS = (4, 8, 12, 16, 24, 32)
OUT_OF_SCOPE = "/shop/"
"""Paths another application serves on the same domain (the conventions say so)."""
SITE_CSS = "styles/site.css"
DECOY_CSS = "styles/main.css"
BLOG = "blog/index.html"


@dataclass
class Image:
    src: str
    width: int
    height: int
    in_main: bool
    alt: str | None
    written: tuple[int, int] | None
    """The width and height attributes on the tag (None: not written)."""
    ident: str = ""

    @property
    def retina(self) -> bool:
        return "@2x" in self.src

    @property
    def css_size(self) -> tuple[int, int]:
        """The width and height the tag must carry: CSS pixels, half the pixels of a high-density file."""
        return (self.width // 2, self.height // 2) if self.retina else (self.width, self.height)


@dataclass
class Page:
    path: str
    title: str
    sections: list[tuple[str, str]]
    """(id, heading) of each section of <main>, in order."""
    images: list[Image]
    """Header logo first, then <main>'s images in document order."""
    links: list[tuple[str, str]]
    """(href, text) of the links in <main>, in order."""
    lcp: str | None = None
    """The src of the page's largest-contentful-paint image (None: the LCP element is text)."""
    lcp_by_selector: bool = False


@dataclass
class Decl:
    selector: str
    prop: str
    written: str
    expected: str
    """The value the fixed stylesheet must hold (a `var(--token)` or the literal kept as is)."""


@dataclass
class Module:
    source: str
    chunk: str
    size: int


@dataclass
class World:
    seed: int
    site: str
    slug: str
    pages: list[Page]
    tokens: dict[str, str]
    """Current CSS custom property name → value."""
    decls: list[Decl]
    modules: list[Module]
    budget: int
    overrides: dict[str, int]
    build: str
    built_at: datetime
    renamed: dict[str, str] = field(default_factory=dict)
    changelog_renames: dict[str, str] = field(default_factory=dict)
    root_font: str = "100%"
    report_build: str | None = None
    report_at: datetime | None = None
    report_over: list[str] = field(default_factory=list)
    decoy_css: str = ""
    """The path of an older look-alike stylesheet the pages do not link ('' when there is none)."""
    decoy_banner: str = ""
    decoy_template: bool = False
    blog: bool = False
    levels: dict[str, int] = field(default_factory=dict)
    harmful: set[str] = field(default_factory=set)

    def page(self, path: str) -> Page:
        return next(p for p in self.pages if p.path == path)

    def main_images(self, page: Page) -> list[Image]:
        return [i for i in page.images if i.in_main]


def hexcolor(rng: random.Random, used: set[str]) -> str:
    while True:
        value = "#" + "".join(f"{rng.randint(16, 235):02x}" for _ in range(3))
        if value not in used:
            used.add(value)
            return value


def generate(seed: int, salt: int) -> World:
    rng = seeded("webfront", seed, salt)
    site, slug, (second, second_title), (third, third_title) = SITES[seed % len(SITES)]
    used: set[str] = set()
    tokens = {f"--color-{role}": hexcolor(rng, used) for role in COLOR_ROLES}
    tokens |= {f"--space-{n + 1}": f"{step}px" for n, step in enumerate(SPACE_STEPS)}
    names = [("index.html", "Home"), (f"{second}.html", second_title), (f"{third}.html", third_title),
             ("contact.html", "Contact")]  # fmt: skip
    pages = []
    for n, (path, title) in enumerate(names):
        stem = path.removesuffix(".html")
        sections = [("top", title)] + [(f"{stem}-{k}", f"{title} {k}") for k in ("intro", "details", "more")]
        logo = Image("img/logo.png", 320, 96, False, site, (320, 96))
        hero_w, hero_h = rng.choice(((1600, 900), (1440, 810), (1200, 675)))
        images = [logo, Image(f"img/{stem}-hero.png", hero_w, hero_h, True, f"{title} at {site}", None,
                              ident=f"{stem}-hero")]  # fmt: skip
        for k in range(rng.randint(2, 3)):
            w, h = rng.choice(((800, 600), (640, 480), (960, 640), (600, 600)))
            written = (w, h) if rng.random() < 0.5 else None
            alt = f"{title} photo {k + 1}" if rng.random() < 0.6 else None
            images.append(Image(f"img/{stem}-{k + 1}.png", w, h, True, alt, written, ident=f"{stem}-photo-{k + 1}"))
        if all(i.written and i.alt is not None for i in images[1:]):
            images[2].written = None
        ahead, later = names[(n + 1) % 4], names[(n + 2) % 4]
        links = [
            (ahead[0], ahead[1]),
            (f"{later[0]}#{later[0].removesuffix('.html')}-details", "details"),
            ("https://www.example.org/", "partners"),
            (f"mailto:hello@{slug}.example", "write to us"),
        ]
        pages.append(Page(path, title, sections, images, links, lcp=images[1].src))
    broken = rng.sample(range(4), 2)
    for n in broken:
        pages[n].links.append((rng.choice(("gift-cards.html", "press.html", "jobs.html", "faq.html")), "more"))
    modules = [
        Module("src/vendor/framework.js", "assets/vendor", rng.randint(150_000, 190_000)),
        Module("src/main.js", "assets/main", rng.randint(18_000, 30_000)),
        Module("src/components/Header.jsx", "assets/header", rng.randint(6_000, 12_000)),
        Module("src/components/Carousel.jsx", "assets/carousel", rng.randint(30_000, 45_000)),
        Module("src/components/Map.tsx", "assets/map", rng.randint(30_000, 45_000)),
        Module("src/components/Reviews.jsx", "assets/reviews", rng.randint(20_000, 40_000)),
        Module("src/components/ContactForm.tsx", "assets/contact-form", rng.randint(12_000, 25_000)),
    ]
    budget = 50_000
    over = rng.choice(modules[3:6])
    over.size = rng.randint(60_000, 90_000)
    hour = rng.randint(8, 18)
    built_at = datetime(2026, rng.randint(1, 10), rng.randint(1, 27), hour, rng.randint(0, 59))
    world = World(
        seed=seed, site=site, slug=slug, pages=pages, tokens=tokens, decls=[], modules=modules, budget=budget,
        overrides={"src/vendor/framework.js": 200_000}, build=f"{rng.getrandbits(28):07x}", built_at=built_at,
    )  # fmt: skip
    world.report_build, world.report_at = world.build, built_at + timedelta(minutes=rng.randint(2, 40))
    world.report_over = expected_over_budget(world)
    world.decls = base_decls(world, rng)
    return world


SELECTORS = ("body", ".site-header", ".site-header nav a", "h1", "h2", ".hero", ".card", ".btn", ".btn:hover",
             "footer")  # fmt: skip


def base_decls(world: World, rng: random.Random) -> list[Decl]:
    """Every rule's declarations: a few token values written as literals (the obvious fix), the others
    already through `var()`, and literals that are no token (kept)."""
    colors = [t for t in world.tokens if t.startswith("--color-")]
    spaces = [t for t in world.tokens if t.startswith("--space-")]
    decls: list[Decl] = []
    for selector in SELECTORS:
        color = rng.choice(colors)
        space = rng.choice(spaces)
        decls.append(Decl(selector, "color", f"var({color})", f"var({color})"))
        decls.append(Decl(selector, "padding", f"var({space})", f"var({space})"))
        decls.append(Decl(selector, "line-height", "1.5", "1.5"))
    for decl in rng.sample([d for d in decls if d.prop in ("color", "padding")], 3):
        decl.written = world.tokens[decl.expected[4:-1]]
    radius = rng.choice(("3px", "6px", "10px"))
    decls.append(Decl(".card", "border-radius", radius, radius))
    return decls


def new_decl(world: World, selector: str, prop: str, written: str, expected: str) -> Decl:
    decl = Decl(selector, prop, written, expected)
    world.decls.append(decl)
    return decl


# -- expected results ----------------------------------------------------------------------------


def expected_sizes(world: World) -> dict[str, dict[str, list[int]]]:
    return {p.path: {i.src: list(i.css_size) for i in p.images} for p in world.pages}


def expected_loading(world: World) -> dict[str, dict[str, object]]:
    """Per page: the LCP image (None when the LCP element is text) and the <main> images to lazy-load."""
    return {
        p.path: {"lcp": p.lcp, "lazy": sorted(i.src for i in world.main_images(p) if i.src != p.lcp)}
        for p in world.pages
    }


def expected_lcp(world: World) -> dict[str, str | None]:
    return {p.path: p.lcp for p in world.pages}


def budget_of(world: World, module: Module) -> int:
    return world.overrides.get(module.source, world.budget)


def expected_over_budget(world: World) -> list[str]:
    return sorted(m.source for m in world.modules if m.size > budget_of(world, m))


def site_files(world: World) -> set[str]:
    return {p.path for p in world.pages} | ({BLOG} if world.blog else set())


def anchors(world: World, path: str) -> set[str]:
    if path == BLOG:
        return {"posts"}
    page = world.page(path)
    return {s for s, _ in page.sections} | {i.ident for i in page.images if i.ident}


def link_broken(world: World, page: Page, href: str) -> bool:
    """Whether an internal link of `page` points at no file of the site or at no anchor of its target."""
    if href.startswith(("http://", "https://", "mailto:", "tel:", OUT_OF_SCOPE)):
        return False
    target, _, fragment = href.partition("#")
    target = target.split("?")[0] or page.path
    target = target.lstrip("/")
    if target.endswith("/") or not target:
        target += "index.html"
    if target not in site_files(world):
        return True
    return bool(fragment) and fragment not in anchors(world, target)


def expected_broken_links(world: World) -> list[str]:
    return sorted(f"{p.path} -> {href}" for p in world.pages for href, _ in p.links if link_broken(world, p, href))


def expected_css(world: World) -> list[list[str]]:
    """[selector, property, value] the fixed stylesheet must hold (custom properties of :root included)."""
    rows = [[":root", name, value] for name, value in world.tokens.items()]
    rows.append(["html", "font-size", world.root_font])
    rows += [[d.selector, d.prop, d.expected] for d in world.decls]
    return rows

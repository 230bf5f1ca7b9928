"""Renderers of the web front-end world: pages, images (PNG written here), the stylesheet, design
tokens, the build's stats and the performance reports, the team's conventions."""

from __future__ import annotations

import json
import struct
import zlib

from skill2env.kits.spec import Workspace
from skill2env.kits.webfront.patterns import (
    BUDGET,
    BUNDLE_REPORT,
    CONVENTIONS,
    LIGHTHOUSE,
    STATS,
    TOKENS,
    TOKENS_CHANGELOG,
)
from skill2env.kits.webfront.world import BLOG, OUT_OF_SCOPE, SITE_CSS, Image, Page, World


def png(width: int, height: int, shade: int) -> bytes:
    """A flat greyscale PNG of the given pixel size (its header is what a careful solver reads)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = (b"\x00" + bytes([shade]) * width) * height
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def img_tag(image: Image) -> str:
    attrs = [f'src="{image.src}"']
    if image.alt is not None:
        attrs.append(f'alt="{image.alt}"')
    if image.written:
        attrs += [f'width="{image.written[0]}"', f'height="{image.written[1]}"']
    if image.ident:
        attrs.append(f'id="{image.ident}"')
    return f"<img {' '.join(attrs)}>"


def page_html(world: World, page: Page, stylesheet: str = SITE_CSS) -> str:
    nav = "\n".join(f'<a href="{p.path}">{p.title}</a>' for p in world.pages)
    images = world.main_images(page)
    links = list(page.links)
    lines = [
        "<!doctype html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{page.title} · {world.site}</title>",
        f'<link rel="stylesheet" href="{stylesheet}">',
        '<script type="module" src="dist/assets/main.js"></script>',
        "</head>",
        "<body>",
        '<header class="site-header">',
        img_tag(page.images[0]),
        "<nav>",
        nav,
        "</nav>",
        "</header>",
        "<main>",
    ]
    per_section = max(1, -(-len(images) // len(page.sections)))
    for n, (ident, heading) in enumerate(page.sections):
        css = ' class="hero"' if n == 0 else ' class="card"'
        lines.append(f'<section id="{ident}"{css}>')
        lines.append(f"<h{1 if n == 0 else 2}>{heading}</h{1 if n == 0 else 2}>")
        lines.append(f"<p>{world.site}: {heading.lower()}.</p>")
        for image in images[n * per_section : (n + 1) * per_section]:
            lines.append(img_tag(image))
        if n > 0 and links:
            for href, text in links[: 2 if n < len(page.sections) - 1 else len(links)]:
                lines.append(f'<p><a href="{href}">{text}</a></p>')
            links = links[2 if n < len(page.sections) - 1 else len(links) :]
        lines.append("</section>")
    lines += ["</main>", f"<footer><p>© {world.site}</p></footer>", "</body>", "</html>", ""]
    return "\n".join(lines)


def stylesheet(world: World, *, written: bool = True, banner: str = "site stylesheet") -> str:
    lines = [f"/* {world.site}: {banner} */", ":root {"]
    lines += [f"  {name}: {value};" for name, value in world.tokens.items()]
    lines += ["}", "", "html {", f"  font-size: {world.root_font};", "}", ""]
    by_selector: dict[str, list[str]] = {}
    for decl in world.decls:
        by_selector.setdefault(decl.selector, []).append(
            f"  {decl.prop}: {decl.written if written else decl.expected};"
        )
    for selector, decls in by_selector.items():
        lines += [f"{selector} {{", *decls, "}", ""]
    return "\n".join(lines)


def tokens_json(world: World) -> dict[str, object]:
    groups: dict[str, dict[str, str]] = {"color": {}, "space": {}}
    for name, value in world.tokens.items():
        group, _, key = name.removeprefix("--").partition("-")
        groups[group][key] = value
    return {
        "$description": "Design tokens: each becomes the CSS custom property --<group>-<name>.",
        **groups,
        "renamed": dict(world.renamed),
    }


def tokens_changelog(world: World) -> str:
    lines = ["# Design tokens: changelog", "", "## 3.2.0", "", "- Spacing scale unchanged."]
    for old, new in world.changelog_renames.items():
        lines.append(f"- Renamed `{old}` to `{new}` (the `renamed` map of tokens.json was not updated for it).")
    lines += ["", "## 3.1.0", "", "- Colour tokens under `--color-*`; old names listed in `renamed`.", ""]
    return "\n".join(lines)


def conventions(world: World) -> str:
    return f"""# Front-end conventions ({world.site})

These rules govern the site's pages and styles.

## Images
- Every `<img>` carries an `alt` attribute (empty for decorative images).
- Every `<img>` carries `width` and `height` in CSS pixels, so the browser reserves its box (no layout
  shift). The CSS pixel size is the file's pixel size; files named `*@2x.png` are high-density and are
  shown at half their pixel size.

## Loading
- The largest-contentful-paint (LCP) element of each page is the one the latest Lighthouse run reports
  (`{LIGHTHOUSE}`). When it is an image it must not be lazy-loaded and carries `fetchpriority="high"`.
- Every other image inside `<main>` is lazy-loaded (`loading="lazy"`). Images outside `<main>` are left
  as they are.

## Styles
- Colours and spacings come from the design tokens (`{TOKENS}`), as `var(--<group>-<name>)`. A
  hard-coded value equal to a token's value, however it is written, is replaced by the token. Renamed
  tokens are listed in the tokens file (and in the design system's changelog).

## Links
- Paths under `{OUT_OF_SCOPE}` are served by the store application, not by this repository: do not report them.
- A link to a folder resolves to its `index.html`.

## Bundle budget
- Each chunk of the build must stay under the budget of `{BUDGET}` (per-source overrides there). The
  build's own figures are in `{STATS}`.
"""


def stats(world: World) -> dict[str, object]:
    return {
        "build": world.build,
        "built_at": world.built_at.isoformat(timespec="minutes"),
        "chunks": [{"file": f"{m.chunk}-{world.build[:5]}.js", "source": m.source, "bytes": m.size}
                   for m in world.modules],
    }  # fmt: skip


def bundle_report(world: World) -> dict[str, object]:
    report: dict[str, object] = {"tool": "bundle-analyzer 4.9"}
    if world.report_build:
        report["build"] = world.report_build
    report["generated_at"] = world.report_at.isoformat(timespec="minutes") if world.report_at else ""
    report["over_budget"] = list(world.report_over)
    report["advice"] = "Split the modules over budget into chunks loaded on demand."
    return report


def lighthouse(world: World) -> dict[str, object]:
    pages: dict[str, object] = {}
    for page in world.pages:
        if page.lcp is None:
            element: dict[str, str] = {"selector": "main > section.hero > h1", "nodeLabel": page.title}
        else:
            image = next(i for i in page.images if i.src == page.lcp)
            element = {"selector": f"img#{image.ident}"}
            if not page.lcp_by_selector:
                element["src"] = image.src
        pages[page.path] = {"largest-contentful-paint-element": element}
    return {"lighthouseVersion": "12.2.0", "fetchTime": world.built_at.isoformat(timespec="minutes"), "pages": pages}


def components(world: World) -> dict[str, str]:
    files = {}
    for module in world.modules[2:]:
        name = module.source.rsplit("/", 1)[1].split(".")[0]
        files[module.source] = (f"export default function {name}(props) {{\n  return <div className=\"{name.lower()}\">"
                                f"{{props.children}}</div>;\n}}\n")  # fmt: skip
    files["src/main.js"] = (
        "import Header from './components/Header.jsx';\n\nexport function start() {\n  Header();\n}\n"
    )
    return files


def render_world(world: World) -> Workspace:
    workspace = Workspace()
    for page in world.pages:
        workspace.add_text(page.path, page_html(world, page))
    if world.blog:
        workspace.add_text(BLOG, f'<!doctype html>\n<html lang="en"><body><main><h1 id="posts">{world.site} journal'
                                 "</h1></main></body></html>\n")  # fmt: skip
    seen: set[str] = set()
    for page in world.pages:
        for image in page.images:
            if image.src not in seen:
                seen.add(image.src)
                workspace.add(image.src, png(image.width, image.height, 40 + len(seen) * 9 % 180), "")
    workspace.add_text(SITE_CSS, stylesheet(world))
    if world.decoy_css:
        workspace.add_text(world.decoy_css, stylesheet(world, banner=world.decoy_banner))
        if world.decoy_template:
            workspace.add_text("templates/page.html", page_html(world, world.pages[0], world.decoy_css))
    workspace.add_text(TOKENS, json.dumps(tokens_json(world), indent=2) + "\n")
    workspace.add_text(TOKENS_CHANGELOG, tokens_changelog(world))
    workspace.add_text(CONVENTIONS, conventions(world))
    workspace.add_text(BUDGET, json.dumps({"max_chunk_bytes": world.budget, "overrides": world.overrides}, indent=2)
                       + "\n")  # fmt: skip
    workspace.add_text(STATS, json.dumps(stats(world), indent=2) + "\n")
    workspace.add_text(BUNDLE_REPORT, json.dumps(bundle_report(world), indent=2) + "\n")
    workspace.add_text(LIGHTHOUSE, json.dumps(lighthouse(world), indent=2) + "\n")
    for path, text in components(world).items():
        workspace.add_text(path, text)
    package = {"name": world.slug + "-site", "private": True, "scripts": {"build": "vite build"},
               "devDependencies": {"vite": "^5.4.0"}}  # fmt: skip
    workspace.add_text("package.json", json.dumps(package, indent=2) + "\n")
    return workspace

"""Reference solver for the web front-end kit.

It reads the conventions' rules as the files state them: each image's pixel size from its PNG header
(halved for `@2x` files), the LCP element of each page from the Lighthouse run (by `src`, else by the
`img#id` selector; a non-image selector means no LCP image), the stylesheet the pages actually link,
the tokens with their renames (the tokens file's map, followed through chains, and the changelog's),
the root font size for rem values, the build's own chunk figures against the budget and its overrides
(never the bundle report), and every link of `<main>` resolved against the site's files and anchors,
with the other application's paths left out. It writes the audit first, then fixes the pages and the
stylesheet in place.
"""

from __future__ import annotations

import json
import re
import struct
from html.parser import HTMLParser
from pathlib import Path

from skill2env.kits.runtime import rt  # kit-runtime

IMG = re.compile(r"<img\b[^>]*>", re.I)
ATTR = re.compile(r'([a-zA-Z-]+)="([^"]*)"')


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.depth = 0
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.imgs: list[tuple[dict[str, str], bool]] = []
        self.styles: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "id" in found:
            self.ids.add(found["id"])
        if tag == "main":
            self.depth += 1
        elif tag == "a" and self.depth and "href" in found:
            self.hrefs.append(found["href"])
        elif tag == "img":
            self.imgs.append((found, self.depth > 0))
        elif tag == "link" and found.get("rel") == "stylesheet":
            self.styles.append(found.get("href", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "main":
            self.depth -= 1


def parsed(path: Path) -> Links:
    parser = Links()
    parser.feed(rt.read_text(path))
    return parser


def png_size(path: Path) -> tuple[int, int]:
    width, height = struct.unpack(">II", path.read_bytes()[16:24])
    return int(width), int(height)


def lcp_images(pages: dict[str, Links]) -> dict[str, str | None]:
    report = json.loads(rt.read_text(rt.workspace() / "reports" / "lighthouse.json"))
    found: dict[str, str | None] = {}
    for page, links in pages.items():
        element = report["pages"][page]["largest-contentful-paint-element"]
        src = element.get("src")
        if not src:
            ident = re.fullmatch(r"img#([\w-]+)", element.get("selector", ""))
            src = next((a["src"] for a, _ in links.imgs if ident and a.get("id") == ident.group(1)), None)
        found[page] = src
    return found


def broken_links(pages: dict[str, Links]) -> list[str]:
    root = rt.workspace()
    broken = []
    for page, links in pages.items():
        for href in links.hrefs:
            if href.startswith(("http://", "https://", "mailto:", "tel:", "/shop/")):
                continue
            target, _, fragment = href.partition("#")
            target = target.split("?")[0].lstrip("/") or page
            if target.endswith("/"):
                target += "index.html"
            path = root / target
            if not path.is_file() or (fragment and fragment not in parsed(path).ids):
                broken.append(f"{page} -> {href}")
    return sorted(broken)


def over_budget() -> list[str]:
    stats = json.loads(rt.read_text(rt.workspace() / "dist" / "stats.json"))
    budget = json.loads(rt.read_text(rt.workspace() / "perf-budget.json"))
    limit, overrides = budget["max_chunk_bytes"], budget.get("overrides", {})
    return sorted(c["source"] for c in stats["chunks"] if c["bytes"] > overrides.get(c["source"], limit))


def fix_page(path: Path, lcp: str | None) -> None:
    text = rt.read_text(path)
    main_start, main_end = text.find("<main>"), text.find("</main>")

    def fixed(match: re.Match[str]) -> str:
        attrs = dict(ATTR.findall(match.group(0)))
        src = attrs["src"]
        width, height = png_size(rt.workspace() / src)
        if "@2x" in src:
            width, height = width // 2, height // 2
        attrs.setdefault("alt", "")
        attrs["width"], attrs["height"] = str(width), str(height)
        attrs.pop("loading", None)
        attrs.pop("fetchpriority", None)
        if main_start < match.start() < main_end:
            if src == lcp:
                attrs["fetchpriority"] = "high"
            else:
                attrs["loading"] = "lazy"
        return "<img " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + ">"

    path.write_text(IMG.sub(fixed, text), encoding="utf-8")


def hex_of(value: str) -> str | None:
    value = value.strip().lower()
    if re.fullmatch(r"#[0-9a-f]{6}", value):
        return value
    if re.fullmatch(r"#[0-9a-f]{3}", value):
        return "#" + "".join(c * 2 for c in value[1:])
    found = re.fullmatch(r"rgb\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", value)
    return "#" + "".join(f"{int(n):02x}" for n in found.groups()) if found else None


def fix_stylesheet(path: Path) -> None:
    tokens_file = json.loads(rt.read_text(rt.workspace() / "design" / "tokens.json"))
    values = {}
    for group in ("color", "space"):
        for key, value in tokens_file[group].items():
            values[value.lower()] = f"--{group}-{key}"
    renamed: dict[str, str] = dict(tokens_file.get("renamed", {}))
    changelog = rt.workspace() / "design" / "CHANGELOG.md"
    if changelog.exists():
        renamed |= dict(re.findall(r"Renamed `(--[\w-]+)` to `(--[\w-]+)`", rt.read_text(changelog)))
    text = rt.read_text(path)
    root = re.search(r"html\s*\{[^}]*font-size:\s*([\d.]+)%", text)
    rem_px = 16 * float(root.group(1)) / 100 if root else 16.0

    def current(name: str) -> str:
        seen = set()
        while name in renamed and name not in seen:
            seen.add(name)
            name = renamed[name]
        return name

    def declaration(match: re.Match[str]) -> str:
        prop, value = match.group(1), match.group(2).strip()
        if prop.startswith("--") or prop == "font-size":
            return match.group(0)
        var = re.fullmatch(r"var\((--[\w-]+)\)", value)
        if var:
            return f"{prop}: var({current(var.group(1))});"
        rem = re.fullmatch(r"([\d.]+)rem", value)
        key = f"{round(float(rem.group(1)) * rem_px)}px" if rem else (hex_of(value) or value.lower())
        return f"{prop}: var({values[key]});" if key in values else match.group(0)

    path.write_text(re.sub(r"([\w-]+)\s*:\s*([^;{}]+);", declaration, text), encoding="utf-8")


def main() -> None:
    root = rt.workspace()
    pages = {p.name: parsed(p) for p in sorted(root.glob("*.html"))}
    lcp = lcp_images(pages)
    rt.write_json("audit.json", {"lcp": lcp, "over_budget": over_budget(), "broken_links": broken_links(pages)})
    if rt.partial_mode():
        return
    for name in pages:
        fix_page(root / name, lcp[name])
    for sheet in sorted({href for links in pages.values() for href in links.styles}):
        fix_stylesheet(root / sheet)


if __name__ == "__main__":
    main()

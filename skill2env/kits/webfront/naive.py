"""Naive baseline for the web front-end kit: the checklist's obvious half. It fills in missing alt
text and missing width / height from each image file (leaving the dimensions a tag already carries,
and ignoring the @2x rule), lazy-loads every image of `<main>` but the first, which it takes for the
LCP image, replaces the token values it finds written exactly as the tokens file writes them, in
`styles/main.css` when there is one, copies the bundle report's verdict, and reports every link whose
path is not a file. It never reads the conventions, the Lighthouse run or the build's stats."""

from __future__ import annotations

import json
import re
import struct

from skill2env.kits.runtime import rt  # kit-runtime

IMG = re.compile(r"<img\b[^>]*>", re.I)
ATTR = re.compile(r'([a-zA-Z-]+)="([^"]*)"')


def main() -> None:
    root = rt.workspace()
    lcp: dict[str, str | None] = {}
    broken: list[str] = []
    for path in sorted(root.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        start, end = text.find("<main>"), text.find("</main>")
        first: list[str] = []

        def fixed(match: re.Match[str], start: int = start, end: int = end, first: list[str] = first) -> str:
            attrs = dict(ATTR.findall(match.group(0)))
            attrs.setdefault("alt", "")
            if "width" not in attrs or "height" not in attrs:
                width, height = struct.unpack(">II", (root / attrs["src"]).read_bytes()[16:24])
                attrs["width"], attrs["height"] = str(width), str(height)
            if start < match.start() < end:
                if not first:
                    first.append(attrs["src"])
                    attrs["fetchpriority"] = "high"
                else:
                    attrs["loading"] = "lazy"
            return "<img " + " ".join(f'{k}="{v}"' for k, v in attrs.items()) + ">"

        body = IMG.sub(fixed, text)
        path.write_text(body, encoding="utf-8")
        lcp[path.name] = first[0] if first else None
        for href in re.findall(r'<a href="([^"]+)"', body[body.find("<main>") : body.find("</main>")]):
            if href.startswith(("http", "mailto:", "#")):
                continue
            if not (root / href.split("#")[0].split("?")[0].lstrip("/")).is_file():
                broken.append(f"{path.name} -> {href}")
    report = json.loads(rt.read_text(root / "reports" / "bundle-report.json"))
    rt.write_json("audit.json", {"lcp": lcp, "over_budget": report["over_budget"], "broken_links": sorted(broken)})
    tokens = json.loads(rt.read_text(root / "design" / "tokens.json"))
    values = {v: f"--{g}-{k}" for g in ("color", "space") for k, v in tokens[g].items()}
    sheet = root / "styles" / "main.css"
    if not sheet.exists():
        sheet = root / "styles" / "site.css"
    text = sheet.read_text(encoding="utf-8")
    sheet.write_text(re.sub(r"(?<![-\w])([a-z][a-z-]*): ([^;]+);", lambda m: f"{m.group(1)}: var({values[m.group(2)]});"
                            if m.group(2) in values else m.group(0), text), encoding="utf-8")  # fmt: skip


if __name__ == "__main__":
    main()

"""The rubric's checks of a fixed static site (standard library only).

The verifier runs this file as the inline source of a `python` check: `check(workspace, args)` with
`args["kind"]` one of

* `images`: every page holds exactly the expected images (by `src`), each with an `alt` attribute and
  `width` / `height` equal to the expected CSS pixel size;
* `loading`: inside each page's `<main>`, the expected images carry `loading="lazy"`, and the LCP image
  (when the page has one) is not lazy and carries `fetchpriority="high"`;
* `css`: the stylesheet at `path` holds, for each `[selector, property, value]` of `rules`, that value
  (case and spacing aside) as the last declaration of the property in the selector's rule.

Every file is read as untrusted: missing, oversized or unparsable files fail the item.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20


def _text(workspace: Path, relative: str) -> str | None:
    path = workspace / relative
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.images: list[tuple[dict[str, str | None], bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "main":
            self.depth += 1
        elif tag == "img":
            self.images.append(({k.lower(): v for k, v in attrs}, self.depth > 0))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag == "main" and self.depth:
            self.depth -= 1


def images(workspace: Path, page: str) -> list[tuple[dict[str, str | None], bool]] | None:
    text = _text(workspace, page)
    if text is None:
        return None
    parser = _Images()
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # a hostile page fails the item, it does not crash the verifier
        return None
    return parser.images


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and re.fullmatch(r"\s*\d{1,6}\s*", value) else None


def _images(workspace: Path, pages: dict[str, dict[str, list[int]]]) -> tuple[bool, dict[str, Any]]:
    wrong: list[str] = []
    for page, expected in pages.items():
        found = images(workspace, page)
        if found is None:
            return False, {"reason": f"{page} is missing or unreadable"}
        srcs = [a.get("src") for a, _ in found]
        if sorted(s or "" for s in srcs) != sorted(expected):
            wrong.append(f"{page}: images {srcs}")
            continue
        for attrs, _ in found:
            size = expected[attrs["src"] or ""]
            if attrs.get("alt") is None or [_int(attrs.get("width")), _int(attrs.get("height"))] != size:
                wrong.append(f"{page}: {attrs.get('src')}")
    return not wrong, {"wrong": wrong[:10]}


def _loading(workspace: Path, pages: dict[str, dict[str, Any]]) -> tuple[bool, dict[str, Any]]:
    wrong: list[str] = []
    for page, expected in pages.items():
        found = images(workspace, page)
        if found is None:
            return False, {"reason": f"{page} is missing or unreadable"}
        main = {a.get("src"): a for a, inside in found if inside}
        lazy = set(expected["lazy"])
        wanted = lazy | ({expected["lcp"]} if expected["lcp"] else set())
        if set(main) != wanted:
            wrong.append(f"{page}: images in <main> {sorted(str(s) for s in main)}")
            continue
        for src, attrs in main.items():
            is_lazy = (attrs.get("loading") or "").strip().lower() == "lazy"
            high = (attrs.get("fetchpriority") or "").strip().lower() == "high"
            if (src in lazy and (not is_lazy or high)) or (src == expected["lcp"] and (is_lazy or not high)):
                wrong.append(f"{page}: {src}")
    return not wrong, {"wrong": wrong[:10]}


def normal(value: str) -> str:
    value = re.sub(r"\s+", " ", value.strip().lower())
    return re.sub(r"\s*([(),])\s*", r"\1", value)


def rules(text: str) -> dict[str, dict[str, str]]:
    """Selector → property → value (the last declaration wins, as in the browser). One pass over the
    text: a stylesheet is the agent's, and a backtracking pattern over a megabyte without braces or
    with unclosed comments takes hours."""
    found: dict[str, dict[str, str]] = {}
    # Between braces, alternately: text, "{" or "}", text, …; a rule is text, "{", text without braces, "}".
    parts = re.split(r"([{}])", _without_comments(text))
    at = 0
    while at + 3 < len(parts):
        selectors, opening, body, closing = parts[at : at + 4]
        if not (selectors and opening == "{" and closing == "}"):
            at += 2
            continue
        for selector in selectors.split(","):
            decls = found.setdefault(normal(selector), {})
            for decl in body.split(";"):
                prop, colon, value = decl.partition(":")
                if colon and prop.strip():
                    decls[normal(prop)] = normal(value)
        at += 4
    return found


def _without_comments(text: str) -> str:
    """`text` without its closed `/* … */` comments (an unclosed one stays, with what follows it)."""
    kept, at = [], 0
    while (start := text.find("/*", at)) != -1 and (end := text.find("*/", start + 2)) != -1:
        kept.append(text[at:start])
        at = end + 2
    kept.append(text[at:])
    return "".join(kept)


def _css(workspace: Path, path: str, expected: list[list[str]]) -> tuple[bool, dict[str, Any]]:
    text = _text(workspace, path)
    if text is None:
        return False, {"reason": "no stylesheet"}
    found = rules(text)
    wrong = [f"{s} {p}" for s, p, v in expected if found.get(normal(s), {}).get(normal(p)) != normal(v)]
    return not wrong, {"wrong": wrong[:10]}


def check(workspace: Path, args: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    kind = args["kind"]
    if kind == "images":
        return _images(workspace, args["pages"])
    if kind == "loading":
        return _loading(workspace, args["pages"])
    return _css(workspace, args["path"], args["rules"])

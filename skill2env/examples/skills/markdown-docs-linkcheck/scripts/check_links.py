#!/usr/bin/env python3
"""Check a tree of Markdown files for broken relative links, anchors and images.

Checked: inline links and images, reference-style links and their definitions,
<a href> and <img src> in inline HTML. Skipped: links inside fenced code blocks
and code spans, and every external URL (http, https, mailto, ...; no network).

Issue codes:
  BROKEN_LINK          target file or directory does not exist
  MISSING_IMAGE        image file does not exist
  BROKEN_ANCHOR        '#fragment' matches no heading or explicit id in the target
  CASE_MISMATCH        target exists only with different letter case (breaks on Linux)
  OUTSIDE_ROOT         relative target resolves outside the checked root
  UNDEFINED_REFERENCE  [text][label] with no [label]: definition in the file
  EMPTY_LINK           [text]() with nothing to link to

Anchors follow GitHub's slug rules: lowercase, punctuation removed, spaces to
hyphens, '-1', '-2' appended to repeated headings. Standard library only.

Exit codes: 0 no issues, 1 issues found, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import unicodedata
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import unquote

EXIT_OK, EXIT_ISSUES, EXIT_USAGE = 0, 1, 2
MD_SUFFIXES = {".md", ".markdown", ".mdx"}
EXTERNAL = re.compile(r"^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|//)")
INLINE = re.compile(
    r"(?P<bang>!?)\[(?P<text>(?:[^\[\]\\]|\\.|\[[^\[\]]*\])*)\]"
    r"\(\s*(?P<target><[^>\n]*>|(?:[^\s()\\]|\\.|\([^\s()]*\))*)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"
)
REFERENCE_USE = re.compile(r"(?P<bang>!?)\[(?P<text>[^\[\]]+)\]\[(?P<label>[^\[\]]*)\]")
REFERENCE_DEF = re.compile(r"^ {0,3}\[(?P<label>[^\[\]]+)\]:\s*(?P<target><[^>]*>|\S+)")
HTML_ATTR = re.compile(r"<(?P<tag>a|img)\b[^>]*?\s(?P<attr>href|src)\s*=\s*(?P<q>[\"'])(?P<target>.*?)(?P=q)",
                       re.IGNORECASE)
HTML_ID = re.compile(r"<[a-zA-Z][^>]*?\s(?:id|name)\s*=\s*([\"'])(.*?)\1")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass
class Issue:
    file: str
    line: int
    column: int
    code: str
    target: str
    message: str


def slugify(heading: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links/images -> their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    text = text.replace("`", "").replace("*", "").replace("~~", "")
    text = re.sub(r"(?<!\w)_+|_+(?!\w)", "", text)  # emphasis underscores, not snake_case
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LNM")
    return text.replace(" ", "-")


def strip_code_spans(line: str) -> str:
    """Blank out `code spans` so links inside them are ignored, keeping columns."""
    def blank(m: re.Match[str]) -> str:
        return " " * len(m.group(0))
    return re.sub(r"(`+)(?:(?!\1).)+?\1", blank, line)


class Document:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines: list[tuple[int, str]] = []  # (line number, text) outside fenced code
        self.anchors: set[str] = set()
        self.definitions: dict[str, tuple[str, int]] = {}
        raw = path.read_text(encoding="utf-8", errors="replace").splitlines()
        fence: str | None = None
        counts: dict[str, int] = {}
        previous = ""
        for number, text in enumerate(raw, start=1):
            m = FENCE.match(text)
            if fence:
                marker = m.group(1) if m else ""
                if marker[:1] == fence[0] and len(marker) >= len(fence) and not text.strip()[len(marker):]:
                    fence = None
                previous = ""
                continue
            if m:
                fence = m.group(1)
                previous = ""
                continue
            self.lines.append((number, text))
            heading = None
            atx = ATX.match(text)
            if atx:
                heading = atx.group(2) or ""
            elif (previous.strip() and re.fullmatch(r" {0,3}(=+|-+)\s*", text)
                  and not previous.lstrip().startswith(("-", "*", ">"))):
                heading = previous.strip()  # setext heading: text line underlined with === or ---
            if heading is not None:
                slug = slugify(heading)
                n = counts.get(slug, 0)
                counts[slug] = n + 1
                self.anchors.add(slug if n == 0 else f"{slug}-{n}")
            for m_id in HTML_ID.finditer(text):
                self.anchors.add(m_id.group(2))
            d = REFERENCE_DEF.match(text)
            if d:
                label = normalise_label(d.group("label"))
                self.definitions.setdefault(label, (d.group("target").strip("<>"), number))
            previous = text


def normalise_label(label: str) -> str:
    return " ".join(label.split()).casefold()


class Checker:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.docs: dict[Path, Document] = {}
        self.issues: list[Issue] = []
        self.stats = {"files": 0, "links": 0, "external_skipped": 0}

    def doc(self, path: Path) -> Document:
        if path not in self.docs:
            self.docs[path] = Document(path)
        return self.docs[path]

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def run(self, files: list[Path]) -> None:
        for path in files:
            self.stats["files"] += 1
            document = self.doc(path)
            for number, text in document.lines:
                line = strip_code_spans(text)
                if REFERENCE_DEF.match(line):
                    d = REFERENCE_DEF.match(line)
                    self.check(document, number, d.start("target") + 1, d.group("target").strip("<>"), False)
                    continue
                for m in INLINE.finditer(line):
                    self.check(document, number, m.start() + 1, m.group("target").strip("<>"), bool(m.group("bang")))
                    for inner in INLINE.finditer(m.group("text")):  # [![badge](img.svg)](page.md)
                        self.check(document, number, m.start("text") + inner.start() + 1,
                                   inner.group("target").strip("<>"), bool(inner.group("bang")))
                for m in REFERENCE_USE.finditer(INLINE.sub(lambda x: " " * len(x.group(0)), line)):
                    label = normalise_label(m.group("label") or m.group("text"))
                    self.stats["links"] += 1
                    if label not in document.definitions:
                        self.add(document, number, m.start() + 1, "UNDEFINED_REFERENCE", m.group(0),
                                 f"no definition for reference [{m.group('label') or m.group('text')}]")
                for m in HTML_ATTR.finditer(line):
                    self.check(document, number, m.start() + 1, m.group("target"), m.group("tag").lower() == "img")

    def add(self, document: Document, line: int, column: int, code: str, target: str, message: str) -> None:
        self.issues.append(Issue(self.rel(document.path), line, column, code, target, message))

    def check(self, document: Document, line: int, column: int, target: str, image: bool) -> None:
        self.stats["links"] += 1
        if not target:
            self.add(document, line, column, "EMPTY_LINK", "()", "link has an empty target")
            return
        if EXTERNAL.match(target):
            self.stats["external_skipped"] += 1
            return
        path_part, _, fragment = target.partition("#")
        path_part = unquote(path_part.split("?", 1)[0])
        fragment = unquote(fragment)
        if not path_part:
            if fragment and fragment not in document.anchors:
                self.add(document, line, column, "BROKEN_ANCHOR", target,
                         f"no heading or id '#{fragment}' in this file")
            return
        base = self.root if path_part.startswith("/") else document.path.parent
        resolved = Path(os.path.normpath(base / path_part.lstrip("/")))
        if resolved != self.root and self.root not in resolved.parents:
            self.add(document, line, column, "OUTSIDE_ROOT", target, "link leaves the documentation root")
            return
        found, wrong_case = self.on_disk(resolved)
        if not found:
            code = "MISSING_IMAGE" if image else "BROKEN_LINK"
            self.add(document, line, column, code, target, f"{self.rel(resolved)} does not exist")
            return
        if wrong_case:
            self.add(document, line, column, "CASE_MISMATCH", target, f"on disk the name is '{wrong_case}'")
            return
        if fragment:
            target_doc = resolved
            if resolved.is_dir():
                readmes = [resolved / n for n in ("README.md", "index.md") if (resolved / n).is_file()]
                target_doc = readmes[0] if readmes else resolved
            is_markdown = target_doc.suffix.lower() in MD_SUFFIXES and target_doc.is_file()
            if is_markdown and fragment not in self.doc(target_doc).anchors:
                self.add(document, line, column, "BROKEN_ANCHOR", target,
                         f"no heading or id '#{fragment}' in {self.rel(target_doc)}")

    def on_disk(self, path: Path) -> tuple[bool, str | None]:
        """(exists ignoring case, on-disk name of the first component whose case differs).

        Case is compared explicitly so results are the same on case-sensitive (Linux)
        and case-insensitive (macOS, Windows) filesystems.
        """
        current, mismatch = self.root, None
        for part in path.relative_to(self.root).parts:
            try:
                names = [p.name for p in current.iterdir()]
            except (NotADirectoryError, FileNotFoundError):
                return False, None
            if part not in names:
                match = next((n for n in names if n.lower() == part.lower()), None)
                if match is None:
                    return False, None
                mismatch = mismatch or match
                part = match
            current = current / part
        return True, mismatch


def find_markdown(root: Path, exclude: list[str]) -> list[Path]:
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in exclude)
        files += [Path(dirpath) / f for f in sorted(filenames) if Path(f).suffix.lower() in MD_SUFFIXES]
    return [p.resolve() for p in files]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Check Markdown docs for broken relative links, anchors and missing images (no network).",
        epilog="Exit codes: 0 no issues, 1 issues found, 2 usage error.",
    )
    parser.add_argument("root", help="documentation root directory (absolute links '/x.md' resolve here)")
    parser.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    parser.add_argument("--exclude", action="append", default=["node_modules"], metavar="DIR",
                        help="directory name to skip (repeatable; dot-directories are always skipped)")
    parser.add_argument("--output", help="write the report here instead of stdout")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    root = Path(args.root)
    if not root.is_dir():
        print(f"error: documentation root is not a directory: {root}", file=sys.stderr)
        return EXIT_USAGE
    checker = Checker(root)
    checker.run(find_markdown(checker.root, args.exclude))
    issues = sorted(checker.issues, key=lambda i: (i.file, i.line, i.column))
    s = checker.stats
    summary = (f"{s['files']} files, {s['links']} links checked, {s['external_skipped']} external skipped, "
               f"{len(issues)} issues")
    if args.format == "json":
        text = json.dumps({"stats": s, "issues": [asdict(i) for i in issues]}, indent=2) + "\n"
    elif args.format == "markdown":
        rows = [f"| `{i.file}:{i.line}` | {i.code} | `{i.target}` | {i.message} |" for i in issues]
        text = "\n".join(["# Link check", "", summary, "", "| location | code | target | problem |",
                          "|---|---|---|---|", *rows]) + "\n"
    else:
        text = "".join(f"{i.file}:{i.line}:{i.column}: {i.code} {i.target} ({i.message})\n" for i in issues)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    print(summary, file=sys.stderr)
    return EXIT_ISSUES if issues else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

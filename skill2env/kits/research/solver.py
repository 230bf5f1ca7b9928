"""Reference solver for the research kit.

It reads the questions, the review protocol (scope), the bibliography (keys, DOIs however written,
the first key of each work), the notices (retractions and errata, naming a work by key, title or DOI),
and every source (Markdown, HTML, plain text: key, design, sample, population, claims, inline errata);
for each question it keeps the in-scope, unretracted claims, ranks them as the protocol says
(meta-analysis first, then the larger sample), applies the errata in date order, and writes the cited
summary and the reference list of the governing works under their first keys.
"""

from __future__ import annotations

import csv
import html
import io
import re
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

NUMBER = r"([-+]?\d+(?:\.\d+)?)"
RANK = {"meta-analysis": 2, "preprint": 0, "narrative review": 0}


def plain(text: str) -> str:
    """A page's text with its cells and definitions as `label: value` lines."""
    text = re.sub(r"</(td|th|dt)>\s*<(td|th|dd)>", ": ", text)
    text = re.sub(r"<(br|/p|/tr|/dd|/h\d|/li|/table)[^>]*>", "\n", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text))


def norm_doi(text: str) -> str:
    return re.sub(r"^(https?://(dx\.)?doi\.org/|doi:)", "", text.strip().lower())


def bibliography() -> tuple[dict[str, dict[str, str]], dict[str, str]]:
    """Entries by key (file order), and key → the first key of the same work."""
    text = rt.read_text(rt.workspace() / "sources" / "references.bib")
    entries: dict[str, dict[str, str]] = {}
    for key, body in re.findall(r"@\w+\{([^,\s]+),(.*?)\n\}", text, re.S):
        fields = {name.lower(): value.strip() for name, value in re.findall(r"(\w+)\s*=\s*\{(.*?)\}", body)}
        fields["doi"] = norm_doi(fields.get("doi") or fields.get("url", ""))
        entries[key] = fields
    first: dict[str, str] = {}
    canonical = {}
    for key, fields in entries.items():
        work = fields["doi"] or fields.get("title", "").lower()
        canonical[key] = first.setdefault(work, key)
    return entries, canonical


def field(text: str, label: str) -> str:
    found = re.search(rf"^[\s*-]*{label}\s*:\s*(.+)$", text, re.M | re.I)
    return found.group(1).strip().strip("`") if found else ""


def questions() -> list[tuple[int, str, str]]:
    text = rt.read_text(rt.workspace() / "questions.md")
    return [(int(n), m, u) for n, m, u in re.findall(r"^Q(\d+)\. What is the reported (.+) \((.+?)\) for", text, re.M)]


def work_named(text: str, entries: dict[str, dict[str, str]], canonical: dict[str, str]) -> str | None:
    """The first key of the work a notice names (by key, DOI or title)."""
    for key in entries:
        if re.search(rf"citation key {re.escape(key)}\b", text):
            return canonical[key]
    lower = text.lower()
    for key, fields in entries.items():
        if fields["doi"] and fields["doi"] in lower:
            return canonical[key]
    for key, fields in entries.items():
        if fields.get("title") and f'"{fields["title"].lower()}"' in lower:
            return canonical[key]
    return None


def main() -> None:
    entries, canonical = bibliography()
    asked = questions()
    scope = re.search(r"The review covers (.+?);", rt.read_text(rt.workspace() / "protocol.md"))
    population = scope.group(1).strip() if scope else ""
    retracted: set[str] = set()
    errata: list[tuple[str, str, str, float]] = []  # (date, key, metric, value)
    for path in rt.files("sources/notices/*"):
        text = plain(rt.read_text(path))
        target = work_named(text, entries, canonical)
        if target is None:
            continue
        date = re.search(r"\((\d{4}-\d{2}-\d{2})\)", text)
        if re.search(r"\bretract", text, re.I):
            retracted.add(target)
        for _, metric, _ in asked:
            found = re.search(rf"the {re.escape(metric)} should read {NUMBER}", text)
            if found and date:
                errata.append((date.group(1), target, metric, float(found.group(1))))
    supplement: dict[str, list[dict[str, str]]] = {}
    for path in rt.files("sources/supplements/*.csv"):
        for row in csv.DictReader(io.StringIO(rt.read_text(path))):
            supplement.setdefault(canonical.get(row["study"], row["study"]), []).append(row)
    records: list[dict[str, Any]] = []
    for path in rt.files("sources/*"):
        if path.suffix not in (".md", ".html", ".txt"):
            continue
        text = plain(rt.read_text(path)) if path.suffix == ".html" else rt.read_text(path)
        named = re.search(r"citation key\s*:\s*`?([\w:-]+)", text, re.I)
        own = named.group(1) if named else path.stem
        key = canonical.get(own, own)
        sample = re.search(r"n = (\d+)", text)
        body = re.split(r"erratum", text, maxsplit=1, flags=re.I)
        claims = {}
        scaled = re.search(r"values [×x] (\d+)", body[0])
        scale = int(scaled.group(1)) if scaled else 1
        for _, metric, _ in asked:
            found = re.search(rf"{re.escape(metric)}: {NUMBER}", body[0])
            itt = re.search(rf"intention-to-treat estimate for {re.escape(metric)} was {NUMBER}", body[0])
            if itt or found:
                claims[metric] = float((itt or found).group(1)) / scale  # type: ignore[union-attr]
            for row in supplement.get(key, []):
                if row["outcome"] == metric:
                    claims[metric] = float(row["value"])
            if len(body) > 1:
                for date, value in re.findall(
                    rf"erratum \((\d{{4}}-\d{{2}}-\d{{2}})\)\W+the {re.escape(metric)} reported above "
                    rf"should read {NUMBER}",
                    text,
                    re.I,
                ):
                    errata.append((date, key, metric, float(value)))
        records.append(
            {
                "key": key,
                "design": field(text, "design").lower(),
                "n": int(sample.group(1)) if sample else 0,
                "population": field(text, "population"),
                "claims": claims,
            }
        )
    lines, used = ["# Review summary", ""], []
    for number, metric, unit in asked:
        candidates = [
            r for r in records if metric in r["claims"] and r["key"] not in retracted and r["population"] == population
        ]
        best = max(candidates, key=lambda r: (RANK.get(r["design"], 1), r["n"]))
        fixes = sorted((d, v) for d, k, m, v in errata if k == best["key"] and m == metric)
        value = fixes[-1][1] if fixes else best["claims"][metric]
        used.append(best["key"])
        lines += [f"## Q{number}", "", f"Answer: {value:.1f}", "",
                  f"The reported {metric} is {value:.1f} {unit} ({best['design']}, n = {best['n']}) [@{best['key']}].",
                  ""]  # fmt: skip
    rt.write_text("summary.md", "\n".join(lines))
    if rt.partial_mode():
        return
    references = [
        {"key": key, "doi": entries[key]["doi"], "title": entries[key].get("title", "")} for key in dict.fromkeys(used)
    ]
    rt.write_json("references.json", {"references": references})


if __name__ == "__main__":
    main()

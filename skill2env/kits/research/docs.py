"""Render the research world: the sources (Markdown notes, HTML pages, plain-text abstracts), the
retraction notices and errata, the BibTeX bibliography, the review protocol and the questions."""

from __future__ import annotations

import html

from skill2env.kits import render as r
from skill2env.kits.research.patterns import BIBLIOGRAPHY, PROTOCOL, SUPPLEMENTS
from skill2env.kits.research.world import Notice, Source, World
from skill2env.kits.spec import Workspace

QUESTIONS = "questions.md"
NO_ESTIMATES = "no estimates of its own (narrative overview)"


def number(value: float) -> str:
    return f"{value:.1f}"


def question_lines(world: World) -> list[str]:
    return [
        f"Q{n}. What is the reported {metric} ({world.unit(metric)}) for {world.population}?"
        for n, metric in enumerate(world.asked, 1)
    ]


def citation(source: Source) -> str:
    return f"{source.author} et al. ({source.year}). {source.venue}. doi:{source.doi}"


def markdown(world: World, source: Source) -> str:
    lines = [
        f"# {source.title}",
        "",
        f"Citation key: `{source.header_key}`  ",
        citation(source),
        "",
        f"- Design: {source.design}",
        f"- Sample: n = {source.n}",
        f"- Population: {source.population}",
        "",
        "## Findings" + (f" (values × {source.scale})" if source.scale > 1 else ""),
        "",
    ]
    if source.claims:
        form = "- {metric}: {{}} {unit}"
        lines += [
            line
            for metric in source.claims
            if (line := finding(world, source, metric, form.format(metric=metric, unit=world.unit(metric)), "[^{}]"))
        ]
    else:
        lines.append(f"A narrative overview of {world.topic}; it reports no estimates of its own.")
    notes = [f"[^{n}]: {footnote(world, source, m)}" for n, m in enumerate(source.footnotes, 1)]
    if notes and world.footnote_level == 1:
        lines += ["", *notes]
    lines += [pointer(world, source)] if source.supplement else []
    lines += ["", f"Published version: doi:{source.published}"] if source.published else []
    if notes and world.footnote_level > 1:
        lines += [
            "",
            "## Notes",
            "",
            "The review team's reading notes are above; the authors' notes follow.",
            "",
            *notes,
        ]
    for date, metric, value in source.erratum_inline:
        lines += ["", f"## Erratum ({date})", "", f"The {metric} reported above should read {number(value)} "
                  f"{world.unit(metric)}."]  # fmt: skip
    return "\n".join(lines) + "\n"


def finding(world: World, source: Source, metric: str, form: str, mark: str) -> str:
    """A claim's line (empty when the claim is only in a supplement): the headline value, scaled."""
    if metric in source.supplement:
        return ""
    headline = source.footnotes.get(metric, source.claims[metric])
    line = form.format(number(headline * source.scale))
    if metric in source.footnotes:
        line += " " + mark.format(list(source.footnotes).index(metric) + 1)
    return line


def footnote(world: World, source: Source, metric: str) -> str:
    value = number(source.claims[metric] * source.scale)
    return f"Per-protocol analysis; the intention-to-treat estimate for {metric} was {value} {world.unit(metric)}."


def pointer(world: World, source: Source) -> str:
    if world.supplement_level == 1:
        return f"Results for {', '.join(source.supplement)} are in supplementary table `{SUPPLEMENTS}{table(source)}`."
    return "Further results are in the supplementary material."


def table(source: Source) -> str:
    return f"table-S-{source.doi.rsplit('.', 1)[-1]}.csv"


def page(world: World, source: Source) -> str:
    e = html.escape
    rows = "".join(
        f"<tr><td>{e(metric)}</td><td>{e(line)}</td></tr>"
        for metric in source.claims
        if (line := finding(world, source, metric, f"{{}} {world.unit(metric)}", "<sup>{}</sup>"))
    )
    head = "Result" + (f" (values × {source.scale})" if source.scale > 1 else "")
    body = (
        f"<table><tr><th>Outcome</th><th>{head}</th></tr>{rows}</table>"
        if source.claims
        else f"<p>A narrative overview of {e(world.topic)}; it reports no estimates of its own.</p>"
    )
    notes = "".join(
        f'<p class="footnote"><sup>{n}</sup> {e(footnote(world, source, m))}</p>'
        for n, m in enumerate(source.footnotes, 1)
    )
    if source.supplement:
        body += f"<p>{e(pointer(world, source))}</p>"
    if source.published:
        body += f"<p>Published version: doi:{e(source.published)}</p>"
    body += notes
    for date, metric, value in source.erratum_inline:
        fix = f"The {e(metric)} reported above should read {number(value)} {e(world.unit(metric))}."
        body += f"<h2>Erratum ({date})</h2><p>{fix}</p>"
    return (
        f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{e(source.title)}</title></head><body>\n'
        f"<h1>{e(source.title)}</h1>\n"
        f'<p class="citation">Citation key: <code>{e(source.header_key)}</code> &mdash; {e(citation(source))}</p>\n'
        f"<dl><dt>Design</dt><dd>{e(source.design)}</dd><dt>Sample</dt><dd>n = {source.n}</dd>"
        f"<dt>Population</dt><dd>{e(source.population)}</dd></dl>\n{body}\n</body></html>\n"
    )


def abstract(world: World, source: Source) -> str:
    results = "; ".join(
        line
        for metric in source.claims
        if (line := finding(world, source, metric, f"{metric}: {{}} {world.unit(metric)}", "(note {})"))
    )
    scaled = f" (values x {source.scale})" if source.scale > 1 else ""
    lines = [
        f"TITLE: {source.title}",
        f"CITATION KEY: {source.header_key}",
        f"SOURCE: {citation(source)}",
        f"DESIGN: {source.design}",
        f"SAMPLE: n = {source.n}",
        f"POPULATION: {source.population}",
        f"RESULTS{scaled}: {results or ('see below' if source.claims else NO_ESTIMATES)}",
    ]
    lines += [pointer(world, source)] if source.supplement else []
    lines += [f"PUBLISHED VERSION: doi:{source.published}"] if source.published else []
    lines += [f"NOTE {n}: {footnote(world, source, m)}" for n, m in enumerate(source.footnotes, 1)]
    for date, metric, value in source.erratum_inline:
        lines.append(f"ERRATUM ({date}): The {metric} reported above should read {number(value)} {world.unit(metric)}.")
    return "\n".join(lines) + "\n"


RENDER = {"md": markdown, "html": page, "txt": abstract}


def naming(world: World, notice: Notice) -> str:
    source = next(s for s in world.sources if s.key == notice.target)
    return {
        "key": f'the article with citation key {source.key} ("{source.title}")',
        "title": f'the article "{source.title}"',
        "doi": f"the article with DOI {source.doi.upper()}",
    }[notice.names]


def notice_text(world: World, notice: Notice) -> tuple[str, str]:
    """The notice's file name and text."""
    which = naming(world, notice)
    if notice.kind == "retraction":
        text = (
            f"Retraction notice ({notice.date}): {which} has been retracted by the journal at the authors' request; "
            "an audit found that the outcome data could not be verified. Its findings should not be relied on."
        )
    else:
        unit = world.unit(notice.metric)
        text = (
            f"Erratum ({notice.date}): in {which}, the {notice.metric} should read {number(notice.value)} {unit}; "
            "this correction replaces the value published earlier."
        )
    name = f"sources/notices/notice-{world.notices.index(notice) + 1:02d}.{notice.fmt}"
    if notice.fmt == "html":
        title = "Retraction" if notice.kind == "retraction" else "Erratum"
        text = f"<!DOCTYPE html>\n<html><body><h1>{title}</h1>\n<p>{html.escape(text)}</p>\n</body></html>\n"
    elif notice.fmt == "md":
        text = f"# {'Retraction' if notice.kind == 'retraction' else 'Erratum'}\n\n{text}\n"
    else:
        text += "\n"
    return name, text


def bibtex(world: World) -> str:
    entries = []
    for source in sorted(world.sources, key=lambda s: s.key):
        entries.append(_entry(source.key, source, {"doi": source.doi}))
    by_key = {s.key: s for s in world.sources}
    for key, duplicate in world.duplicates:
        source, form = by_key[key], world.dup_form[duplicate]
        link = "https://doi.org/" + source.doi.upper()
        fields = {1: {"doi": source.doi}, 2: {"doi": link}, 3: {"url": link}}[form]
        entries.append(_entry(duplicate, source, fields))
    return "\n".join(entries)


def _entry(key: str, source: Source, extra: dict[str, str]) -> str:
    venue = "howpublished" if source.design == "preprint" else "journal"
    fields = {
        "author": f"{source.author}, A. and others",
        "title": source.title,
        venue: source.venue,
        "year": str(source.year),
        **extra,
    }
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields.items())
    kind = "misc" if source.design == "preprint" else "article"
    return f"@{kind}{{{key},\n{body}\n}}\n"


def supplements(world: World, ws: Workspace) -> None:
    for source in world.sources:
        if source.supplement:
            rows = [[source.key, m, number(source.claims[m]), world.unit(m)] for m in source.supplement]
            ws.add(SUPPLEMENTS + table(source), r.csv_bytes(["study", "outcome", "value", "unit"], rows))


def protocol(world: World) -> str:
    return f"""# Review protocol: {world.topic}

## Scope

The review covers {world.population}; studies of other populations are out of scope and are not cited
for an answer.

## Weighing the evidence

- A retracted article is never cited; notices of retractions and errata are kept in `sources/notices/`.
- Answers use intention-to-treat estimates (not per-protocol ones), in the question's unit.
- A preprint never outranks peer-reviewed work; cite the published article.
- A value corrected by an erratum is used as corrected; when a value was corrected more than once,
  the latest erratum governs.
- When in-scope sources disagree, a systematic review or meta-analysis outranks single studies; among
  studies of the same kind, the one with the larger sample (n) governs.
- When `{BIBLIOGRAPHY}` lists one work more than once (the same DOI, however it is written), cite it
  under the key of its first entry in that file.
"""


def render_world(world: World) -> Workspace:
    ws = Workspace()
    for source in world.sources:
        ws.add_text(source.path, RENDER[source.fmt](world, source))
    for notice in world.notices:
        name, text = notice_text(world, notice)
        ws.add_text(name, text)
    supplements(world, ws)
    ws.add_text(BIBLIOGRAPHY, bibtex(world))
    ws.add_text(PROTOCOL, protocol(world))
    ws.add_text(QUESTIONS, f"# Questions: {world.topic}\n\n" + "\n".join(question_lines(world)) + "\n")
    return ws

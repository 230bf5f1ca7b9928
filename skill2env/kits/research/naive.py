"""Naive baseline for the research kit: it reads the sources in file order, takes the first value it
meets for each question, cites every source that reports that value's metric under the key the source
names itself, and lists every cited key in the reference list. It never opens the notices or the
protocol: no retraction, erratum, scope or precedence, and no merging of duplicate entries."""

from __future__ import annotations

import html
import re

from skill2env.kits.runtime import rt  # kit-runtime


def main() -> None:
    asked = re.findall(
        r"^Q(\d+)\. What is the reported (.+) \((.+?)\) for", rt.read_text(rt.workspace() / "questions.md"), re.M
    )
    bib = rt.read_text(rt.workspace() / "sources" / "references.bib")
    entries = {
        key: dict(re.findall(r"(\w+)\s*=\s*\{(.*?)\}", body))
        for key, body in re.findall(r"@\w+\{([^,\s]+),(.*?)\n\}", bib, re.S)
    }
    texts = []
    for path in sorted(rt.files("sources/*")):
        if path.suffix in (".md", ".html", ".txt"):
            text = rt.read_text(path)
            text = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"</td>\s*<td>", ": ", text)))
            key = re.search(r"citation key\s*:\s*`?([\w:-]+)", text, re.I)
            texts.append((key.group(1) if key else path.stem, text))
    lines, cited = ["# Review summary", ""], []
    for number, metric, _unit in asked:
        claims = [
            (key, m.group(1)) for key, text in texts if (m := re.search(rf"{re.escape(metric)}: ([-\d.]+)", text))
        ]
        keys = list(dict.fromkeys(key for key, _ in claims))
        cited += keys
        value = claims[0][1] if claims else "0"
        lines += [f"## Q{number}", "", f"Answer: {value}", "", "[" + "; ".join(f"@{k}" for k in keys) + "]", ""]
    rt.write_text("summary.md", "\n".join(lines))
    references = [
        {"key": k, "doi": entries.get(k, {}).get("doi", ""), "title": entries.get(k, {}).get("title", "")}
        for k in dict.fromkeys(cited)
    ]
    rt.write_json("references.json", {"references": references})


if __name__ == "__main__":
    main()

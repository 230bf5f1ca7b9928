"""Reference solver for the text-coding kit.

It reads the codebook (its codes, weights and cue phrases, the footnotes' exclusions, the precedence
rules in order, the score bands), applies its dated amendments in date order (weights changed, cue
phrases added or retired), and never trusts the cue export. It collects every document of the corpus
whatever its container (text files, JSONL batch files, e-mail files, zip archives), keeps those of the
batch's scope and date window, marks re-sent copies (the same body words as an earlier document) DUP,
and codes each other body: cue phrases as whole words outside the quoted message and the signature
and not right after "not", then the precedence rules in order. Scores are the codes' weights summed,
banded by the codebook's thresholds.
"""

from __future__ import annotations

import json
import re
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

ROW = re.compile(r"^\|\s*([A-Z]+)\s*\|\s*(.+?)\s*\|\s*(\d+)\s*\|\s*(.*?)\s*\|\s*$", re.M)
RULE = re.compile(r"both (\w+) and (\w+), it keeps (\w+) only")
BANDS = re.compile(r"Band: (\S+) at a score of (\d+) or more, (\S+) at (\d+) or more, (\S+) below")


def codebook() -> dict[str, Any]:
    text = rt.read_text(rt.workspace() / "codebook" / "CODEBOOK.md")
    weights = {m.group(1): int(m.group(3)) for m in ROW.finditer(text)}
    cues: dict[str, list[str]] = {m.group(1): re.findall(r'"([^"]+)"', m.group(4)) for m in ROW.finditer(text)}
    rules = []
    for a, b, keep in RULE.findall(text):
        rules.append((keep, b if keep == a else a))
    band = BANDS.search(text)
    if band is None:
        raise SystemExit("no score bands in the codebook")
    bands = [(int(band.group(2)), band.group(1)), (int(band.group(4)), band.group(3)), (-(10**9), band.group(5))]
    for path in rt.files("codebook/amendments/*.md"):
        for line in rt.read_text(path).splitlines():
            if m := re.match(r"- Weight of (\w+) .*: now (\d+)\.", line):
                weights[m.group(1)] = int(m.group(2))
            elif m := re.match(r'- Cue phrase added to (\w+) .*?: "([^"]+)"', line):
                cues[m.group(1)].append(m.group(2))
            elif m := re.match(r'- Cue phrase retired from (\w+) .*?: "([^"]+)"', line):
                cues[m.group(1)] = [c for c in cues[m.group(1)] if c != m.group(2)]
    codes = {code: {"weight": weights[code], "cues": cues[code]} for code in weights}
    return {"codes": codes, "rules": rules, "bands": bands}


def parse(text: str) -> tuple[dict[str, str], str]:
    head, _, body = text.partition("\n\n")
    fields = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        fields[key[2:] if key.startswith("x-") else key] = value.strip()
    if "doc-id" in fields:
        fields["id"] = fields["doc-id"]
    return fields, body


def documents() -> list[tuple[dict[str, str], str]]:
    found = []
    for path in rt.files("corpus/**/*"):
        if path.suffix in (".txt", ".eml"):
            found.append(parse(rt.read_text(path)))
        elif path.suffix == ".jsonl":
            for raw in rt.read_text(path).splitlines():
                if raw.strip():
                    record = json.loads(raw)
                    if "text" in record:
                        body = str(record.pop("text"))
                        found.append(({k.lower(): str(v) for k, v in record.items()}, body))
        elif path.suffix == ".zip":
            for name, data in rt.members(path.name, path.read_bytes()):
                if name.endswith(".txt"):
                    found.append(parse(rt.decode(data)))
    return found


def own_words(body: str) -> str:
    """The body without the quoted message and the signature, lower case."""
    kept = []
    for line in body.splitlines():
        if line.rstrip() == "--":
            break
        if line.startswith(">") or re.match(r"^On .* wrote:\s*$", line):
            continue
        kept.append(line)
    return "\n".join(kept).lower()


def codes_of(text: str, book: dict[str, Any]) -> list[str]:
    found = []
    for code, spec in book["codes"].items():
        for cue in spec["cues"]:
            for m in re.finditer(r"(?<![a-z0-9])" + re.escape(cue.lower()) + r"(?![a-z0-9])", text):
                if not re.search(r"\bnot\s+$", text[: m.start()]):
                    found.append(code)
                    break
            if code in found:
                break
    for winner, loser in book["rules"]:
        if winner in found and loser in found:
            found.remove(loser)
    return found


def main() -> None:
    book = codebook()
    batch = rt.read_text(rt.workspace() / "BATCH.md")
    scope = re.search(r"of (\w+) `([^`]+)` dated (\d{4}-\d\d-\d\d) to (\d{4}-\d\d-\d\d)", batch)
    if scope is None:
        raise SystemExit("no scope in BATCH.md")
    field, value, start, end = scope.group(1).lower(), scope.group(2), scope.group(3), scope.group(4)
    docs = [(f, b) for f, b in documents() if f.get(field) == value and start <= f.get("date", "") <= end]
    docs.sort(key=lambda d: (d[0]["date"], d[0]["id"]))
    seen: set[str] = set()
    coded: dict[str, list[str]] = {}
    for fields, body in docs:
        text = own_words(body)
        words = " ".join(re.findall(r"[a-z0-9]+", text))
        coded[fields["id"]] = ["DUP"] if words in seen else codes_of(text, book)
        seen.add(words)
    coded = dict(sorted(coded.items()))
    rt.write_json("codes.json", coded)
    if rt.partial_mode():
        return
    weights = {c: s["weight"] for c, s in book["codes"].items()}
    counts = {c: sum(c in found for found in coded.values()) for c in book["codes"]}
    scores = {d: sum(weights[c] for c in found) for d, found in coded.items() if found != ["DUP"]}
    bands = {d: next(label for least, label in book["bands"] if s >= least) for d, s in scores.items()}
    rt.write_json("summary.json", {"counts": counts, "scores": scores, "bands": bands})


if __name__ == "__main__":
    main()

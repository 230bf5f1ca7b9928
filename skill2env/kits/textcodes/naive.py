"""Naive baseline for the text-coding kit: it codes with the codebook's convenience export
(`codebook/cues.json`: cue phrases, weights, bands) and matches every cue anywhere in each text file
at the top of `corpus/`. It never reads the codebook's footnotes, precedence rules or amendments,
never looks at the batch's scope, at other containers or for re-sent copies."""

from __future__ import annotations

import json

from skill2env.kits.runtime import rt  # kit-runtime


def main() -> None:
    export = json.loads(rt.read_text(rt.workspace() / "codebook" / "cues.json"))
    codes = export["codes"]
    coded: dict[str, list[str]] = {}
    for path in rt.files("corpus/*.txt"):
        text = rt.read_text(path).lower()
        coded[path.stem] = [c["code"] for c in codes if any(cue.lower() in text for cue in c["cues"])]
    rt.write_json("codes.json", coded)
    weights = {c["code"]: c["weight"] for c in codes}
    low, high = export["bands"]["thresholds"]
    labels = export["bands"]["labels"]
    scores = {d: sum(weights[c] for c in found) for d, found in coded.items()}
    bands = {d: labels[2] if s >= high else labels[1] if s >= low else labels[0] for d, s in scores.items()}
    counts = {c["code"]: sum(c["code"] in found for found in coded.values()) for c in codes}
    rt.write_json("summary.json", {"counts": counts, "scores": scores, "bands": bands})


if __name__ == "__main__":
    main()

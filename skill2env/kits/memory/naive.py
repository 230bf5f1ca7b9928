"""Naive baseline for the memory kit: it trusts the memory store as it is. It reads the questions of
the thread's first message, answers them from the memory index (the open items from the memory
file), and hands back the memory file unchanged but for its consolidation date, set to the last
journal session. It never replays the journal, reads the later messages, the template or the
conventions."""

from __future__ import annotations

import json
import re

from skill2env.kits.runtime import rt  # kit-runtime


def main() -> None:
    thread = rt.read_text(rt.workspace() / "requests" / "thread.md")
    first = next(m for m in re.split(r"^---$", thread, flags=re.M) if "From:" in m)
    index = json.loads(rt.read_text(rt.workspace() / "memory" / "index.json"))
    lookup = {e["key"]: e["value"] for e in index.get("entries", [])}
    memory = rt.read_text(rt.workspace() / "MEMORY.md")
    open_part = re.search(r"^## Open items\n(.*?)(?=^## |\Z)", memory, re.M | re.S)
    open_ids = re.findall(r"^- (A-\d+):", open_part.group(1) if open_part else "", re.M)
    answers: dict[str, object] = {}
    for number, question in re.findall(r"^(\d+)\. (.+)$", first, re.M):
        key = f"q{number}"
        if found := re.search(r"Who owns the (.+?) work now", question):
            answers[key] = lookup.get("owner/" + found.group(1), "")
        elif found := re.search(r"current deadline for (.+?)\?", question):
            answers[key] = lookup.get("deadline/" + found.group(1), "")
        elif found := re.search(r"binds now for the (.+?) decision", question):
            answers[key] = lookup.get("decision/" + found.group(1), "")
        else:
            answers[key] = open_ids
    rt.write_json("answers.json", answers)
    last = max(path.stem for path in rt.files("journal/*"))
    rt.write_text("MEMORY.md", re.sub(r"^Last consolidated: .*$", f"Last consolidated: {last}", memory, flags=re.M))


if __name__ == "__main__":
    main()

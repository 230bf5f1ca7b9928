"""Naive baseline for the git-forensics kit: it trusts commit messages and looks at HEAD.

It reads the log of `main` the way `git log --first-parent` shows it: the regression is the latest
commit to pricing.py that does not call itself a fix, and a commit that says it fixes the totals fixed
them; the token leaked in the last commit before the one whose message says it removed the token, in
the file that message names (or the file it changed); the changelog is the first-parent log between the
tags, full messages included; the last author of the inventory module is HEAD's author.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

OLD, NEW = "v1.0.0", "v1.1.0"
PRICING = "src/shop/pricing.py"
INVENTORY = "src/shop/inventory.py"


def load(git: Path) -> tuple[dict[str, tuple[str, bytes]], dict[str, str]]:
    objects = {}
    for path in (git / "objects").glob("??/*"):
        header, _, content = zlib.decompress(path.read_bytes()).partition(b"\0")
        objects[path.parent.name + path.name] = (header.split(b" ")[0].decode(), content)
    refs = {}
    for line in (git / "packed-refs").read_text().splitlines():
        if line and not line.startswith(("#", "^")):
            oid, name = line.split(" ", 1)
            refs[name] = oid
    refs["HEAD"] = (git / "refs/heads/main").read_text().strip()
    return objects, refs


def commit(objects: dict[str, tuple[str, bytes]], oid: str) -> dict[str, Any]:
    head, _, message = objects[oid][1].decode("utf-8", "replace").partition("\n\n")
    info: dict[str, Any] = {"parents": [], "message": message.strip(), "subject": message.split("\n", 1)[0]}
    for line in head.splitlines():
        key, _, value = line.partition(" ")
        if key == "parent":
            info["parents"].append(value)
        else:
            info[key] = value
    return info


def files(objects: dict[str, tuple[str, bytes]], tree: str, prefix: str = "") -> dict[str, str]:
    data, found, at = objects[tree][1], {}, 0
    while at < len(data):
        space, nul = data.index(b" ", at), data.index(b"\0", at)
        name, oid = data[space + 1 : nul].decode(), data[nul + 1 : nul + 21].hex()
        if data[at:space] == b"40000":
            found.update(files(objects, oid, prefix + name + "/"))
        else:
            found[prefix + name] = oid
        at = nul + 21
    return found


def main() -> None:
    objects, refs = load(rt.workspace() / "repo" / ".git")
    log = [refs["HEAD"]]
    while commit(objects, log[-1])["parents"]:
        log.append(commit(objects, log[-1])["parents"][0])
    info = {oid: commit(objects, oid) for oid in log}

    def touched(oid: str) -> set[str]:
        parents = info[oid]["parents"]
        after = files(objects, info[oid]["tree"])
        before = files(objects, info[parents[0]]["tree"]) if parents else {}
        return {p for p in set(after) | set(before) if after.get(p) != before.get(p)}

    pricing = [oid for oid in log if PRICING in touched(oid)]
    introduced = next((o for o in pricing if not re.search(r"fix|revert", info[o]["subject"], re.I)), log[-1])
    fixes = [o for o in pricing[: pricing.index(introduced)] if re.search(r"fix", info[o]["subject"], re.I)]
    removal = next(
        o for o in log
        if re.search(r"remove|rotate|scrub|delete", info[o]["subject"], re.I)
        and re.search(r"token|secret|credential|password", info[o]["subject"], re.I)
    )  # fmt: skip
    named = re.search(r"[\w.-]+/[\w./-]+\.\w+", info[removal]["subject"])
    leaked_file = named.group(0) if named else sorted(touched(removal))[0]
    older = log[log.index(removal) + 1 :]
    leak = next((o for o in older if leaked_file in touched(o)), older[0])
    new, old = refs[f"refs/tags/{NEW}"], refs[f"refs/tags/{OLD}"]
    release = log[log.index(new) : log.index(old)]
    changes = [o for o in release if len(info[o]["parents"]) < 2]
    rt.write_json(
        "report.json",
        {
            "regression": {"introduced_by": introduced, "fixed_by": fixes[0] if fixes else None},
            "secret": {"commit": leak, "file": leaked_file},
            "changelog": {"from": OLD, "to": NEW, "commits": changes},
            "last_change": {"path": INVENTORY, "author": info[log[0]]["author"].rsplit(" <", 1)[0]},
        },
    )
    entries = []
    for oid in changes:
        subject, _, body = info[oid]["message"].partition("\n")
        entries.append(f"- {subject}" + "".join(f"\n  {line}" for line in body.strip().splitlines()))
    rt.write_text("CHANGELOG.md", f"# Changelog\n\n## {NEW}\n\n" + "\n".join(entries) + "\n")


if __name__ == "__main__":
    main()

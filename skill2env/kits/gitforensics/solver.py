"""Reference solver for the git-forensics kit.

It reads the repository's objects itself (zlib-compressed loose objects, refs and packed tags; no git
needed), runs `scripts/check_totals.py` on every commit's tree to find the commit that broke the totals
and the one that fixed them, finds the token in every blob of the history and the first commit that
added it, takes the changelog's commits by ancestry (reachable from the new tag and not from the old,
merges and commits that change only the separately released legacy package aside) and drops a change
and its revert recognised by their diffs, not their messages, and names the author of the last
first-parent commit that changed the inventory module, as the repository's `.mailmap` names them. The
changelog holds subjects only, so a token quoted in a message body never reaches it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

from skill2env.kits.runtime import rt  # kit-runtime

REPO = "repo"
OLD, NEW = "v1.0.0", "v1.1.0"
INVENTORY = "src/shop/inventory.py"
CHECK = "scripts/check_totals.py"
LEGACY = "legacy/"
TOKEN = re.compile(rb"""API_TOKEN\s*=\s*["']([^"']+)["']""")


class Repo:
    def __init__(self, root: Path) -> None:
        self.git = root / ".git"
        self.objects: dict[str, tuple[str, bytes]] = {}
        for path in (self.git / "objects").glob("??/*"):
            raw = zlib.decompress(path.read_bytes())
            header, _, content = raw.partition(b"\0")
            self.objects[path.parent.name + path.name] = (header.split(b" ")[0].decode(), content)
        self.refs: dict[str, str] = {}
        packed = self.git / "packed-refs"
        if packed.exists():
            for line in packed.read_text().splitlines():
                if line and not line.startswith(("#", "^")):
                    oid, name = line.split(" ", 1)
                    self.refs[name] = oid
        for path in (self.git / "refs").rglob("*"):
            if path.is_file():
                self.refs[path.relative_to(self.git).as_posix()] = path.read_text().strip()
        self.commits = {oid: self.parse(content) for oid, (kind, content) in self.objects.items() if kind == "commit"}
        self.trees: dict[str, dict[str, str]] = {}

    def resolve(self, name: str) -> str:
        oid = self.refs[name]
        while self.objects[oid][0] == "tag":
            oid = self.objects[oid][1].split(b"\n", 1)[0].split()[1].decode()
        return oid

    def head(self) -> str:
        text = (self.git / "HEAD").read_text().strip()
        return self.resolve(text[5:]) if text.startswith("ref: ") else text

    @staticmethod
    def parse(content: bytes) -> dict[str, Any]:
        head, _, message = content.decode("utf-8", "replace").partition("\n\n")
        info: dict[str, Any] = {"parents": [], "message": message}
        for line in head.splitlines():
            key, _, value = line.partition(" ")
            if key == "parent":
                info["parents"].append(value)
            elif key in ("tree", "author", "committer"):
                info[key] = value
        info["subject"] = message.split("\n", 1)[0].strip()
        info["author_name"] = info["author"].rsplit(" <", 1)[0]
        info["time"] = int(info["committer"].split("> ", 1)[1].split()[0])
        return info

    def files(self, commit: str) -> dict[str, str]:
        """path → blob id of a commit's tree."""
        tree = self.commits[commit]["tree"]
        if tree not in self.trees:
            self.trees[tree] = self._walk(tree, "")
        return self.trees[tree]

    def _walk(self, tree: str, prefix: str) -> dict[str, str]:
        data, found, at = self.objects[tree][1], {}, 0
        while at < len(data):
            space, nul = data.index(b" ", at), data.index(b"\0", at)
            mode, name = data[at:space].decode(), data[space + 1 : nul].decode()
            oid = data[nul + 1 : nul + 21].hex()
            at = nul + 21
            if mode == "40000":
                found.update(self._walk(oid, prefix + name + "/"))
            else:
                found[prefix + name] = oid
        return found

    def blob(self, oid: str) -> bytes:
        return self.objects[oid][1]

    def ancestors(self, oid: str) -> set[str]:
        seen: set[str] = set()
        stack = [oid]
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(self.commits[current]["parents"])
        return seen

    def first_parents(self, oid: str) -> list[str]:
        line = [oid]
        while self.commits[line[-1]]["parents"]:
            line.append(self.commits[line[-1]]["parents"][0])
        return line

    def diff(self, oid: str) -> dict[str, tuple[str | None, str | None]]:
        parents = self.commits[oid]["parents"]
        before = self.files(parents[0]) if parents else {}
        after = self.files(oid)
        return {p: (before.get(p), after.get(p)) for p in set(before) | set(after) if before.get(p) != after.get(p)}


def check_passes(repo: Repo, commit: str, cache: dict[tuple[str, ...], bool]) -> bool:
    files = repo.files(commit)
    script = files.get(CHECK) or repo.files(repo.head())[CHECK]
    wanted = {p: o for p, o in files.items() if p.startswith("src/")}
    key = (script, *sorted(f"{p}:{o}" for p, o in wanted.items()))
    if key not in cache:
        with tempfile.TemporaryDirectory() as tmp:
            for path, oid in {**wanted, CHECK: script}.items():
                target = Path(tmp) / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(repo.blob(oid))
            done = subprocess.run([sys.executable, "-I", CHECK], cwd=tmp, capture_output=True, timeout=60, check=False)
        cache[key] = done.returncode == 0
    return cache[key]


def regression(repo: Repo) -> tuple[str, str | None]:
    cache: dict[tuple[str, ...], bool] = {}
    passes = {oid: check_passes(repo, oid, cache) for oid in repo.commits}
    introduced = sorted(
        (repo.commits[oid]["time"], oid)
        for oid in repo.commits
        if not passes[oid] and repo.commits[oid]["parents"] and all(passes[p] for p in repo.commits[oid]["parents"])
    )
    fixed = None
    head = repo.head()
    if passes[head]:
        for oid in repo.first_parents(head):
            parents = repo.commits[oid]["parents"]
            if parents and not passes[parents[0]]:
                fixed = oid
                break
    return introduced[0][1], fixed


def secret(repo: Repo) -> tuple[str, str]:
    tokens = {m.group(1) for kind, data in repo.objects.values() if kind == "blob" for m in TOKEN.finditer(data)}
    tokens = {t for t in tokens if t.strip()}
    holding: dict[str, set[str]] = {}
    for oid in repo.commits:
        holding[oid] = {p for p, blob in repo.files(oid).items() if any(t in repo.blob(blob) for t in tokens)}
    leaks = sorted(
        (repo.commits[oid]["time"], oid, sorted(paths))
        for oid, paths in holding.items()
        if paths and not any(holding[p] for p in repo.commits[oid]["parents"])
    )
    _, commit, paths = leaks[0]
    return commit, paths[0]


def changelog(repo: Repo) -> list[str]:
    old, new = repo.resolve(f"refs/tags/{OLD}"), repo.resolve(f"refs/tags/{NEW}")
    span = repo.ancestors(new) - repo.ancestors(old)
    ordered = sorted(
        (repo.commits[o]["time"], o)
        for o in span
        if len(repo.commits[o]["parents"]) < 2 and not all(p.startswith(LEGACY) for p in repo.diff(o))
    )
    changes = [oid for _, oid in ordered]
    paired: set[str] = set()
    for n, oid in enumerate(changes):
        diff = repo.diff(oid)
        inverse = {p: (b, a) for p, (a, b) in diff.items()}
        for earlier in reversed(changes[:n]):
            if earlier not in paired and repo.diff(earlier) == inverse:
                paired |= {earlier, oid}
                break
    return [oid for oid in changes if oid not in paired]


def mailmap(repo: Repo) -> dict[tuple[str, str], str]:
    """(name or '', old email) → canonical name, from HEAD's `.mailmap` (git's four line forms)."""
    blob = repo.files(repo.head()).get(".mailmap")
    found: dict[tuple[str, str], str] = {}
    for line in repo.blob(blob).decode().splitlines() if blob else []:
        line = line.split("#", 1)[0].strip()
        match = re.fullmatch(r"([^<]*?)\s*<([^>]*)>(?:\s*([^<]*?)\s*<([^>]*)>)?", line)
        if not match or not match.group(1):
            continue
        name, email, old_name, old_email = match.groups()
        found[((old_name or "") if old_email else "", (old_email or email).lower())] = name
    return found


def last_author(repo: Repo, path: str) -> str:
    names = mailmap(repo)
    for oid in repo.first_parents(repo.head()):
        if path in repo.diff(oid):
            name = str(repo.commits[oid]["author_name"])
            email = repo.commits[oid]["author"].rsplit("<", 1)[1].split(">", 1)[0].lower()
            return names.get((name, email)) or names.get(("", email)) or name
    return ""


def main() -> None:
    repo = Repo(rt.workspace() / REPO)
    introduced, fixed = regression(repo)
    leak, leaked_file = secret(repo)
    commits = changelog(repo)
    rt.write_json(
        "report.json",
        {
            "regression": {"introduced_by": introduced, "fixed_by": fixed},
            "secret": {"commit": leak, "file": leaked_file},
            "changelog": {"from": OLD, "to": NEW, "commits": commits},
            "last_change": {"path": INVENTORY, "author": last_author(repo, INVENTORY)},
        },
    )
    if rt.partial_mode():
        return
    lines = [f"# Changelog\n\n## {NEW}\n"]
    lines += [f"- {repo.commits[oid]['subject']} ({oid[:10]})" for oid in commits]
    rt.write_text("CHANGELOG.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

"""Kit 8: git forensics.

A small shop library's git repository (`repo/`, its working tree at HEAD and its `.git` directory) with
generated history: a commit that breaks the order totals (bisectable with `scripts/check_totals.py`), an
API token committed to the settings and removed later, reverts, merged feature branches, rebased commits
and commit messages that claim fixes they did not make → a JSON report of what the history says (the
commit that introduced the regression and the one that fixed it, the commit and file that leaked the
token, the commits a changelog between two tags must list, who changed the inventory module last) and the
changelog itself, scored by deterministic checks on values computed from the generated history.

Why a real `.git` directory: the task base image installs `git` (the `text` layer of the image recipe in
`skill2env.sandbox.base_image`), and the bwrap sandbox runs the agent on that image's file system, so an
agent has `git log`, `git bisect run` and `git log -S` as anyone working on the repository would. The kit
writes the directory with the standard library (`gitobjects`: zlib-compressed loose objects, refs, packed
tags and an index with zeroed stat data), so building a task needs no git, and the scripts (reference
solver and naive baseline) read the objects themselves, so they run where git is missing too.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any, ClassVar

from skill2env.kits import checks
from skill2env.kits.base import Kit
from skill2env.kits.gitforensics.patterns import HISTORY, PATTERNS, TRANSFORMERS
from skill2env.kits.gitforensics.world import (
    CHECK,
    INVENTORY,
    LEGACY,
    NEW_TAG,
    OLD_TAG,
    SETTINGS,
    World,
    changelog,
    generate,
    last_author,
    regression,
    repository_files,
)
from skill2env.kits.spec import ChallengeSpec, Composition, Design, Item, Workspace
from skill2env.patterns.models import InformationLevel, Trait
from skill2env.rubric import CheckSpec

REPORT = "output/report.json"
CHANGELOG = "output/CHANGELOG.md"


class GitForensicsKit(Kit):
    name = "gitforensics"
    title = "Git history forensics"
    formats = ("git", "python", "markdown", "json")
    patterns = PATTERNS
    traits: ClassVar[Mapping[Trait, float]] = {
        Trait.SOURCE_CONTROL: 1.6,
        Trait.VERSION_HISTORY: 0.3,
        Trait.CODE_REPOSITORY: 0.1,
    }
    requires: ClassVar[Mapping[Trait, float]] = {Trait.SOURCE_CONTROL: 0.7}
    """More than running git: commits, branches, history the skill works with."""
    tool_patterns: ClassVar[Mapping[Trait, str]] = {
        Trait.SOURCE_CONTROL: "changelog_reflects_every_change",
        Trait.VERSION_HISTORY: "selective_revert",
        Trait.DEBUGGING: "claim_without_receipt",
        Trait.CODE_REPOSITORY: "claim_without_receipt",
    }
    starters = ("changelog_reflects_every_change", "claim_without_receipt", "persistent_redaction", "selective_revert")
    solver_module = "skill2env.kits.gitforensics.solver"
    naive_module = "skill2env.kits.gitforensics.naive"

    transformers = TRANSFORMERS

    def generate_world(self, seed: int, salt: int) -> World:
        return generate(seed, salt)

    def compose(self, seed: int, patterns: Mapping[str, int], salt: int) -> Composition:
        world, design = self.world(seed, patterns, salt)
        workspace = Workspace()
        for path, data in sorted(repository_files(world).items()):
            workspace.add(path, data, readable(path, data))
        composition = Composition(
            title="Answer questions from a repository's history and write the release changelog",
            goal=f"Work out from the shop repository's git history where the order-total regression came from, "
            f"which commit leaked an API token, what changed between {OLD_TAG} and {NEW_TAG}, and who last changed "
            "the inventory module; write the report and the changelog.",
            body=instruction_body(),
            workspace=workspace,
            facts=[],
            challenges=[],
            deliverables=[
                (REPORT, "json", "the answers about the history", 0.6),
                (CHANGELOG, "markdown", f"the changelog of {NEW_TAG} (one line per change since {OLD_TAG})", 0.4),
            ],
            items=[],
        )
        found = InformationLevel.DISCOVERABLE
        composition.fact("repo.history", "the repository's history", found, "refs/heads/main", location=HISTORY)
        composition.fact("repo.check", "the order-total check", found, "check_totals", location="repo/" + CHECK)
        composition.fact("repo.tags", "the release tags", found, NEW_TAG, location="repo/.git/packed-refs")
        composition.plant(design)
        for pattern_id, level in patterns.items():
            composition.challenges.append(
                ChallengeSpec(pattern_id, level, design.forms[pattern_id], design.facts_of(pattern_id))
            )
        composition.items = items(world, design, patterns)
        return composition


def readable(path: str, data: bytes) -> str:
    """What an agent reads out of a file: a loose object as git shows it, other files as text."""
    if "/.git/objects/" in path:
        return zlib.decompress(data).decode("utf-8", "replace")
    if path.endswith("/.git/index"):
        return ""
    return data.decode("utf-8", "replace")


def instruction_body() -> str:
    return f"""`repo/` is a clone of the shop library's repository (branch `main`, tags `{OLD_TAG}` and `{NEW_TAG}`).
`scripts/check_totals.py` checks the order totals (exit status 0 when they are right, 1 when not); at HEAD it fails.
Answer from the repository's history — the code and the commits, not only what commit messages say:

1. `{REPORT}`:
   `{{"regression": {{"introduced_by": "<commit>", "fixed_by": "<commit or null>"}},
   "secret": {{"commit": "<commit>", "file": "<path>"}}, "changelog": {{"from": "{OLD_TAG}", "to": "{NEW_TAG}",
   "commits": ["<commit>", ...]}}, "last_change": {{"path": "{INVENTORY}", "author": "<name>"}}}}` —
   every commit as its full 40-character id. `regression.introduced_by` is the commit whose check fails while
   its parents' pass; `regression.fixed_by` the commit on `main` after which the check passes again (null
   when it still fails at HEAD). `secret` is the commit that first put the payment API token (`API_TOKEN`)
   into the repository and the path of the file it put it in. `changelog.commits` are the changes of
   `{NEW_TAG}`: every commit reachable from `{NEW_TAG}` and not from `{OLD_TAG}`, merge commits aside, commits
   that change only the separately released package under `legacy/` aside, and a change reverted within the
   same range dropped together with its revert. `last_change.author` is the name of the
   author (not the committer) of the last commit on `main` that changed `{INVENTORY}`, as the repository's
   `.mailmap` names them today when it has one (what `git log --use-mailmap` shows).
2. `{CHANGELOG}`: a Markdown changelog of `{NEW_TAG}`, one bullet per change of `changelog.commits` holding its
   commit subject. It is published: it must not contain any secret (the API token included).
"""


def report_check(values: dict[str, Any]) -> CheckSpec:
    return CheckSpec(check="json_path_equals", params={"path": REPORT, "values": values, "tolerance": 0})


def items(world: World, design: Design, patterns: Mapping[str, int]) -> list[Item]:
    introduced, fixed = regression(world)
    leak = world.labels["leak"]
    commits = changelog(world)
    author = last_author(world, INVENTORY)
    subjects = [world.commits[oid].subject for oid in commits]
    history = ("repo.history",)

    def facts_of(pattern: str) -> tuple[str, ...]:
        return design.facts_of(pattern) or history

    def of(*pattern_ids: str) -> tuple[str, ...]:
        return tuple(p for p in pattern_ids if p in patterns)

    result = [
        Item(
            "report.regression",
            "report.json names the commit that broke the order totals and the one that fixed them (or null).",
            REPORT,
            report_check({"$.regression.introduced_by": introduced, "$.regression.fixed_by": fixed}),
            {"introduced_by": introduced, "fixed_by": fixed},
            ("repo.check", *facts_of("claim_without_receipt")),
            "The check run on every commit: the failing commit whose parents pass; HEAD's first-parent line.",
            patterns=of("claim_without_receipt"),
        ),
        Item(
            "report.secret",
            "report.json names the commit that leaked the API token and the file it was put in.",
            REPORT,
            report_check({"$.secret.commit": leak, "$.secret.file": SETTINGS}),
            {"commit": leak, "file": SETTINGS},
            facts_of("persistent_redaction"),
            "The first commit whose tree holds the token while its parents' do not.",
            patterns=of("persistent_redaction"),
        ),
        Item(
            "report.changelog",
            f"report.json lists exactly the changes of {NEW_TAG}.",
            REPORT,
            checks.json_value(REPORT, "$.changelog.commits", commits, tolerance=0, unordered=True),
            commits,
            ("repo.tags", *facts_of("changelog_reflects_every_change")),
            "Commits reachable from the new tag and not the old, merges aside, cancelled revert pairs dropped.",
            patterns=of("changelog_reflects_every_change", "selective_revert", "scope_distractor"),
        ),
        Item(
            "report.last_change",
            f"report.json names the author of the last change to {INVENTORY}.",
            REPORT,
            checks.json_value(REPORT, "$.last_change.author", author),
            author,
            (*facts_of("metadata_only_fact"), *design.facts_of("rename_propagation")),
            "HEAD's first-parent line walked back to the last commit whose tree changes the file; its author.",
            patterns=of("metadata_only_fact", "rename_propagation"),
        ),
        Item(
            "changelog.entries",
            f"CHANGELOG.md holds the subject of every change of {NEW_TAG}.",
            CHANGELOG,
            checks.text_contains(CHANGELOG, subjects),
            subjects,
            ("repo.tags", *facts_of("changelog_reflects_every_change")),
            "The subjects of the changelog's commits.",
            patterns=of("changelog_reflects_every_change"),
        ),
    ]
    if "selective_revert" in patterns:
        listed = set(commits)
        gone = [
            world.commits[oid].subject
            for oid in (world.labels["x"], world.labels["revert"])
            if oid not in listed and world.commits[oid].subject not in " ".join(subjects)
        ]
        result.append(
            Item(
                "changelog.reverts",
                "CHANGELOG.md leaves out a change reverted within the release and its revert.",
                CHANGELOG,
                absent_and_present(gone, subjects),
                {"absent": gone, "present": subjects},
                facts_of("selective_revert"),
                "The change and its revert cancel inside the range.",
                patterns=("selective_revert",),
            )
        )
    if "scope_distractor" in patterns:
        legacy = [
            commit.subject
            for commit in world.commits.values()
            if commit.changed and all(p.startswith(LEGACY) for p in commit.changed)
        ]
        result.append(
            Item(
                "changelog.scope",
                "CHANGELOG.md leaves out the commits that change only the legacy package.",
                CHANGELOG,
                absent_and_present(legacy, subjects),
                {"absent": legacy, "present": subjects},
                facts_of("scope_distractor"),
                "legacy/ is released on its own; a commit that changes only it is not the shop's change.",
                patterns=("scope_distractor",),
            )
        )
    if "persistent_redaction" in patterns:
        result.append(
            Item(
                "changelog.redacted",
                "CHANGELOG.md lists the release's changes and does not contain the API token.",
                CHANGELOG,
                absent_and_present([world.token], subjects),
                {"absent": "the token", "present": subjects},
                facts_of("persistent_redaction"),
                "A published changelog repeats no secret, even one a commit message quotes.",
                patterns=("persistent_redaction",),
            )
        )
    return result


def absent_and_present(absent: list[str], present: list[str]) -> CheckSpec:
    """The changelog holds every phrase of `present` and none of `absent` (case ignored)."""
    params = {"path": CHANGELOG, "contains": present, "absent": absent, "ignore_case": True}
    return CheckSpec(check="text_contains", params=params)


KIT = GitForensicsKit()

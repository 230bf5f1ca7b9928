"""Pattern transformers of the git-forensics kit: each adds designed steps to the history's plan.

Every transformer first draws whether its trap is benign this time (the trap's commits are there, but
placed so that the obvious reading of the log happens to be right): likely at intensity 1, less so at 2,
never at 3. Two draws come first from the pattern's own generator, at every intensity: the first decides
intensity 1, intensity 2 needs the second as well, so a raised intensity can only turn a benign draw
harmful, and a task that met two raises benign is less likely than one that met one (independent draws:
with one threshold the same low draw passed both raises, and the naive baseline's 20-seed full-credit
count stopped falling after the first round).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from skill2env.kits.gitforensics.world import (
    INVENTORY,
    LEGACY,
    PRICING,
    SETTINGS,
    Append,
    Person,
    Step,
    World,
    insert_after,
    insert_before,
    settings_source,
    step_of,
)
from skill2env.kits.spec import Design

Transformer = Callable[[World, int, random.Random, Design], None]
BENIGN_FIRST, BENIGN_SECOND = 0.75, 0.6
MOVED_SETTINGS = "config/payment.py"
CACHE = "src/shop/cache.py"
CACHE_SOURCE = b'"""A small cache of computed prices."""\n\n_PRICES: dict[str, int] = {}\n'
HISTORY = "repo/.git/"


def benign(rng: random.Random, level: int) -> bool:
    first, second = rng.random(), rng.random()
    return level < 3 and first < BENIGN_FIRST and (level < 2 or second < BENIGN_SECOND)


def claim_without_receipt(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    p = world.person
    insert_before(
        world.after,
        "last",
        Step("Fix rounding in order totals", p(), {PRICING: None}, label="fix",
             formula="order" if harmless else "line_round"),
    )  # fmt: skip
    if level >= 2:
        tidy = Step("Document the tax constant", p(), {PRICING: None})
        if harmless:
            insert_before(world.release, "regression", tidy)
        else:
            insert_after(world.release, "regression", tidy)
    if level == 3:
        step_of(world, "regression").subject = "Speed up order totals (no behaviour change)"
        insert_before(
            world.after, "last",
            Step("Fix tax regression for multi-line orders", p(), {PRICING: None}, formula="line_round"),
        )  # fmt: skip
    design.plant(
        "claim_without_receipt",
        "check.totals",
        "scripts/check_totals.py says whether a commit's order totals are right",
        "exit status 0 when every case matches",
        "repo/scripts/check_totals.py",
    )
    design.forms["claim_without_receipt"] = {
        1: "A later commit says it fixes the rounding of order totals; whether it did only the check script tells.",
        2: "As level 1, and a comment-only commit to pricing.py follows the commit that broke the totals.",
        3: "As level 2, the breaking commit claims no behaviour change and a second 'fix' fixes nothing.",
    }[level]


def persistent_redaction(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    p = world.person
    if not harmless:
        timeout = Step("Raise the payment API timeout", p(), {SETTINGS: settings_source(world.token, 30)})
        insert_after(world.release, "leak", timeout)
    if level >= 2:
        removal = step_of(world, "unleak")
        removal.subject = "Rotate credentials"
        if not harmless:
            at = next(n for n, s in enumerate(world.release) if s.label == "unleak")
            world.release.insert(
                at,
                Step(
                    "Move payment client settings into their own module",
                    p(),
                    {SETTINGS: None, MOVED_SETTINGS: settings_source(world.token, 30)},
                ),
            )
            removal.changes = {MOVED_SETTINGS: settings_source(None, 30, required=True)}
    if level == 3:
        world.token_in_body = True
        step_of(world, "leak").body = f"Staging token for now: {world.token}\nTo be moved to the environment."
    design.plant(
        "persistent_redaction",
        "history.token",
        "an API token was committed to the settings and removed later; it stays in the history",
        "API_TOKEN",
        HISTORY,
    )
    design.forms["persistent_redaction"] = {
        1: "The token stays through a later edit of the settings before its removal.",
        2: "As level 1, the settings file is moved before the token is removed, and the removal says only "
        "'Rotate credentials'.",
        3: "As level 2, and the leaking commit's message quotes the token, which no deliverable may repeat.",
    }[level]


def changelog_reflects_every_change(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    p = world.person
    backdate = 0 if level == 1 else 24 * 30
    side = [
        Step("Add CSV export of orders", p(), {"src/shop/export.py": Append("HEADER = 'sku,qty,total'")},
             backdate_hours=backdate),
        Step("Export order totals with tax", p(), {"src/shop/export.py": Append("WITH_TAX = True")},
             backdate_hours=backdate),
    ]  # fmt: skip
    if level >= 2:
        side.append(Step("Quote text fields in the CSV export", p(), {"src/shop/export.py": Append("QUOTE = '\"'")}))
    if harmless:
        insert_before(world.release, "tag-new", *side)
    else:
        fork = "leak" if level == 1 else "a2"
        merge = Step("Merge branch 'feature/export'", p(), side=side, fork=fork)
        insert_before(world.release, "tag-new", merge)
    if level == 3:
        later = [
            Step("Add returns ledger", p(), {"src/shop/returns.py": Append("RETURNS: list[str] = []")}),
            Step("Record return reasons", p(), {"src/shop/returns.py": Append("REASONS = ('damaged', 'late')")}),
        ]
        insert_before(world.after, "last", Step("Merge branch 'feature/returns'", p(), side=later, fork="tag-old"))
    design.plant(
        "changelog_reflects_every_change",
        "history.branches",
        "a commit's parents, not its date, place it in a release",
        "parent",
        HISTORY,
    )
    design.forms["changelog_reflects_every_change"] = {
        1: "A feature branch is merged into the release; its commits are off the first-parent line.",
        2: "As level 1, the branch forks before the old tag and its commits carry older author dates.",
        3: "As level 2, and a second branch with commits dated inside the release is merged after the new tag.",
    }[level]


def selective_revert(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    p = world.person
    change = Step("Add response cache for price lookups", p(), {CACHE: CACHE_SOURCE}, label="x")
    if level == 1:
        revert = Step(f'Revert "{change.subject}"', p(), {CACHE: None}, body="This reverts commit @x@.", label="revert")
    else:
        revert = Step("Back out the price cache for now", p(), {CACHE: None}, label="revert")
    insert_after(world.release, "leak", change)
    if harmless:
        insert_before(world.after, "last", revert)
    else:
        insert_before(world.release, "tag-new", revert)
    if level == 3:
        insert_before(world.release, "tag-new", Step("Bring back the price cache", p(), {CACHE: CACHE_SOURCE}))
        alerts = Step("Add stock alerts", p(), {"src/shop/alerts.py": b"THRESHOLD = 2\n"}, label="old")
        insert_before(world.before, "tag-old", alerts)
        insert_after(
            world.release, "leak",
            Step(f'Revert "{alerts.subject}"', p(), {"src/shop/alerts.py": None}, body="This reverts commit @old@."),
        )  # fmt: skip
    design.plant(
        "selective_revert",
        "history.revert",
        "a change reverted inside the same release leaves nothing to announce",
        "cache of computed prices",
        HISTORY,
    )
    design.forms["selective_revert"] = {
        1: "A change and its revert (git's own message) both sit inside the release.",
        2: "As level 1, but the revert's message does not say it is one; only the diff shows it.",
        3: "As level 2, the change is brought back later, and a revert of a change from before the old tag "
        "is itself a change of this release.",
    }[level]


def metadata_only_fact(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    last = step_of(world, "last")
    if level >= 2:
        last.committer = world.person(last.author)
    other = (last.committer or last.author) if level >= 2 else world.person(last.author)
    world.after.append(
        Step("Update the README's check instructions", last.author if harmless else other,
             {"README.md": Append("CI runs the check on every push.")}),
    )  # fmt: skip
    if level == 3:
        last.backdate_hours = 24 * 5
        insert_before(
            world.after, "last",
            Step("Treat negative stock as zero", world.person(last.author), {INVENTORY: Append("# negative: zero")}),
        )  # fmt: skip
    design.plant(
        "metadata_only_fact",
        "history.authors",
        "who changed a file is the commit's author, not its committer",
        "author",
        HISTORY,
    )
    design.forms["metadata_only_fact"] = {
        1: "The last commit is by someone else and does not touch the inventory module.",
        2: "As level 1, the last inventory change was committed (rebased) by the person who made the last commit.",
        3: "As level 2, with the last inventory change's author date older than an earlier inventory change's.",
    }[level]


def scope_distractor(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    p = world.person
    steps = [Step("Round legacy totals half up", p(), {LEGACY + "pricing_v0.py": Append("ROUNDING = 'half-up'")})]
    if level >= 2:
        steps.append(
            Step("pricing: tax table for the 0.x API", p(), {LEGACY + "tax_v0.py": Append("TAX_PERCENT = 19")})
        )
    if level == 3:
        shared: dict[str, bytes | Append | None] = {
            LEGACY + "tax_v0.py": Append("from shop.pricing import TAX_PERCENT"),
            "docs/usage.md": Append("Legacy pricing reads the same tax constant."),
        }
        steps.append(Step("Share the tax constant with the legacy package", p(), shared))
    if harmless:
        insert_before(world.after, "last", *steps)
    else:
        insert_before(world.release, "tag-new", *steps)
    design.plant(
        "scope_distractor",
        "repo.legacy",
        "legacy/ is another package of the repository, released on its own",
        "released on its own",
        "repo/" + LEGACY + "README.md",
    )
    design.forms["scope_distractor"] = {
        1: "A commit inside the release changes only the legacy package, which is released on its own.",
        2: "As level 1, with a second one whose subject names pricing.",
        3: "As level 2, and a commit that changes the legacy package and the shop's docs, which belongs to the "
        "changelog.",
    }[level]


RENAMED = (("Sam Ortiz", "Samira Ortiz"), ("Lee Wong", "Leah Wong"), ("Chris Berg", "Christine Berg"))


def rename_propagation(world: World, level: int, rng: random.Random, design: Design) -> None:
    harmless = benign(rng, level)
    old, new = rng.choice(RENAMED)
    handle = new.split()[0].lower()
    before = Person(old, f"{old.split()[0].lower()}@shop.example")
    last = step_of(world, "last")
    if not harmless:
        last.author = before
    else:  # the renamed person made an earlier inventory change; the last one is someone else's
        insert_before(world.after, "last", Step("Clamp reorder thresholds", before, {INVENTORY: Append("# clamp")}))
    if level == 1:
        line, now = f"{new} <{before.email}>", before.email
    elif level == 2:
        line, now = f"{new} <{handle}@shop.example> <{before.email}>", before.email
    else:  # the map names the person by their new address only; the commits carry the old one
        line, now = f"{new} <{handle}@shop.example> {old} <{before.email}>", before.email
    world.mailmap[now] = new
    mailmap = f"# Canonical names and addresses of authors (git log --use-mailmap).\n{line}\n".encode()
    insert_before(
        world.after, "last", Step("Add a .mailmap for renamed authors", world.person(), {".mailmap": mailmap})
    )
    design.plant(
        "rename_propagation", "repo.mailmap", "an author's name today comes from .mailmap", new, "repo/.mailmap"
    )
    design.forms["rename_propagation"] = {
        1: "The last author of the inventory module has changed their name; .mailmap gives the name today.",
        2: "As level 1, the map line also changes the address (name, new address, old address).",
        3: "As level 2, the map line names the old identity in full (name and address) after the new one.",
    }[level]


TRANSFORMERS: dict[str, Transformer] = {
    "claim_without_receipt": claim_without_receipt,
    "persistent_redaction": persistent_redaction,
    "changelog_reflects_every_change": changelog_reflects_every_change,
    "selective_revert": selective_revert,
    "rename_propagation": rename_propagation,  # before metadata_only_fact, which reads the last author
    "metadata_only_fact": metadata_only_fact,
    "scope_distractor": scope_distractor,
}
PATTERNS = tuple(TRANSFORMERS)

"""The git-forensics world: a small shop library's history, planned as steps and realized as commits.

The plan has three stretches: before tag v1.0.0, the release stretch up to tag v1.1.0, and the work after
it up to HEAD. The base plan holds a regression (a commit that breaks `scripts/check_totals.py`), an API
token committed to the settings and removed later, and a last change to `src/shop/inventory.py`; pattern
transformers (`patterns.py`) add side branches, reverts, misleading fixes and rewrites to the plan before
it is realized.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from skill2env.kits.gitforensics.gitobjects import ObjectStore, Person, git_dir
from skill2env.kits.spec import seeded

PEOPLE = (
    Person("Mira Okafor", "mira@shop.example"),
    Person("Tomas Lindqvist", "tomas@shop.example"),
    Person("Aiko Tanaka", "aiko@shop.example"),
    Person("Rafael Souza", "rafael@shop.example"),
    Person("Greta Novak", "greta@shop.example"),
    Person("Dev Patel", "dev@shop.example"),
)
PRICING = "src/shop/pricing.py"
INVENTORY = "src/shop/inventory.py"
SETTINGS = "config/settings.py"
CHECK = "scripts/check_totals.py"
LEGACY = "legacy/"
"""Another package in the same repository, released on its own: commits that change only it are not the shop's."""
OLD_TAG, NEW_TAG = "v1.0.0", "v1.1.0"
BRANCH = "main"
TAX_PERCENT = 20
FIXED_CASE = [(3, 199), (1, 1250), (2, 333)]

Tree = dict[str, bytes]


def good_total(lines: list[tuple[int, int]]) -> int:
    subtotal = sum(q * u for q, u in lines)
    return subtotal + (subtotal * TAX_PERCENT + 50) // 100


FORMULAS = {
    "order": "    return subtotal + (subtotal * TAX_PERCENT + 50) // 100",
    "line": "    return sum(q * u + (q * u * TAX_PERCENT) // 100 for q, u in lines)",
    "line_round": "    return sum(q * u + (q * u * TAX_PERCENT + 50) // 100 for q, u in lines)",
}
"""The tax formula of order_total: `order` is right, the others break the check."""


def pricing_source(formula: str, notes: int) -> bytes:
    comments = "".join(f"# Note {n + 1}: amounts are integer cents; never use floats here.\n" for n in range(notes))
    return (
        '"""Order totals in integer cents."""\n\n'
        f"{comments}TAX_PERCENT = {TAX_PERCENT}\n\n\n"
        "def line_total(qty: int, unit_cents: int) -> int:\n    return qty * unit_cents\n\n\n"
        "def order_total(lines: list[tuple[int, int]]) -> int:\n"
        '    """Subtotal plus tax, the tax rounded half up on the whole order."""\n'
        "    subtotal = sum(line_total(q, u) for q, u in lines)\n"
        f"{FORMULAS[formula]}\n"
    ).encode()


def check_source(cases: list[list[tuple[int, int]]]) -> bytes:
    shown = ",\n".join(f"    ({lines!r}, {good_total(lines)})" for lines in cases)
    return (
        '"""Checks order totals against known-good figures: exit status 0 when every case matches, 1 otherwise.\n\n'
        "Usable with `git bisect run python3 scripts/check_totals.py`.\n"
        '"""\n\n'
        "import sys\nfrom pathlib import Path\n\n"
        'sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))\n\n'
        "from shop.pricing import order_total  # noqa: E402\n\n"
        f"CASES = [\n{shown},\n]\n\n"
        "failed = [(lines, want, order_total(lines)) for lines, want in CASES if order_total(lines) != want]\n"
        "for lines, want, got in failed:\n"
        '    print(f"order_total({lines}) = {got}, expected {want}")\n'
        'print("FAIL" if failed else "OK")\n'
        "sys.exit(1 if failed else 0)\n"
    ).encode()


def settings_source(token: str | None, timeout: int = 10, *, required: bool = False) -> bytes:
    """The settings module: the token inline, read from the environment, or (`required`) demanded from it."""
    value = f'"{token}"' if token else 'os.environ.get("SHOP_API_TOKEN", "")'
    if required:
        value = 'os.environ["SHOP_API_TOKEN"]'
    return (
        '"""Settings of the payment API client."""\n\nimport os\n\n'
        'API_URL = "https://payments.shop.example/v2"\n'
        f"API_TIMEOUT = {timeout}\n"
        f"API_TOKEN = {value}\n"
    ).encode()


@dataclass(frozen=True)
class Append:
    """Append a line to a file (creating it)."""

    line: str


@dataclass
class Step:
    """One planned commit (or, with `side`, a merge of a branch of steps)."""

    subject: str
    author: Person
    changes: dict[str, bytes | Append | None] = field(default_factory=dict)
    body: str = ""
    committer: Person | None = None
    label: str = ""
    side: list[Step] = field(default_factory=list)
    fork: str = ""
    """For a merge: the label of the commit its branch starts from."""
    formula: str | None = None
    """The pricing formula after this step (None: unchanged)."""
    backdate_hours: int = 0
    """Author date this many hours before the commit date (a rebased or amended commit)."""


@dataclass
class Realized:
    oid: str
    subject: str
    body: str
    author: Person
    committer: Person
    parents: list[str]
    tree: Tree
    label: str
    changed: dict[str, bytes | None]


@dataclass
class World:
    seed: int
    rng: random.Random
    token: str
    cases: list[list[tuple[int, int]]]
    before: list[Step] = field(default_factory=list)
    release: list[Step] = field(default_factory=list)
    after: list[Step] = field(default_factory=list)
    regression: Step | None = None
    commits: dict[str, Realized] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    labels: dict[str, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    head: str = ""
    cancelled: set[str] = field(default_factory=set)
    """Labels of step pairs (a change and its revert) that cancel when both sit in the release range."""
    token_in_body: bool = False
    mailmap: dict[str, str] = field(default_factory=dict)
    """Email a commit records → the name `.mailmap` gives its author now."""

    def person(self, *avoid: Person) -> Person:
        return self.rng.choice([p for p in PEOPLE if p not in avoid])


def generate(seed: int, salt: int) -> World:
    rng = seeded("gitforensics", seed, salt)
    token = "sk_live_" + "".join(rng.choice("0123456789abcdef") for _ in range(24))
    cases = [FIXED_CASE] + [
        [(rng.randint(1, 5), rng.randint(99, 4999)) for _ in range(rng.randint(1, 4))] for _ in range(3)
    ]
    world = World(seed, rng, token, cases)
    p = world.person
    world.before = [
        Step(
            "Initial import of the shop library",
            p(),
            {
                "README.md": b"# shop\n\nOrder totals and inventory helpers.\n\n"
                b"Run `python3 scripts/check_totals.py` to check order totals (exit 0 when they are right).\n",
                "src/shop/__init__.py": b'__version__ = "0.9.0"\n',
                PRICING: pricing_source("order", 0),
                INVENTORY: b'"""Stock levels."""\n\n\ndef in_stock(levels: dict[str, int], sku: str) -> bool:\n'
                b"    return levels.get(sku, 0) > 0\n",
                CHECK: check_source(cases),
                SETTINGS: settings_source(None),
                "docs/usage.md": b"# Usage\n\n",
                LEGACY + "README.md": b"# shop-legacy\n\nThe 0.x pricing API, released on its own.\n",
            },
            label="root",
            formula="order",
        ),
        Step("Add usage notes for order totals", p(), {"docs/usage.md": Append("Totals are integer cents.")}),
        Step("Add reorder threshold helper", p(), {INVENTORY: Append(_helper("needs_reorder", 5))}, label="a2"),
        Step("Release 1.0.0", p(), {"src/shop/__init__.py": b'__version__ = "1.0.0"\n'}, label="tag-old"),
    ]
    world.regression = Step(
        "Compute tax per order line",
        p(),
        {PRICING: None},
        label="regression",
        formula="line",
    )
    world.release = [
        Step("Document the inventory helpers", p(), {"docs/usage.md": Append("See inventory.in_stock.")}),
        Step(
            "Read the payment API token from the settings",
            p(),
            {SETTINGS: settings_source(token)},
            label="leak",
        ),
        Step("Add low-stock report helper", p(), {INVENTORY: Append(_helper("low_stock", 3))}),
        world.regression,
        Step(
            f"Remove hard-coded API token from {SETTINGS}",
            p(),
            {SETTINGS: settings_source(None, required=True)},
            label="unleak",
        ),
        Step("Release 1.1.0", p(), {"src/shop/__init__.py": b'__version__ = "1.1.0"\n'}, label="tag-new"),
    ]
    world.after = [
        Step("Add shipping notes to the usage guide", p(), {"docs/usage.md": Append("Shipping is not taxed.")}),
        Step("Count reserved stock in in_stock", p(), {INVENTORY: Append(_helper("reserved", 1))}, label="last"),
    ]
    return world


def _helper(name: str, value: int) -> str:
    return f"\n\ndef {name}(levels: dict[str, int], sku: str) -> bool:\n    return levels.get(sku, 0) < {value}"


def index_of(steps: list[Step], label: str) -> int:
    return next(n for n, s in enumerate(steps) if s.label == label)


def step_of(world: World, label: str) -> Step:
    return next(s for s in (*world.before, *world.release, *world.after) if s.label == label)


def insert_before(steps: list[Step], label: str, *new: Step) -> None:
    at = index_of(steps, label)
    steps[at:at] = new


def insert_after(steps: list[Step], label: str, *new: Step) -> None:
    at = index_of(steps, label) + 1
    steps[at:at] = new


# -- realization ---------------------------------------------------------------------------------


def realize(world: World) -> tuple[ObjectStore, Tree]:
    """Commits from the plan (in order, side branches at their fork), tags, HEAD; returns the store and
    HEAD's tree."""
    store = ObjectStore()
    clock = [1_704_700_800 + world.seed % 97 * 86_400]  # early 2024, seeded
    formula = ["order"]
    notes = [0]
    tip: list[str] = []

    def apply(base: Tree, step: Step) -> tuple[Tree, dict[str, bytes | None]]:
        tree = dict(base)
        changed: dict[str, bytes | None] = {}
        for path, change in step.changes.items():
            value: bytes | None
            if path == PRICING:  # the formula decides; a step without one adds a comment line
                if not step.formula:
                    notes[0] += 1
                value = pricing_source(formula[0], notes[0])
            elif isinstance(change, Append):
                value = tree.get(path, b"") + change.line.encode() + b"\n"
            else:
                value = change
            if value is None:
                tree.pop(path, None)
            else:
                tree[path] = value
            changed[path] = value
        return tree, changed

    def commit(step: Step, parents: list[str], tree: Tree, changed: dict[str, bytes | None]) -> str:
        clock[0] += world.rng.randint(2, 30) * 3600 + world.rng.randint(0, 3599)
        when = clock[0]
        author = step.author.stamp(when - step.backdate_hours * 3600, "+0100")
        committer = (step.committer or step.author).stamp(when, "+0100")
        body = step.body
        for label, known in world.labels.items():
            body = body.replace(f"@{label}@", known)
        message = step.subject + ("\n\n" + body if body else "")
        oid = store.commit(store.tree(tree), parents, author, committer, message)
        world.commits[oid] = Realized(
            oid, step.subject, body, step.author, step.committer or step.author, parents, tree,
            step.label, changed,
        )  # fmt: skip
        world.order.append(oid)
        if step.label:
            world.labels[step.label] = oid
        return oid

    def run(step: Step, parent: str | None) -> str:
        base = world.commits[parent].tree if parent else {}
        if step.side:
            fork = world.labels[step.fork]
            side_tip = fork
            for inner in step.side:
                side_tip = run(inner, side_tip)
            side_tree = world.commits[side_tip].tree
            fork_tree = world.commits[fork].tree
            tree = dict(base)
            changed: dict[str, bytes | None] = {}
            for path in set(side_tree) | set(fork_tree):
                if side_tree.get(path) != fork_tree.get(path):
                    if path in side_tree:
                        tree[path] = side_tree[path]
                    else:
                        tree.pop(path, None)
                    changed[path] = side_tree.get(path)
            return commit(step, [parent or fork, side_tip], tree, changed)
        if step.formula:
            formula[0] = step.formula
        tree, changed = apply(base, step)
        return commit(step, [parent] if parent else [], tree, changed)

    for stretch, tag in ((world.before, OLD_TAG), (world.release, NEW_TAG), (world.after, "")):
        for step in stretch:
            tip.append(run(step, tip[-1] if tip else None))
        if tag:
            world.tags[tag] = tip[-1]
    world.head = tip[-1]
    return store, world.commits[world.head].tree


def repository_files(world: World) -> dict[str, bytes]:
    """Workspace files under `repo/`: the working tree at HEAD and its `.git` directory."""
    store, tree = realize(world)
    files = {f"repo/{path}": data for path, data in tree.items()}
    meta = git_dir(store, BRANCH, world.head, world.tags, tree)
    files.update({f"repo/.git/{path}": data for path, data in meta.items()})
    return files


# -- ground truth --------------------------------------------------------------------------------


def ancestors(world: World, oid: str) -> set[str]:
    seen: set[str] = set()
    stack = [oid]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(world.commits[current].parents)
    return seen


def changelog(world: World) -> list[str]:
    """Non-merge commits reachable from the new tag and not from the old one that change the shop (not only
    the legacy package), less cancelled pairs."""
    span = ancestors(world, world.tags[NEW_TAG]) - ancestors(world, world.tags[OLD_TAG])
    span = {oid for oid in span if not all(p.startswith(LEGACY) for p in world.commits[oid].changed)}
    dropped: set[str] = set()
    for first, second in _pairs(world):
        if first in span and second in span:
            dropped |= {first, second}
    return [oid for oid in world.order if oid in span and len(world.commits[oid].parents) < 2 and oid not in dropped]


def _pairs(world: World) -> list[tuple[str, str]]:
    known = world.labels
    return [(known[a], known[b]) for a, b in (("x", "revert"),) if a in known and b in known]


def broken(world: World, oid: str) -> bool:
    """Whether the commit's tree fails the check (its order_total is not the right formula)."""
    return FORMULAS["order"].encode() not in world.commits[oid].tree.get(PRICING, b"")


def regression(world: World) -> tuple[str, str | None]:
    """The commit that fails the check while its parents pass, and the commit on HEAD's first-parent line
    that made it pass again (None: HEAD still fails)."""
    introduced = [
        oid
        for oid in world.order
        if broken(world, oid) and world.commits[oid].parents
        and not any(broken(world, p) for p in world.commits[oid].parents)
    ]  # fmt: skip
    if len(introduced) != 1:
        raise ValueError(f"the plan introduces the regression {len(introduced)} times")
    fixed, oid = None, world.head
    if not broken(world, oid):
        while world.commits[oid].parents:
            if broken(world, world.commits[oid].parents[0]):
                fixed = oid
                break
            oid = world.commits[oid].parents[0]
    return introduced[0], fixed


def last_author(world: World, path: str) -> str:
    """The author of the last commit on HEAD's first-parent line that changed `path`, as `.mailmap` names them."""
    oid = world.head
    while True:
        commit = world.commits[oid]
        if commit.parents and commit.tree.get(path) != world.commits[commit.parents[0]].tree.get(path):
            return world.mailmap.get(commit.author.email, commit.author.name)
        oid = commit.parents[0]

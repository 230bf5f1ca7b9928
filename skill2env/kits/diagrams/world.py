"""The diagrams world: a team process described in a Markdown runbook, and the process's existing
Excalidraw scene with the lint report of the team's diagram linter.

The runbook is held as written (`Step`s with their numbers, kinds, branches and written form, then the
change notes); `expected_graph` applies the notes to it and keeps what is reachable from step 1, which
is the flowchart the rubric expects. The scene is held as element objects (`El`); the `expected_*`
report functions read them with the reference rules (deleted elements do not count, a reference to an
id several live elements share names the one that lists the referrer among its bound elements).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from skill2env.kits.spec import seeded

SHAPE_OF = {"start": "ellipse", "end": "ellipse", "step": "rectangle", "decision": "diamond"}
SHAPES = ("rectangle", "diamond", "ellipse")
THEMES: tuple[Mapping[str, Any], ...] = (
    {
        "process": "Refund request handling",
        "slug": "refunds",
        "team": "Payments operations",
        "S": "Refund request received",
        "A": ("Log the request", "Open a refund ticket"),
        "B": ("Look up the order", "Find the original order"),
        "D1": "Order eligible?",
        "C": ("Check the payment method", "Confirm the payment method"),
        "E": ("Calculate the refund amount", "Work out the refund amount"),
        "D2": "Amount under the approval limit?",
        "G": "Get a supervisor's approval",
        "F": ("Issue the refund", "Send the refund"),
        "OK": "Refund completed",
        "R": ("Tell the customer why it is declined", "Send the decline letter"),
        "NO": "Request declined",
        "relabel": (
            "Record the request in the CRM",
            "Pull the order record",
            "Verify the card on file",
            "Draft the decline notice",
        ),
        "DC": (
            "Which channel?",
            ("web", "phone", "store"),
            ("Refund through the web shop", "Refund by phone agent", "Refund at the till"),
        ),
        "DL": "Refund accepted by the bank?",
        "appendix": (
            "Partner return handling",
            "Partner team",
            ("Partner return received", "Check the partner contract", "Credit the partner", "Return closed"),
        ),
    },
    {
        "process": "New hire onboarding",
        "slug": "onboarding",
        "team": "People operations",
        "S": "Offer signed",
        "A": ("Create the employee record", "Add the hire to the HR system"),
        "B": ("Order the laptop", "Request the equipment"),
        "D1": "Background check passed?",
        "C": ("Create the accounts", "Set up the logins"),
        "E": ("Assign a buddy", "Pick an onboarding buddy"),
        "D2": "Remote hire?",
        "G": "Book the office desk",
        "F": ("Run the first-day session", "Hold the welcome session"),
        "OK": "Hire onboarded",
        "R": ("Withdraw the offer", "Send the withdrawal letter"),
        "NO": "Onboarding stopped",
        "relabel": ("Open the HR case", "Ship the equipment kit", "Provision the accounts", "Notify legal"),
        "DC": (
            "Which department?",
            ("engineering", "sales", "support"),
            ("Engineering setup", "Sales setup", "Support setup"),
        ),
        "DL": "Laptop delivered?",
        "appendix": (
            "Contractor onboarding",
            "Vendor management",
            ("Contract received", "Check the vendor agreement", "Grant guest access", "Contractor ready"),
        ),
    },
    {
        "process": "Incident escalation",
        "slug": "escalation",
        "team": "Site reliability",
        "S": "Alert fired",
        "A": ("Acknowledge the alert", "Take the page"),
        "B": ("Check the dashboards", "Look at the service graphs"),
        "D1": "Customer impact?",
        "C": ("Open an incident channel", "Start the incident room"),
        "E": ("Name an incident lead", "Assign the incident commander"),
        "D2": "Fix known?",
        "G": "Page the owning team",
        "F": ("Apply the fix", "Roll out the mitigation"),
        "OK": "Incident resolved",
        "R": ("Note it in the on-call log", "File a low-priority ticket"),
        "NO": "Alert closed",
        "relabel": ("Confirm the page", "Review the error budget", "Open a bridge call", "Snooze the alert"),
        "DC": (
            "Which severity?",
            ("sev1", "sev2", "sev3"),
            ("Notify the executives", "Notify the product owner", "Notify the team channel"),
        ),
        "DL": "Error rate back to normal?",
        "appendix": (
            "Vendor outage handling",
            "Vendor management",
            ("Vendor status page red", "Check the vendor contract", "Open a vendor case", "Vendor case closed"),
        ),
    },
    {
        "process": "Purchase order approval",
        "slug": "purchasing",
        "team": "Procurement",
        "S": "Purchase request submitted",
        "A": ("Check the request form", "Review the request form"),
        "B": ("Match the budget line", "Find the budget line"),
        "D1": "Within budget?",
        "C": ("Choose the supplier", "Select a supplier"),
        "E": ("Get the quote", "Request a quotation"),
        "D2": "Supplier already approved?",
        "G": "Run the supplier check",
        "F": ("Raise the purchase order", "Issue the purchase order"),
        "OK": "Order placed",
        "R": ("Return the request to the requester", "Send the request back"),
        "NO": "Request rejected",
        "relabel": (
            "Validate the cost centre",
            "Confirm the budget owner",
            "Shortlist the suppliers",
            "Explain the rejection",
        ),
        "DC": (
            "Which category?",
            ("goods", "services", "software"),
            ("Goods receiving plan", "Services statement of work", "Software licence review"),
        ),
        "DL": "Supplier confirmed the order?",
        "appendix": (
            "Expense claims",
            "Finance",
            ("Expense claim filed", "Check the receipts", "Pay the claim", "Claim closed"),
        ),
    },
)


@dataclass
class Step:
    num: int
    label: str
    kind: str
    """start, step, decision or end."""
    branches: list[tuple[str, int]]
    """(branch label, target step number); '' for a plain next step."""
    form: str = "marked"
    """How a decision is written: `marked` ('(decision) Yes: step 5.'), `yesno`, `cases` or `loop` (prose)."""
    appendix: bool = False
    numbered: bool = True
    """An appendix step written as a numbered step (False: as a bullet)."""


@dataclass
class Note:
    kind: str
    """relabel, repoint, drop or review (no change)."""
    step: int
    date: str
    label: str = ""
    """relabel: the new label; repoint: the branch whose target changes."""
    target: int = 0
    """repoint: the new target; drop: the step the predecessor continues at."""
    pred: int = 0
    old: str = ""


@dataclass
class El:
    """One element of an Excalidraw scene."""

    id: str
    type: str
    label: str = ""
    """text: its text."""
    container: str | None = None
    start: str | None = None
    end: str | None = None
    bound: list[str] = field(default_factory=list)
    """Ids listed in the element's boundElements."""
    deleted: bool = False
    updated: int = 0
    x: int = 0
    y: int = 0


@dataclass
class Scene:
    path: str
    elements: list[El]
    start: str
    """The id of the start ellipse."""
    name: str = ""


@dataclass
class World:
    seed: int
    process: str
    slug: str
    team: str
    theme: Mapping[str, Any]
    steps: list[Step]
    notes: list[Note]
    scene: Scene
    keys: dict[str, int]
    """Skeleton key (S, A, B, D1, ...) → step number."""
    scene_nodes: dict[int, str]
    """Step number → the id of its shape in the scene."""
    cut: int
    """The step whose only incoming arrow in the scene is dangling."""
    unlabeled: int
    revised: datetime
    appendix_title: str = ""
    appendix_team: str = ""
    decoy: Scene | None = None
    lint_stale: int = 0
    """0: the lint report is current; 1: it names the scene's older time stamp; 2: only its own time."""
    lint_dangling: list[str] = field(default_factory=list)
    lint_at: datetime | None = None
    drawn: list[Step] = field(default_factory=list)
    """The steps as the scene and its Mermaid source drew them (before any pattern)."""
    levels: dict[str, int] = field(default_factory=dict)
    harmful: set[str] = field(default_factory=set)

    def step(self, num: int) -> Step:
        return next(s for s in self.steps if s.num == num)

    @property
    def diagram(self) -> str:
        return self.scene.path


def epoch_ms(moment: datetime) -> int:
    """Milliseconds since the epoch of a wall-clock time read as UTC (the same on every machine)."""
    return int(moment.replace(tzinfo=UTC).timestamp() * 1000)


def ident(rng: random.Random) -> str:
    return "".join(rng.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(10))


def pick(rng: random.Random, value: object) -> str:
    return rng.choice(value) if isinstance(value, tuple) else str(value)


SKELETON = (
    ("S", "start", (("", "A"),)),
    ("A", "step", (("", "B"),)),
    ("B", "step", (("", "D1"),)),
    ("D1", "decision", (("yes", "C"), ("no", "R"))),
    ("C", "step", (("", "E"),)),
    ("E", "step", (("", "D2"),)),
    ("D2", "decision", (("yes", "F"), ("no", "G"))),
    ("G", "step", (("", "F"),)),
    ("F", "step", (("", "OK"),)),
    ("OK", "end", ()),
    ("R", "step", (("", "NO"),)),
    ("NO", "end", ()),
)


def generate(seed: int, salt: int) -> World:
    rng = seeded("diagrams", seed, salt)
    theme = THEMES[seed % len(THEMES)]
    keys = {key: n + 1 for n, (key, _, _) in enumerate(SKELETON)}
    steps = [
        Step(keys[key], pick(rng, theme[key]), kind, [(label, keys[target]) for label, target in branches])
        for key, kind, branches in SKELETON
    ]
    revised = datetime(2026, rng.randint(2, 9), rng.randint(1, 27), rng.randint(8, 17), rng.randint(0, 59))
    world = World(
        seed=seed, process=str(theme["process"]), slug=str(theme["slug"]), team=str(theme["team"]), theme=theme,
        steps=steps, notes=[], scene=Scene(f"diagrams/{theme['slug']}.excalidraw", [], ""), keys=keys,
        scene_nodes={}, cut=keys[rng.choice(("C", "G", "R"))], unlabeled=keys[rng.choice(("A", "B", "E"))],
        revised=revised,
    )  # fmt: skip
    world.drawn = [Step(s.num, s.label, s.kind, list(s.branches)) for s in steps]
    world.scene = draw_scene(world, rng, world.scene.path, world.cut, world.unlabeled, nodes=world.scene_nodes)
    pasted = El(ident(rng), "text", "Owner: " + world.team, updated=latest(world.scene), x=40, y=20)
    world.scene.elements += [pasted, El(pasted.id, "text", pasted.label, updated=pasted.updated, x=40, y=640)]
    world.lint_at = revised + timedelta(minutes=rng.randint(5, 90))
    return world


# -- the scene -------------------------------------------------------------------------------------


def draw_scene(world: World, rng: random.Random, path: str, cut: int, unlabeled: int,
               nodes: dict[int, str] | None = None) -> Scene:  # fmt: skip
    """The process as drawn before the runbook's later changes: every step a labelled shape, every
    branch a bound arrow, except that the arrow into `cut` lost its end binding and the shape of
    `unlabeled` has no text."""
    nodes = {} if nodes is None else nodes
    base = epoch_ms(world.revised) - rng.randint(3, 30) * 86_400_000
    elements: list[El] = []
    for n, step in enumerate(s for s in world.steps if not s.appendix):
        shape = El(ident(rng), SHAPE_OF[step.kind], x=200 + 260 * (n % 3), y=80 + 140 * (n // 3),
                   updated=base + rng.randint(0, 86_400_000))  # fmt: skip
        nodes[step.num] = shape.id
        elements.append(shape)
        if step.num != unlabeled:
            text = El(ident(rng), "text", step.label, container=shape.id, updated=shape.updated)
            shape.bound.append(text.id)
            elements.append(text)
    by_id = {e.id: e for e in elements}
    for step in (s for s in world.steps if not s.appendix):
        for label, target in step.branches:
            arrow = El(ident(rng), "arrow", start=nodes[step.num], end=nodes[target],
                       updated=base + rng.randint(0, 86_400_000))  # fmt: skip
            if target == cut:
                arrow.end = None
            else:
                by_id[nodes[target]].bound.append(arrow.id)
            by_id[nodes[step.num]].bound.append(arrow.id)
            elements.append(arrow)
            if label:
                text = El(ident(rng), "text", label, container=arrow.id, updated=arrow.updated)
                arrow.bound.append(text.id)
                elements.append(text)
    return Scene(path, elements, nodes[1])


def latest(scene: Scene) -> int:
    return max(e.updated for e in scene.elements)


def live(scene: Scene) -> list[El]:
    return [e for e in scene.elements if not e.deleted]


def resolve(scene: Scene, ref: str | None, referrer: str) -> El | None:
    """The live element `ref` names: the only one with that id, or the one that lists `referrer`."""
    found = [e for e in live(scene) if e.id == ref]
    if len(found) > 1:
        found = [e for e in found if referrer in e.bound]
    return found[0] if len(found) == 1 else None


def shapes(scene: Scene) -> list[El]:
    return [e for e in live(scene) if e.type in SHAPES]


def label_of(scene: Scene, shape: El) -> str:
    texts = [t for t in live(scene) if t.type == "text" and t.container == shape.id]
    texts = [t for t in texts if resolve(scene, t.container, t.id) is shape]
    return texts[0].label if texts else ""


def arrow_ends(scene: Scene, arrow: El) -> tuple[El | None, El | None]:
    start, end = resolve(scene, arrow.start, arrow.id), resolve(scene, arrow.end, arrow.id)
    return (start if start and start.type in SHAPES else None, end if end and end.type in SHAPES else None)


def expected_dangling(scene: Scene) -> list[str]:
    arrows = [e for e in live(scene) if e.type == "arrow"]
    return sorted(a.id for a in arrows if None in arrow_ends(scene, a))


def expected_unlabeled(scene: Scene) -> list[str]:
    return sorted(s.id for s in shapes(scene) if not label_of(scene, s))


def expected_unreachable(scene: Scene) -> list[str]:
    seen: set[int] = set()
    start = next((s for s in shapes(scene) if s.id == scene.start), None)
    frontier = [start] if start else []
    arrows = [e for e in live(scene) if e.type == "arrow"]
    while frontier:
        shape = frontier.pop()
        if id(shape) in seen:
            continue
        seen.add(id(shape))
        for arrow in arrows:
            begin, end = arrow_ends(scene, arrow)
            if begin is shape and end is not None:
                frontier.append(end)
    return sorted(label_of(scene, s) for s in shapes(scene) if id(s) not in seen and label_of(scene, s))


def expected_duplicates(scene: Scene) -> list[str]:
    ids = [e.id for e in live(scene)]
    return sorted({i for i in ids if ids.count(i) > 1})


def expected_report(world: World) -> dict[str, list[str]]:
    scene = world.scene
    return {
        "dangling_arrows": expected_dangling(scene),
        "unlabeled_shapes": expected_unlabeled(scene),
        "unreachable": expected_unreachable(scene),
        "duplicate_ids": expected_duplicates(scene),
    }


# -- the process graph -----------------------------------------------------------------------------


def current_steps(world: World) -> dict[int, Step]:
    """The steps with every change note applied, in order."""
    steps = {s.num: Step(s.num, s.label, s.kind, list(s.branches), s.form, s.appendix) for s in world.steps}
    for note in world.notes:
        step = steps[note.step]
        if note.kind == "relabel":
            step.label = note.label
        elif note.kind == "repoint":
            step.branches = [(b, note.target if b == note.label else t) for b, t in step.branches]
        elif note.kind == "drop":
            pred = steps[note.pred]
            pred.branches = [(b, note.target if t == note.step else t) for b, t in pred.branches]
    return steps


def expected_graph(world: World) -> tuple[dict[str, str], list[list[str]]]:
    """The flowchart: label → shape of every step reachable from step 1, and [from, to, branch] edges."""
    steps = current_steps(world)
    seen: list[int] = []
    frontier = [1]
    while frontier:
        num = frontier.pop(0)
        if num in seen:
            continue
        seen.append(num)
        frontier += [t for _, t in steps[num].branches]
    nodes = {steps[n].label: SHAPE_OF[steps[n].kind] for n in seen}
    edges = sorted([steps[n].label, steps[t].label, b] for n in seen for b, t in steps[n].branches)
    return nodes, edges


def add_step(world: World, label: str, kind: str, branches: list[tuple[str, int]], **kw: object) -> Step:
    step = Step(max(s.num for s in world.steps) + 1, label, kind, branches, **kw)  # type: ignore[arg-type]
    world.steps.append(step)
    return step

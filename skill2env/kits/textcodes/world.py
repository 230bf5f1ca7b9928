"""The text-coding world: a batch of short texts to code with a written codebook, and the truth.

A scheme (persuasion tactics in sales messages, jobs-to-be-done dimensions in customer interviews,
rubric dimensions in plugin descriptions) defines codes, each with cue phrases and a weight, and
score bands. Each document holds mentions: a cue phrase of a code, placed in the body (it counts),
in a quoted earlier message, in the signature or disclaimer, or negated (it does not). The codebook
can be amended later (a weight, a cue added or retired), a convenience export of its cues can lag
behind it, precedence rules can make one code absorb another, documents can be re-sent, belong to
another batch or arrive packed in other files. Every expected value is computed from these records,
never from the rendered text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta

from skill2env.kits.spec import seeded

DUP = "DUP"
"""The code a re-sent copy of an earlier document gets instead of any other."""


@dataclass(frozen=True)
class Scheme:
    key: str
    title: str
    what: str
    """What the documents are (plural)."""
    prefix: str
    scope_field: str
    scopes: tuple[str, ...]
    codes: tuple[tuple[str, str, tuple[str, ...]], ...]
    """(code, name, cue phrases): the first two cues are in the first codebook, the third comes later."""
    bands: tuple[str, str, str]
    people: tuple[str, ...]
    orgs: tuple[str, ...]
    subjects: tuple[str, ...]
    fillers: tuple[str, ...]


SCHEMES = (
    Scheme(
        "tactics", "Persuasion tactics in sales messages", "messages", "M", "Campaign",
        ("spring-offers", "renewal-drive", "partner-promo", "winter-sale"),
        (
            ("URG", "False urgency", ("act now", "offer ends tonight", "only hours remain")),
            ("SCA", "Scarcity", ("only a few left", "limited stock", "while supplies last")),
            ("SOC", "Social proof", ("everyone is switching", "thousands of customers", "join the crowd")),
            ("AUT", "Authority appeal", ("experts agree", "doctors recommend", "industry leaders trust")),
            ("FEAR", "Fear appeal", ("you will regret it", "before it is too late", "risk losing everything")),
            ("EMO", "Emotional pressure", ("you deserve this", "think of your family", "make them proud")),
        ),
        ("LOW", "MODERATE", "HIGH"),
        ("Dana Fischer", "Raj Patel", "Lena Ortiz", "Sam Novak", "Ines Duarte", "Tom Becker", "Mira Sato"),
        ("Brightline Tools", "Northwind Supply", "Acme Home", "Bluepeak Software"),
        ("Your account upgrade", "A quick note", "New plans for you", "About your order", "Something for you"),
        (
            "Thank you for being with us this year.",
            "The new plan includes the reporting add-on.",
            "You can reply to this message with any question.",
            "Our office hours are nine to five on weekdays.",
            "The invoice for last month is attached as usual.",
            "We updated the pricing page with the new tiers.",
            "Delivery takes three working days.",
        ),
    ),
    Scheme(
        "jobs", "Jobs-to-be-done dimensions in customer interviews", "interview transcripts", "I", "Study",
        ("onboarding-study", "churn-study", "pricing-study", "mobile-study"),
        (
            ("FUN", "Functional job", ("get it done in one step", "save time every week", "keep the books straight")),
            ("EMO", "Emotional job", ("feel confident", "less stressed", "peace of mind")),
            ("SOC", "Social job", ("look professional", "impress my team", "be seen as reliable")),
            ("ALT", "Current alternative", ("we used spreadsheets", "switched from another tool", "hired a helper")),
            ("PAIN", "Underserved pain", ("takes forever", "keeps breaking", "nobody owns it")),
        ),
        ("NICE-TO-HAVE", "IMPORTANT", "CRITICAL"),
        ("Participant A", "Participant B", "Participant C", "Participant D", "Participant E", "Participant F"),
        ("Lumen Bakery", "Fjord Logistics", "Pine Dental", "Harbor Studio"),
        ("Interview notes", "Follow-up call", "Session transcript", "Discovery interview", "Customer call"),
        (
            "We have about twelve people in the office.",
            "Mostly I work from the laptop in the morning.",
            "The team meets on Mondays to plan the week.",
            "We opened the second location last spring.",
            "I handle the orders and my partner handles the staff.",
            "Our busiest months are the summer ones.",
            "I came across the product through a colleague.",
        ),
    ),
    Scheme(
        "rubric", "Quality rubric for plugin descriptions", "plugin descriptions", "P", "Marketplace",
        ("core-marketplace", "partner-marketplace", "labs-marketplace", "team-marketplace"),
        (
            ("TRIG", "Trigger clarity", ("use when the user asks", "trigger phrases", "activate this skill when")),
            ("OUT", "Output documented", ("returns a summary", "writes the report to", "the output is a")),
            ("EXA", "Worked examples", ("for example", "example session", "sample invocation")),
            ("TRB", "Troubleshooting", ("if it fails", "common errors", "known limitations")),
            ("SCO", "Scope stated", ("does not handle", "out of scope", "only covers")),
        ),
        ("BRONZE", "SILVER", "GOLD"),
        ("kit-maintainers", "data-tools team", "ops-guild", "docs-crew", "infra-squad", "qa-circle"),
        ("Toolsmith Exchange", "Orbit Plugins", "Quarry Labs", "Meadow Works"),
        ("Plugin listing", "Skill submission", "Listing update", "New plugin", "Marketplace entry"),
        (
            "This plugin works with the standard workspace layout.",
            "It is maintained by a small team of volunteers.",
            "Installation takes a single command.",
            "The plugin is released under a permissive licence.",
            "Version two rewrote the internals for speed.",
            "It reads files from the current project folder.",
            "Feedback is welcome in the project tracker.",
        ),
    ),
)  # fmt: skip
BODY = ("{Cue}.", "Honestly, {cue}.", "I will say it plainly: {cue}.", "And yes, {cue}.")
NEGATED = "To be clear, this is not {cue}."
SIGN_OFF = ("Best regards,", "Thanks,", "Kind regards,")


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    cues: tuple[str, ...]
    weight: int


@dataclass
class Mention:
    code: str
    cue: str
    where: str = "body"
    """body (it counts), quote (in a quoted earlier message), signature (in the sign-off or disclaimer) or
    negated (right after 'not')."""


@dataclass
class Doc:
    id: str
    day: date
    author: str
    subject: str
    scope: str
    mentions: list[Mention] = field(default_factory=list)
    fillers: list[str] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    """The body's sentences: mention indexes (>= 0) and filler indexes (-1 - n) in order."""
    container: str = "txt"
    """txt (corpus/<id>.txt), jsonl (a batch file), eml (corpus/inbox/<id>.eml) or zip (corpus/archive.zip)."""
    ref: int = 0
    """The reference number the body opens with (a re-sent copy keeps it)."""
    duplicate_of: str = ""
    variant: int = 0
    """How a re-sent copy differs cosmetically (0 identical words, 1 re-wrapped and re-cased)."""


@dataclass
class World:
    seed: int
    rng: random.Random
    scheme: Scheme
    org: str
    scope: str
    start: date
    end: date
    codes: list[Code]
    """The codebook as written (codebook/CODEBOOK.md)."""
    thresholds: tuple[int, int]
    """Score at least the first: the middle band; at least the second: the top band."""
    docs: list[Doc] = field(default_factory=list)
    amended_weights: dict[str, int] = field(default_factory=dict)
    added_cues: dict[str, str] = field(default_factory=dict)
    """Code → the cue phrase the addendum adds."""
    retired_cues: dict[str, str] = field(default_factory=dict)
    """Code → the cue phrase the addendum retires."""
    export_missing: dict[str, str] = field(default_factory=dict)
    """Code → a cue the codebook has and its export (codebook/cues.json) lacks."""
    export_weights: dict[str, int] = field(default_factory=dict)
    export_extra: dict[str, str] = field(default_factory=dict)
    """Code → a cue the export still lists and the codebook dropped."""
    export_date: str = ""
    precedence: list[tuple[str, str]] = field(default_factory=list)
    """(winner, loser): when a document has both, it is coded with the winner only."""
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → the rubric items whose result its trap changes."""
    used_cues: set[str] = field(default_factory=set)
    clarified: str = ""
    """A code whose definition a harmless amendment clarifies (no cue or weight changes)."""
    listing: bool = False
    """The corpus has an index of its text files (it changes nothing)."""

    def tag(self, pattern: str, *items: str) -> None:
        self.tags.setdefault(pattern, set()).update(items)

    def code(self, code: str) -> Code:
        return next(c for c in self.codes if c.code == code)

    def current_cues(self, code: str) -> list[str]:
        cues = [c for c in self.code(code).cues if self.retired_cues.get(code) != c]
        return cues + ([self.added_cues[code]] if code in self.added_cues else [])

    def weight(self, code: str) -> int:
        return self.amended_weights.get(code, self.code(code).weight)

    def doc(self, doc_id: str) -> Doc:
        return next(d for d in self.docs if d.id == doc_id)

    def new_id(self) -> str:
        return f"{self.scheme.prefix}-{len(self.docs) + 101:03d}"

    def unused_cue(self, code: str) -> str:
        """A current cue of `code` (one not used yet when there is one)."""
        cues = self.current_cues(code)
        fresh = [c for c in cues if c not in self.used_cues]
        cue = self.rng.choice(fresh or cues)
        self.used_cues.add(cue)
        return cue

    def in_scope(self) -> list[Doc]:
        return [d for d in self.docs if d.scope == self.scope and self.start <= d.day <= self.end]

    def add_doc(self, codes: list[str], *, day: date | None = None, scope: str = "", container: str = "txt") -> Doc:
        rng = self.rng
        doc = Doc(
            self.new_id(),
            day or self.start + timedelta(days=rng.randint(0, (self.end - self.start).days)),
            rng.choice(self.scheme.people),
            rng.choice(self.scheme.subjects),
            scope or self.scope,
            container=container,
        )
        doc.fillers = rng.sample(list(self.scheme.fillers), 3)
        doc.ref = rng.randint(10000, 99999)
        for code in codes:
            doc.mentions.append(Mention(code, self.unused_cue(code)))
        order = [*range(len(doc.mentions)), *(-1 - n for n in range(len(doc.fillers)))]
        rng.shuffle(order)
        doc.order = order
        self.docs.append(doc)
        return doc

    def place(self, doc: Doc, mention: Mention) -> None:
        """Add a mention to a document's body, at a random place."""
        doc.mentions.append(mention)
        doc.order.insert(self.rng.randint(0, len(doc.order)), len(doc.mentions) - 1)


def generate(seed: int, salt: int) -> World:
    rng = seeded("textcodes", seed, salt)
    scheme = rng.choice(SCHEMES)
    codes = [Code(c, n, cues[:2], rng.randint(1, 3)) for c, n, cues in scheme.codes]
    start = date(2024, rng.randint(1, 10), rng.randint(1, 10))
    end = start + timedelta(days=rng.randint(14, 20))
    low = rng.randint(2, 3)
    world = World(seed, rng, scheme, rng.choice(scheme.orgs), rng.choice(scheme.scopes), start, end, codes,
                  (low, low + rng.randint(2, 3)))  # fmt: skip
    names = [c.code for c in codes]
    for n in range(rng.randint(7, 9)):
        count = 0 if n == 0 else rng.choice((1, 1, 2, 2, 3))
        world.add_doc(rng.sample(names, count))
    world.docs.sort(key=lambda d: (d.day, d.id))
    for n, doc in enumerate(world.docs):
        doc.id = f"{scheme.prefix}-{n + 101:03d}"
    return world


# -- the truth --------------------------------------------------------------------------------------


def code_order(world: World) -> list[str]:
    return [c.code for c in world.codes] + [DUP]


def counted(world: World, doc: Doc) -> list[str]:
    """The codes a document gets: its body mentions whose cue the current codebook has, after the
    precedence rules; a re-sent copy gets the duplicate code only."""
    if doc.duplicate_of:
        return [DUP]
    found = {m.code for m in doc.mentions if m.where == "body" and m.cue in world.current_cues(m.code)}
    for winner, loser in world.precedence:
        if winner in found:
            found.discard(loser)
    return [c for c in code_order(world) if c in found]


def expected_codes(world: World) -> dict[str, list[str]]:
    return {d.id: counted(world, d) for d in sorted(world.in_scope(), key=lambda d: d.id)}


def expected_counts(world: World) -> dict[str, int]:
    codes = expected_codes(world)
    return {c: sum(c in found for found in codes.values()) for c in code_order(world)}


def score_of(world: World, codes: list[str]) -> int:
    return sum(world.weight(c) for c in codes if c != DUP)


def band(world: World, score: int) -> str:
    low, high = world.thresholds
    return world.scheme.bands[2] if score >= high else world.scheme.bands[1] if score >= low else world.scheme.bands[0]


def expected_scores(world: World) -> dict[str, int]:
    return {d: score_of(world, c) for d, c in expected_codes(world).items() if c != [DUP]}


def expected_bands(world: World) -> dict[str, str]:
    return {d: band(world, s) for d, s in expected_scores(world).items()}

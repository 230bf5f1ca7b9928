"""The research world: a topic, the questions a review must answer, and the sources about it.

Each source is a study (or a review, a preprint, a background note) with a citation key, a DOI, a
design, a sample size, a population and its claims (metric → value). The base world has one in-scope
source per metric; the patterns add the traps (a retracted study, an erratum, a conflicting study the
review protocol outranks, an out-of-scope study, a duplicated bibliography entry). `answers` computes
every expected value from the world's records (never from rendered text).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from skill2env.kits.spec import seeded

TOPICS = (
    (
        "time-restricted eating",
        "adults with overweight",
        (
            ("body weight change", "kg", 0.5, 6.0),
            ("waist circumference change", "cm", 1.0, 8.0),
            ("fasting glucose change", "mg/dL", 1.0, 15.0),
            ("systolic blood pressure change", "mmHg", 1.0, 10.0),
            ("dropout rate", "%", 5.0, 35.0),
            ("adherence rate", "%", 55.0, 95.0),
        ),
    ),
    (
        "standing desks in offices",
        "adult office workers",
        (
            ("sitting time change", "min/day", 10.0, 120.0),
            ("lower back pain score change", "points", 0.3, 3.0),
            ("step count change", "steps/day", 100.0, 2000.0),
            ("productivity score change", "points", 0.5, 6.0),
            ("discontinuation rate", "%", 5.0, 40.0),
            ("daily standing time", "min/day", 20.0, 150.0),
        ),
    ),
    (
        "mindfulness training for nurses",
        "adult hospital nurses",
        (
            ("burnout score change", "points", 1.0, 12.0),
            ("perceived stress score change", "points", 1.0, 8.0),
            ("sick days change", "days/year", 0.5, 4.0),
            ("sleep quality score change", "points", 0.3, 3.0),
            ("completion rate", "%", 50.0, 95.0),
            ("turnover intention change", "points", 0.2, 2.0),
        ),
    ),
    (
        "e-bike commuting",
        "adult commuters",
        (
            ("weekly active minutes change", "min/week", 20.0, 150.0),
            ("VO2max change", "mL/kg/min", 0.5, 4.0),
            ("commute time change", "min", 2.0, 15.0),
            ("resting heart rate change", "bpm", 1.0, 6.0),
            ("crash rate", "per 1000 riders", 0.5, 8.0),
            ("retention rate", "%", 40.0, 90.0),
        ),
    ),
)
GENUINE = ("Nakamura", "Okafor", "Patel", "Quinn", "Rossi", "Schmidt", "Tanaka", "Vogel", "Wright", "Young", "Ueda")
EARLY = ("Abbott", "Ahmed", "Baker", "Bauer", "Chen", "Clark", "Diaz", "Evans", "Fischer", "Garcia")
FILLER = ("Lindqvist", "Moreau", "Haddad", "Kowalski")
VENUES = ("Journal of Applied Health", "Preventive Medicine Reports", "BMC Public Health", "Clinical Trials Review")
FORMATS = ("md", "html", "txt")
ASKED = 3
"""Questions asked; the other metrics of a topic carry benign traps."""


@dataclass
class Source:
    key: str
    author: str
    year: int
    title: str
    venue: str
    doi: str
    design: str
    """'randomised controlled trial', 'cohort study', 'meta-analysis', 'narrative review'."""
    n: int
    population: str
    claims: dict[str, float] = field(default_factory=dict)
    fmt: str = "md"
    header_key: str = ""
    """The key the source's own file names (a duplicate's key when the pattern says so)."""
    erratum_inline: list[tuple[str, str, float]] = field(default_factory=list)
    """(date, metric, corrected value) appended to the source's own file."""
    scale: int = 1
    """The source reports its findings multiplied by this (said once, in the findings' heading)."""
    footnotes: dict[str, float] = field(default_factory=dict)
    """Metric → the per-protocol headline value; the claim (intention-to-treat) is in a footnote."""
    supplement: list[str] = field(default_factory=list)
    """Metrics whose results are only in a supplementary table."""
    published: str = ""
    """For a preprint: the DOI of its published version ('' when the preprint does not say)."""

    @property
    def path(self) -> str:
        return f"sources/{self.key}.{self.fmt}"


@dataclass
class Notice:
    """A retraction notice or an erratum, in a file of its own."""

    kind: str
    """'retraction' or 'erratum'."""
    date: str
    target: str
    """The key of the work it concerns."""
    names: str
    """How it names the work: 'key', 'title' or 'doi'."""
    fmt: str
    metric: str = ""
    value: float = 0.0


@dataclass
class World:
    seed: int
    rng: random.Random
    topic: str
    population: str
    metrics: list[tuple[str, str, float, float]]
    """(name, unit, low, high): the plausible size of a reported value."""
    asked: list[str]
    sources: list[Source] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    duplicates: list[tuple[str, str]] = field(default_factory=list)
    """(canonical key, duplicate key): one work twice in the bibliography."""
    dup_form: dict[str, int] = field(default_factory=dict)
    """Duplicate key → how its entry differs: 1 same DOI, 2 DOI case and doi.org prefix, 3 DOI only in url."""
    retracted: set[str] = field(default_factory=set)
    tags: dict[str, set[str]] = field(default_factory=dict)
    """Pattern → metrics whose answer its trap changes."""
    used: set[str] = field(default_factory=set)
    footnote_level: int = 0
    supplement_level: int = 0

    def unit(self, metric: str) -> str:
        return next(unit for name, unit, _, _ in self.metrics if name == metric)

    def spare(self) -> list[str]:
        return [m for m, _, _, _ in self.metrics if m not in self.asked]

    def new_key(self, names: tuple[str, ...], year: int) -> tuple[str, str]:
        free = [a for a in names if a not in self.used] or list(names)
        author = self.rng.choice(free)
        self.used.add(author)
        key = f"{author.lower()}{year}"
        while any(s.key == key for s in self.sources) or any(d == key for _, d in self.duplicates):
            key += self.rng.choice("abcdefgh")
        return author, key

    def doi(self) -> str:
        prefix, journal = self.rng.randint(1000, 9999), self.rng.choice(("jah", "pmr", "bph", "ctr"))
        return f"10.{prefix}/{journal}.{self.rng.randint(10000, 99999)}"

    def value(self, metric: str, avoid: list[float]) -> float:
        low, high = next((lo, hi) for name, _, lo, hi in self.metrics if name == metric)
        while True:
            sign = -1 if "change" in metric and self.rng.random() < 0.6 else 1
            value = round(sign * self.rng.uniform(low, high), 1)
            if value and all(abs(value - a) > max(0.2, (high - low) / 30) for a in avoid):
                return value

    def add_source(
        self,
        names: tuple[str, ...],
        *,
        design: str = "randomised controlled trial",
        n: int = 0,
        population: str = "",
        title: str = "",
        claims: dict[str, float] | None = None,
    ) -> Source:
        year = self.rng.randint(2015, 2024)
        author, key = self.new_key(names, year)
        source = Source(
            key,
            author,
            year,
            self.unique(title or f"effects of {self.topic} in {population or self.population}: a {design}"),
            self.rng.choice(VENUES),
            self.doi(),
            design,
            n or self.rng.randint(60, 400),
            population or self.population,
            dict(claims or {}),
            self.rng.choice(FORMATS),
        )
        source.header_key = key
        self.sources.append(source)
        return source

    def unique(self, title: str) -> str:
        """The title led by a study name no other source has."""
        while True:
            name = "".join(self.rng.choice("ABCDEFGHKLMNPRSTVW") for _ in range(self.rng.randint(4, 6)))
            title = title[0].upper() + title[1:]
            full = f"{name}: {title}" if "review" not in title else f"{title} ({name} group)"
            if all(s.title != full and not s.title.startswith(name) for s in self.sources):
                return full

    def claims_of(self, metric: str) -> list[float]:
        return [s.claims[metric] for s in self.sources if metric in s.claims]

    def genuine(self, metric: str) -> Source:
        return next(s for s in self.sources if metric in s.claims and s.author in GENUINE)

    def tag(self, pattern: str, metric: str) -> None:
        self.tags.setdefault(pattern, set()).add(metric)


def generate(seed: int, salt: int) -> World:
    rng = seeded("research", seed, salt)
    topic, population, metrics = rng.choice(TOPICS)
    order = list(metrics)
    rng.shuffle(order)
    world = World(seed, rng, topic, population, order, [m for m, _, _, _ in order[:ASKED]])
    for metric, _, _, _ in order:
        world.add_source(GENUINE, claims={metric: world.value(metric, [])})
    for _ in range(2):
        world.add_source(FILLER, design="narrative review", title=f"{topic.capitalize()}: a narrative review")
    return world


# -- the truth --------------------------------------------------------------------------------------

PRECEDENCE = {
    "meta-analysis": 2,
    "randomised controlled trial": 1,
    "cohort study": 1,
    "preprint": 0,
    "narrative review": 0,
}


def corrected(world: World, source: Source, metric: str) -> float:
    """A claim after the errata (inline or in a notice), the latest one last."""
    fixes = [(d, v) for d, m, v in source.erratum_inline if m == metric]
    fixes += [(n.date, n.value) for n in world.notices if n.kind == "erratum" and n.target == source.key
              and n.metric == metric]  # fmt: skip
    return sorted(fixes)[-1][1] if fixes else source.claims[metric]


def governing(world: World, metric: str) -> Source:
    """The source whose claim answers a metric's question: not retracted, in scope, then the protocol's
    precedence (a meta-analysis over single studies, a preprint under peer-reviewed work, then the larger
    sample)."""
    candidates = [
        s
        for s in world.sources
        if metric in s.claims and s.key not in world.retracted and s.population == world.population
    ]
    return max(candidates, key=lambda s: (PRECEDENCE[s.design], s.n))


def canonical(world: World, key: str) -> str:
    return next((c for c, d in world.duplicates if d == key), key)


def answers(world: World) -> dict[str, tuple[float, str]]:
    """Asked metric → (value, the canonical key of the source it rests on)."""
    result = {}
    for metric in world.asked:
        source = governing(world, metric)
        result[metric] = (corrected(world, source, metric), source.key)
    return result

"""How alike two patterns' texts are: TF-IDF cosine over word unigrams and bigrams.

The pool must hold distinct challenges, not one challenge with different nouns; growth from
hardening diagnoses must not re-add what the pool already has.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from skill2env.patterns.models import Pattern

_WORD = re.compile(r"[a-z][a-z0-9]+")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "by",
        "from",
        "as",
        "at",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "must",
        "not",
        "no",
        "only",
        "one",
        "two",
        "each",
        "every",
        "any",
        "all",
        "into",
        "than",
        "then",
        "when",
        "where",
        "which",
        "who",
        "what",
        "how",
        "agent",
        "task",
        "file",
        "files",
        "instruction",
        "workspace",
        "evaluator",
        "rubric",
        "checks",
        "check",
        "item",
        "items",
        "value",
        "values",
    ]
)


def pattern_text(pattern: Pattern) -> str:
    """The prose that says what the challenge is and how it is built (names and ids excluded)."""
    parts = [
        pattern.description,
        *pattern.construction.workspace,
        pattern.construction.instruction,
        pattern.construction.evaluator,
        pattern.evidence.rubric_check,
        pattern.evidence.shortcut,
    ]
    return " ".join(parts)


def _terms(text: str) -> Counter[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    return Counter(words + [f"{a}_{b}" for a, b in itertools.pairwise(words)])


@dataclass(frozen=True)
class SimilarPair:
    first: str
    second: str
    similarity: float


class SimilarityIndex:
    """TF-IDF vectors of a set of texts; compares them with each other and with new texts."""

    def __init__(self, texts: dict[str, str]) -> None:
        self._counts = {key: _terms(text) for key, text in texts.items()}
        documents = len(self._counts) + 1
        frequency: Counter[str] = Counter()
        for counts in self._counts.values():
            frequency.update(counts.keys())
        self._idf = {term: math.log(documents / (1 + n)) + 1.0 for term, n in frequency.items()}
        self._default_idf = math.log(documents) + 1.0
        self._vectors = {key: self._vector(counts) for key, counts in self._counts.items()}

    def _vector(self, counts: Counter[str]) -> dict[str, float]:
        weights = {term: (1 + math.log(n)) * self._idf.get(term, self._default_idf) for term, n in counts.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {term: w / norm for term, w in weights.items()}

    @staticmethod
    def _cosine(a: dict[str, float], b: dict[str, float]) -> float:
        if len(a) > len(b):
            a, b = b, a
        return sum(w * b.get(term, 0.0) for term, w in a.items())

    def most_similar(self, text: str, *, exclude: str | None = None) -> tuple[str | None, float]:
        """The indexed key most like `text`, and the similarity (0..1)."""
        ranked = [(key, score) for key, score in self.ranked(text) if key != exclude and score > 0.0]
        return ranked[0] if ranked else (None, 0.0)

    def ranked(self, text: str) -> list[tuple[str, float]]:
        """Every indexed key with its similarity to `text`, most similar first (ties in index order)."""
        vector = self._vector(_terms(text))
        scores = [(key, self._cosine(vector, other)) for key, other in self._vectors.items()]
        return sorted(scores, key=lambda pair: -pair[1])

    def pairs_above(self, threshold: float) -> list[SimilarPair]:
        """Every pair of indexed texts at or above `threshold`, most similar first."""
        keys = list(self._vectors)
        found = []
        for i, first in enumerate(keys):
            for second in keys[i + 1 :]:
                score = self._cosine(self._vectors[first], self._vectors[second])
                if score >= threshold:
                    found.append(SimilarPair(first, second, round(score, 4)))
        return sorted(found, key=lambda pair: -pair.similarity)


def pool_index(patterns: Sequence[Pattern]) -> SimilarityIndex:
    return SimilarityIndex({pattern.id: pattern_text(pattern) for pattern in patterns})

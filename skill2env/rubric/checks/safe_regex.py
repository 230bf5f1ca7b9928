"""Regular expressions matched in time linear in the text, whatever the text: a rubric's pattern runs
on files the agent wrote, and Python's backtracking `re` can take exponential time on them.

`compile(pattern, flags)` parses the pattern with Python's own parser (so syntax, flags and the
meaning of every character class are exactly `re`'s) and compiles it into a Thompson NFA. Matching
simulates that NFA with lazily built DFA states (a set, or for the forward direction a
priority-ordered tuple, of NFA positions plus the context an assertion needs), cached per pattern:
the cost is O(len(text) × program size) at worst and one dict lookup per character once the states
a text needs exist.

How matches are found, each way linear, each handing over to the next when it would not be:

* when every match begins with a literal or one of a few characters (after leading anchors and
  one-character lookarounds), a `re` search for just that (which cannot backtrack) proposes
  candidate starts and a forward pass from each, with leftmost-first priorities, decides where
  `re`'s match from there ends, if anywhere;
* otherwise, or once candidates mostly fail or their passes overlap past a budget, one backward
  pass with the reversed program marks every position where some match starts, jumping with a
  one-character `re` search over stretches where none can end, and forward passes find the ends;
* passes from successive starts can still overlap without bound (`a.*z|a`): past the budget, the
  ends come from a backtracker that remembers every state (instruction, loop depth, position) it
  has seen over the whole iteration, so each is visited once. Capture groups come from it too,
  run from the match's start.

Semantics are `re`'s, leftmost-first: the same spans for `search`, `fullmatch` and the matches of
`finditer`, the same groups, including `re`'s rule that an optional repetition which matched the
empty string is not repeated. Supported: literals, `.`, classes with ranges, negation and
categories, alternation, groups (capturing, named, non-capturing, with scoped flags), greedy and
lazy `* + ? {m,n}`, `^ $ \\A \\Z \\b \\B`, lookarounds of one character (`(?![0-9])`, `(?<!\\w)`), the
flags IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII and UNICODE, inline or passed. Refused with
`UnsupportedPattern`: backreferences, conditional groups, other lookarounds, atomic groups and
possessive repeats, and a pattern whose bounded repeats expand past `MAX_PROGRAM_SIZE`. One known
difference: a scoped type flag (`(?a:\\W)`) means what the documentation says; `re` itself
disagrees with that at the start of a pattern (its first-character optimisation uses the global
flag).

Standard library only, Python 3.10+.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

MAX_PROGRAM_SIZE = 1000
"""Instructions one direction of a pattern may compile to; `x{2,400}` of a class is about 800."""
MAX_DFA_STATES = 2000
"""DFA states kept per pattern and direction; past it the cache starts again (memory stays bounded)."""
FORWARD_BUDGET_SLACK = 4096
"""Characters the forward passes of one iteration may re-read beyond twice the text's length
before the backtracker takes over."""
SUPPORTED_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII | re.UNICODE
_CHUNK_MIN = 64
_CHUNK_MAX = 1 << 16
_SKIP_BY_CONSUMING = 256
_DENSE_FAILURES = 64


class UnsupportedPattern(ValueError):
    """The pattern needs a construct that cannot run in linear time (or expands too far)."""


def _load_parser() -> Any:
    # `sre_parse` warns on import from 3.11 on, where the same module is `re._parser`.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            return importlib.import_module("re._parser")
        except ImportError:
            return importlib.import_module("sre_parse")


_sre = _load_parser()
_MAXREPEAT = _sre.MAXREPEAT
_CHAR_OPS = {_sre.LITERAL, _sre.NOT_LITERAL, _sre.ANY, _sre.IN}
_CATEGORY_ESCAPES = {
    _sre.CATEGORY_DIGIT: r"\d",
    _sre.CATEGORY_NOT_DIGIT: r"\D",
    _sre.CATEGORY_SPACE: r"\s",
    _sre.CATEGORY_NOT_SPACE: r"\S",
    _sre.CATEGORY_WORD: r"\w",
    _sre.CATEGORY_NOT_WORD: r"\W",
}
_TYPE_FLAGS = re.ASCII | re.UNICODE
_REFUSED = {_sre.GROUPREF: "backreferences", _sre.GROUPREF_EXISTS: "conditional groups"}
if hasattr(_sre, "ATOMIC_GROUP"):  # Python 3.11+
    _REFUSED[_sre.ATOMIC_GROUP] = "atomic groups"
    _REFUSED[_sre.POSSESSIVE_REPEAT] = "possessive repeats"

# Instructions: (CHAR, predicate, next) (SPLIT, targets by priority) (ASSERT, test, next)
# (SAVE, slot, next) (ENTER, next) (UNTIL, again, exit) (MATCH,).
CHAR, SPLIT, ASSERT, SAVE, ENTER, UNTIL, MATCH = range(7)

# The context of a position, for assertions: what the character on one side is. 3 bits, then one
# bit per one-character lookaround predicate.
EDGE, NEWLINE, FINAL_NEWLINE, ASCII_WORD, WORD, OTHER = range(6)
_BASE = 7
_LOOK_SHIFT = 3

# Assertion tests.
(
    BEGIN_TEXT,
    BEGIN_LINE,
    END_TEXT,
    END_TEXT_OR_FINAL_NEWLINE,
    END_LINE,
    BOUNDARY,
    AHEAD,
    BEHIND,
    NEVER,
) = range(9)

# Row flags.
MATCHED = 1
"""A match ends at the position before the character this row was reached by."""
EMPTY = 2
"""No thread is left: a forward pass is over; a backward pass is idle (only new starts)."""


@dataclass
class Work:
    """What a pattern has done so far, for tests and benchmarks (timings would be flaky)."""

    scanned: int = 0
    """Characters stepped through by DFA passes."""
    transitions: int = 0
    """DFA transitions computed (each an NFA closure)."""
    backtracked: int = 0
    """States the backtracker visited."""


# -- compiling ----------------------------------------------------------------------------------


def _escape(code: int) -> str:
    return f"\\U{code:08x}"


def _char_source(op: Any, av: Any) -> str:
    """One character item of a parsed pattern as `re` source, to be matched by `re` itself."""
    if op is _sre.LITERAL:
        return _escape(av)
    if op is _sre.NOT_LITERAL:
        return f"[^{_escape(av)}]"
    if op is _sre.ANY:
        return "."
    parts = []
    for item, arg in av:
        if item is _sre.NEGATE:
            parts.append("^")
        elif item is _sre.LITERAL:
            parts.append(_escape(arg))
        elif item is _sre.RANGE:
            parts.append(f"{_escape(arg[0])}-{_escape(arg[1])}")
        elif item is _sre.CATEGORY and arg in _CATEGORY_ESCAPES:
            parts.append(_CATEGORY_ESCAPES[arg])
        else:
            raise UnsupportedPattern(f"character class item {item} is not supported")
    return f"[{''.join(parts)}]"


def _combine_flags(flags: int, add: int, remove: int) -> int:
    """Flags inside a scoped group, as `re` combines them (a type flag replaces the other)."""
    if add & _TYPE_FLAGS:
        flags &= ~_TYPE_FLAGS
    return (flags | add) & ~remove


class _Predicates:
    """Distinct one-character tests, each matched by a one-character `re` pattern: exact `re`
    semantics for classes, categories and case folding, and no backtracking possible."""

    def __init__(self) -> None:
        self.sources: list[tuple[str, int]] = []
        self.index: dict[tuple[str, int], int] = {}

    def add(self, source: str, flags: int) -> int:
        key = (source, flags & (re.IGNORECASE | re.ASCII | re.DOTALL))
        if key not in self.index:
            self.index[key] = len(self.sources)
            self.sources.append(key)
        return self.index[key]

    def tests(self) -> list[Callable[[str], Any]]:
        return [re.compile(source, flags).match for source, flags in self.sources]

    def alternation(self, indices: Iterable[int]) -> re.Pattern[str] | None:
        """One `re` pattern matching a character any of the predicates accepts (None: none can be
        built). The ASCII flag is passed whole, not scoped: `re` honours `(?a:…)` inconsistently
        in its first-character optimisation."""
        chosen = [self.sources[index] for index in sorted(indices)]
        if not chosen or len({flags & re.ASCII for _, flags in chosen}) != 1:
            return None
        parts = []
        for source, flags in chosen:
            letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
            parts.append(f"(?{letters}:{source})")
        return re.compile("|".join(parts), chosen[0][1] & re.ASCII)


_FLAG_LETTERS = ((re.IGNORECASE, "i"), (re.DOTALL, "s"))


@dataclass
class _Needs:
    """Which distinctions between characters the assertions of a pattern make."""

    line: bool = False
    final_newline: bool = False
    ascii_word: bool = False
    word: bool = False


class _Compiler:
    """Parsed pattern → one program per direction (forward with captures and `re`'s loop rules;
    backward, for starts, language only)."""

    def __init__(self) -> None:
        self.chars = _Predicates()
        self.looks = _Predicates()
        self.needs = _Needs()
        self.code: list[Any] = []
        self.reverse = False

    def program(self, parsed: Any, flags: int, *, reverse: bool) -> tuple[list[Any], int]:
        self.code = []
        self.reverse = reverse
        start = self._sequence(parsed, flags, self._emit([MATCH]))
        return [tuple(op) for op in self.code], start

    def _emit(self, op: list[Any]) -> int:
        if len(self.code) >= MAX_PROGRAM_SIZE:
            raise UnsupportedPattern(
                f"the pattern compiles to more than {MAX_PROGRAM_SIZE} instructions (large {{m,n}} repeats)"
            )
        self.code.append(op)
        return len(self.code) - 1

    def _sequence(self, items: Any, flags: int, then: int) -> int:
        for op, av in list(items) if self.reverse else reversed(list(items)):
            then = self._item(op, av, flags, then)
        return then

    def _item(self, op: Any, av: Any, flags: int, then: int) -> int:
        if op in _CHAR_OPS:
            return self._emit([CHAR, self.chars.add(_char_source(op, av), flags), then])
        if op is _sre.SUBPATTERN:
            group, add, remove, inner = av
            inner_flags = _combine_flags(flags, add, remove)
            if group is None or self.reverse:
                return self._sequence(inner, inner_flags, then)
            close = self._emit([SAVE, 2 * group + 1, then])
            return self._emit([SAVE, 2 * group, self._sequence(inner, inner_flags, close)])
        if op is _sre.BRANCH:
            return self._emit([SPLIT, tuple(self._sequence(alt, flags, then) for alt in av[1])])
        if op is _sre.MAX_REPEAT or op is _sre.MIN_REPEAT:
            low, high, inner = av
            return self._repeat(low, high, inner, flags, then, greedy=op is _sre.MAX_REPEAT)
        if op is _sre.AT:
            return self._emit([ASSERT, self._anchor(av, flags), then])
        if op is _sre.ASSERT or op is _sre.ASSERT_NOT:
            return self._lookaround(av, flags, then, positive=op is _sre.ASSERT)
        raise UnsupportedPattern(f"{_REFUSED.get(op, str(op).lower())} cannot be matched in linear time")

    def _anchor(self, at: Any, flags: int) -> tuple[int, ...]:
        multiline = bool(flags & re.MULTILINE)
        if at is _sre.AT_BEGINNING_STRING or (at is _sre.AT_BEGINNING and not multiline):
            return (BEGIN_TEXT,)
        if at is _sre.AT_BEGINNING:
            self.needs.line = True
            return (BEGIN_LINE,)
        if at is _sre.AT_END_STRING:
            return (END_TEXT,)
        if at is _sre.AT_END and multiline:
            self.needs.line = True
            return (END_LINE,)
        if at is _sre.AT_END:
            self.needs.final_newline = True
            return (END_TEXT_OR_FINAL_NEWLINE,)
        if at is _sre.AT_BOUNDARY or at is _sre.AT_NON_BOUNDARY:
            ascii_only = bool(flags & re.ASCII)
            if ascii_only:
                self.needs.ascii_word = True
            else:
                self.needs.word = True
            return (BOUNDARY, ascii_only, at is _sre.AT_BOUNDARY)
        raise UnsupportedPattern(f"the anchor {at} is not supported")

    def _lookaround(self, av: Any, flags: int, then: int, *, positive: bool) -> int:
        direction, inner = av
        items = list(inner)
        while len(items) == 1 and items[0][0] is _sre.SUBPATTERN and items[0][1][0] is None:
            _, add, remove, nested = items[0][1]
            flags = _combine_flags(flags, add, remove)
            items = list(nested)
        if not items:
            return then if positive else self._emit([ASSERT, (NEVER,), then])
        if len(items) != 1 or items[0][0] not in _CHAR_OPS:
            raise UnsupportedPattern(
                "lookahead and lookbehind cannot be matched in linear time, except of one character "
                "(like `(?![0-9])` or `(?<!\\w)`)"
            )
        look = self.looks.add(_char_source(*items[0]), flags)
        return self._emit([ASSERT, (AHEAD if direction > 0 else BEHIND, look, positive), then])

    def _repeat(self, low: int, high: int, inner: Any, flags: int, then: int, *, greedy: bool) -> int:
        # An iteration that may match the empty string gets ENTER/UNTIL around it: as in `re`, an
        # optional iteration that matched nothing is not followed by another (UNTIL exits when
        # nothing was consumed since the ENTER). The backward program only needs the language.
        if low > MAX_PROGRAM_SIZE or (high != _MAXREPEAT and high - low > MAX_PROGRAM_SIZE):
            raise UnsupportedPattern(f"a repeat count above {MAX_PROGRAM_SIZE} is not supported")
        framed = inner.getwidth()[0] == 0 and not self.reverse

        def iteration(after: int, exit_to: int) -> int:
            if not framed:
                return self._sequence(inner, flags, after)
            return self._emit([ENTER, self._sequence(inner, flags, self._emit([UNTIL, after, exit_to]))])

        def choice(body: int) -> list[Any]:
            return [SPLIT, (body, then) if greedy else (then, body)]

        if high == _MAXREPEAT:
            loop = self._emit([SPLIT, ()])
            self.code[loop] = choice(iteration(loop, then))
            entry = loop
        else:
            entry = then
            for _ in range(high - low):
                decision = self._emit([SPLIT, ()])
                self.code[decision] = choice(iteration(entry, then))
                entry = decision
        for _ in range(low):
            entry = self._sequence(inner, flags, entry)
        return entry


# -- running ------------------------------------------------------------------------------------


def _holds(test: tuple[Any, ...], left: int, right: int) -> bool:
    """Whether an assertion holds between a position's left and right contexts."""
    kind = test[0]
    if kind == BEGIN_TEXT:
        return left == EDGE
    if kind == BEGIN_LINE:
        return left & _BASE in (EDGE, NEWLINE)
    if kind == END_TEXT:
        return right == EDGE
    if kind == END_TEXT_OR_FINAL_NEWLINE:
        return right & _BASE in (EDGE, FINAL_NEWLINE)
    if kind == END_LINE:
        return right & _BASE in (EDGE, NEWLINE, FINAL_NEWLINE)
    if kind == BOUNDARY:
        if left == EDGE and right == EDGE:  # `re`: neither \b nor \B holds in an empty string
            return False
        words = (ASCII_WORD,) if test[1] else (ASCII_WORD, WORD)
        return ((left & _BASE in words) != (right & _BASE in words)) == test[2]
    if kind in (AHEAD, BEHIND):
        side = right if kind == AHEAD else left
        if side == EDGE:
            return not test[2]
        return bool(side >> (_LOOK_SHIFT + test[1]) & 1) == test[2]
    return False


class _Chars:
    """What the programs need to know about a character, computed once per distinct character:
    the bit set of character predicates it satisfies and its context as a neighbour of a position."""

    def __init__(self, chars: _Predicates, looks: _Predicates, needs: _Needs) -> None:
        self.char_tests = chars.tests()
        self.look_tests = looks.tests()
        self.needs = needs
        self.ascii_word = re.compile(r"\w", re.ASCII).match
        self.word = re.compile(r"\w").match
        self.known: dict[str, tuple[int, int, int]] = {}

    def __call__(self, ch: str) -> tuple[int, int, int]:
        """(predicate bits, context, context as the text's last character)."""
        known = self.known.get(ch)
        if known is None:
            if len(self.known) > 1 << 16:
                self.known.clear()
            bits = sum(1 << i for i, test in enumerate(self.char_tests) if test(ch))
            looks = sum(1 << i for i, test in enumerate(self.look_tests) if test(ch))
            needs = self.needs
            if (needs.ascii_word or needs.word) and self.ascii_word(ch):
                base = ASCII_WORD
            elif needs.word and self.word(ch):
                base = WORD
            elif ch == "\n" and needs.line:
                base = NEWLINE
            else:
                base = OTHER
            last = FINAL_NEWLINE if ch == "\n" and needs.final_newline else base
            context = looks << _LOOK_SHIFT
            known = self.known[ch] = (bits, base | context, last | context)
        return known

    def left(self, text: str, at: int) -> int:
        return EDGE if at == 0 else self(text[at - 1])[1]

    def right(self, text: str, at: int) -> int:
        if at == len(text):
            return EDGE
        return self(text[at])[2 if at == len(text) - 1 else 1]


class _Row(dict[str, "_Row"]):
    """A DFA state: its transitions (character → row), filled in as texts need them."""

    __slots__ = ("dfa", "flag", "key")

    def __init__(self, dfa: _Dfa, key: tuple[Any, int, bool], flag: int) -> None:
        super().__init__()
        self.dfa = dfa
        self.key = key
        self.flag = flag

    def __missing__(self, ch: str) -> _Row:
        row = self.dfa.follow(self, ch)
        self[ch] = row
        return row


class _Dfa:
    """The lazily built DFA of one program and direction.

    Forward: a row's key is (threads in priority order, left context of the next position, whether
    a match ended at the previous position); closures are leftmost-first (a match drops the
    threads after it). Backward: (set of threads, right context, whether a match starts at the
    position after the character just read); a new start joins at every position.
    """

    def __init__(self, code: list[Any], start: int, chars: _Chars, work: Work, *, forward: bool, early: bool) -> None:
        self.code = code
        self.start = start
        self.chars = chars
        self.work = work
        self.forward = forward
        self.early = early
        """Forward: a match before the end of the text counts (not so for `fullmatch`)."""
        self.rows: dict[tuple[Any, int, bool], _Row] = {}
        self.finals: dict[tuple[Any, int, bool], bool] = {}

    def row(self, threads: Any, context: int, matched: bool = False) -> _Row:
        key = (threads, context, matched)
        found = self.rows.get(key)
        if found is None:
            if len(self.rows) >= MAX_DFA_STATES:
                for old in self.rows.values():
                    old.clear()
                self.rows = {}
                self.finals = {}
            flag = (MATCHED if matched else 0) | (EMPTY if not threads else 0)
            found = self.rows[key] = _Row(self, key, flag)
        return found

    def follow(self, row: _Row, ch: str, *, last: bool = False, early: bool | None = None) -> _Row:
        """The row after reading `ch` from `row` (`last`: `ch` is the text's last character)."""
        self.work.transitions += 1
        threads, context, _ = row.key
        bits, neighbour, final = self.chars(ch)
        if self.forward:
            pending, matched = self._ordered(
                threads, context, final if last else neighbour, self.early if early is None else early
            )
            return self.row(self._step(pending, bits), neighbour, matched)
        pending_set, matched = self._any(threads, neighbour, context)
        return self.row(frozenset(self._step(pending_set, bits)), final if last else neighbour, matched)

    def final(self, row: _Row) -> bool:
        """Whether a match ends (forward) or starts (backward) at the far end of the text."""
        found = self.finals.get(row.key)
        if found is None:
            self.work.transitions += 1
            threads, context, _ = row.key
            if self.forward:
                found = self._ordered(threads, context, EDGE, True)[1]
            else:
                found = self._any(threads, EDGE, context)[1]
            self.finals[row.key] = found
        return found

    def _step(self, pending: list[int], bits: int) -> tuple[int, ...]:
        code = self.code
        return tuple(dict.fromkeys(code[pc][2] for pc in pending if bits >> code[pc][1] & 1))

    def _ordered(self, threads: tuple[int, ...], left: int, right: int, early: bool) -> tuple[list[int], bool]:
        """Threads waiting on a character, by priority, and whether a match (not dropped) ends here."""
        code = self.code
        pending: list[int] = []
        seen: set[tuple[int, int]] = set()
        for thread in threads:
            stack = [(thread, 0)]
            while stack:
                state = stack.pop()
                if state in seen:
                    continue
                seen.add(state)
                pc, depth = state
                op = code[pc]
                kind = op[0]
                if kind == CHAR:
                    if pc not in pending:
                        pending.append(pc)
                elif kind == SPLIT:
                    stack.extend((target, depth) for target in reversed(op[1]))
                elif kind == ASSERT:
                    if _holds(op[1], left, right):
                        stack.append((op[2], depth))
                elif kind == SAVE:
                    stack.append((op[2], depth))
                elif kind == ENTER:
                    stack.append((op[1], depth + 1))
                elif kind == UNTIL:
                    stack.append((op[2], depth - 1) if depth else (op[1], 0))
                elif early:
                    return pending, True
        return pending, False

    def _any(self, threads: frozenset[int], left: int, right: int) -> tuple[list[int], bool]:
        """Threads (and a new start) waiting on a character, and whether a match is complete here."""
        code = self.code
        pending: list[int] = []
        matched = False
        seen: set[int] = set()
        stack = [self.start, *threads]
        while stack:
            pc = stack.pop()
            if pc in seen:
                continue
            seen.add(pc)
            op = code[pc]
            kind = op[0]
            if kind == CHAR:
                pending.append(pc)
            elif kind == SPLIT:
                stack.extend(op[1])
            elif kind == ASSERT:
                if _holds(op[1], left, right):
                    stack.append(op[2])
            elif kind == MATCH:
                matched = True
        return pending, matched


def _first_characters(code: list[Any], start: int) -> tuple[set[int], bool]:
    """The predicates a match can begin with (assertions assumed to hold), and whether a match can
    be empty: when it cannot, positions whose character satisfies none of them can be skipped."""
    predicates: set[int] = set()
    nullable = False
    seen: set[int] = set()
    stack = [start]
    while stack:
        pc = stack.pop()
        if pc in seen:
            continue
        seen.add(pc)
        op = code[pc]
        kind = op[0]
        if kind == CHAR:
            predicates.add(op[1])
        elif kind == SPLIT:
            stack.extend(op[1])
        elif kind in (ASSERT, SAVE):
            stack.append(op[2])
        elif kind == ENTER:
            stack.append(op[1])
        elif kind == UNTIL:
            stack.extend(op[1:])
        else:
            nullable = True
    return predicates, nullable


def _literal_prefix(items: Any, flags: int) -> tuple[list[str], int, bool]:
    """The characters every match begins with (zero-width assertions aside), their flags, and
    whether `items` were all literal."""
    prefix: list[str] = []
    prefix_flags = flags
    for op, av in items:
        if op is _sre.LITERAL or op is _sre.SUBPATTERN:
            if op is _sre.LITERAL:
                inner, inner_flags, complete = [chr(av)], flags, True
            else:
                inner, inner_flags, complete = _literal_prefix(av[3], _combine_flags(flags, av[1], av[2]))
            if inner and prefix and inner_flags & _CASE_FLAGS != prefix_flags & _CASE_FLAGS:
                return prefix, prefix_flags, False
            if inner:
                prefix += inner
                prefix_flags = inner_flags
            if not complete:
                return prefix, prefix_flags, False
        elif op is not _sre.AT and op is not _sre.ASSERT and op is not _sre.ASSERT_NOT:
            return prefix, prefix_flags, False
    return prefix, prefix_flags, True


_CASE_FLAGS = re.IGNORECASE | re.ASCII


def _leading_assertions(items: Any, flags: int) -> tuple[str, int | None]:
    """The zero-width assertions a pattern begins with, as `re` source that cannot backtrack, and
    the ASCII flag they need (None: any; -1: they disagree on it)."""
    sources: list[str] = []
    seen_type: set[int] = set()
    for op, av in items:
        if op is _sre.AT:
            source = _AT_SOURCES.get((av, bool(flags & re.MULTILINE)))
            if source is None:
                break
            if av is _sre.AT_BOUNDARY or av is _sre.AT_NON_BOUNDARY:
                seen_type.add(flags & re.ASCII)
            sources.append(source)
        elif op is _sre.ASSERT or op is _sre.ASSERT_NOT:
            direction, inner = av
            inner_items = list(inner)
            if len(inner_items) != 1 or inner_items[0][0] not in _CHAR_OPS:
                break
            letters = "".join(letter for flag, letter in _FLAG_LETTERS if flags & flag)
            look = ("=" if op is _sre.ASSERT else "!") if direction > 0 else ("<=" if op is _sre.ASSERT else "<!")
            sources.append(f"(?{look}(?{letters}:{_char_source(*inner_items[0])}))")
            seen_type.add(flags & re.ASCII)
        else:
            break
    return "".join(sources), (-1 if len(seen_type) > 1 else next(iter(seen_type), None))


_AT_SOURCES = {
    (_sre.AT_BEGINNING, True): "(?m:^)",
    (_sre.AT_BEGINNING, False): r"\A",
    (_sre.AT_BEGINNING_STRING, True): r"\A",
    (_sre.AT_BEGINNING_STRING, False): r"\A",
    (_sre.AT_BOUNDARY, True): r"\b",
    (_sre.AT_BOUNDARY, False): r"\b",
    (_sre.AT_NON_BOUNDARY, True): r"\B",
    (_sre.AT_NON_BOUNDARY, False): r"\B",
}


class _Budget(Exception):
    """The forward passes of one iteration re-read too much: on to the next way of finding matches."""


class SafeMatch:
    """One match: `start()`, `end()`, `span()`, `group(...)` and `groups()` as in `re`."""

    def __init__(self, pattern: SafePattern, text: str, start: int, end: int, *, nonempty: bool, whole: bool) -> None:
        self.re = pattern
        self.string = text
        self._start = start
        self._end = end
        self._nonempty = nonempty
        self._whole = whole
        self._slots: list[int] | None = None

    def start(self, group: int | str = 0) -> int:
        return self._span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self._span(group)[1]

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._span(group)

    def group(self, *groups: int | str) -> Any:
        if len(groups) > 1:
            return tuple(self.group(g) for g in groups)
        start, end = self._span(groups[0] if groups else 0)
        return None if start < 0 else self.string[start:end]

    def groups(self, default: Any = None) -> tuple[Any, ...]:
        return tuple(default if self.start(g) < 0 else self.group(g) for g in range(1, self.re.groups + 1))

    def _span(self, group: int | str) -> tuple[int, int]:
        index = self.re.groupindex.get(group) if isinstance(group, str) else group
        if not isinstance(index, int) or not 0 <= index <= self.re.groups:
            raise IndexError("no such group")
        if index == 0:
            return self._start, self._end
        if self._slots is None:
            self._slots = self.re._captures(self.string, self._start, nonempty=self._nonempty, whole=self._whole)
        return self._slots[2 * index], self._slots[2 * index + 1]

    def __repr__(self) -> str:
        return f"<SafeMatch span={self.span()} match={self.group()!r}>"


class SafePattern:
    """A compiled pattern: `search`, `fullmatch`, `iter_matches` and `iter_spans`, linear in the text."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        if not isinstance(pattern, str):
            raise TypeError("safe_regex patterns are str")
        if flags & ~SUPPORTED_FLAGS:
            raise UnsupportedPattern(f"flags {flags & ~SUPPORTED_FLAGS:#x} are not supported")
        try:
            parsed = _sre.parse(pattern, flags)
        except (OverflowError, RecursionError) as exc:
            raise UnsupportedPattern(f"the pattern is too large or too deeply nested: {exc}") from exc
        self.pattern = pattern
        self.flags = parsed.state.flags
        self.groups = parsed.state.groups - 1
        self.groupindex = dict(parsed.state.groupdict)
        self.work = Work()
        compiler = _Compiler()
        try:
            forward, forward_start = compiler.program(parsed, self.flags, reverse=False)
            backward, backward_start = compiler.program(parsed, self.flags, reverse=True)
            prefix, prefix_flags, _ = _literal_prefix(parsed, self.flags)
        except RecursionError as exc:
            raise UnsupportedPattern("the pattern is too deeply nested") from exc
        chars = _Chars(compiler.chars, compiler.looks, compiler.needs)
        self._code = forward
        self._start = forward_start
        self._chars = chars
        self._depth = 1 + sum(op[0] == ENTER for op in forward)
        self._first = _Dfa(forward, forward_start, chars, self.work, forward=True, early=True)
        self._whole = _Dfa(forward, forward_start, chars, self.work, forward=True, early=False)
        self._backward = _Dfa(backward, backward_start, chars, self.work, forward=False, early=True)
        self._idle: dict[str, _Row] = {}
        self._entries: dict[str, _Row] = {}
        # Where a match can start (forward) or end (backward): one `re` search for a literal or a
        # single character, which cannot backtrack. None when a match can be empty.
        self._candidates: Callable[[str, int], Any] | None = None
        self._endings: Callable[[str, int], Any] | None = None
        beginning, nullable = _first_characters(forward, forward_start)
        if not nullable:
            if prefix:
                letters = "i" if prefix_flags & re.IGNORECASE else ""
                first: re.Pattern[str] | None = re.compile(
                    f"(?{letters}:{re.escape(''.join(prefix))})", prefix_flags & re.ASCII
                )
            else:
                first = compiler.chars.alternation(beginning)
            assertions, assertions_flag = _leading_assertions(parsed, self.flags)
            if first is not None and assertions and assertions_flag in (None, first.flags & re.ASCII):
                first = re.compile(f"{assertions}(?:{first.pattern})", first.flags & re.ASCII)
            self._candidates = None if first is None else first.search
            ending = compiler.chars.alternation(_first_characters(backward, backward_start)[0])
            self._endings = None if ending is None else ending.search

    def __repr__(self) -> str:
        return f"safe_regex.compile({self.pattern!r}, {self.flags:#x})"

    def search(self, text: str) -> SafeMatch | None:
        """The leftmost match, as `re.search` finds it, or None."""
        return next(self.iter_matches(text, 1), None)

    def fullmatch(self, text: str) -> SafeMatch | None:
        """The whole text as a match, or None (`re.fullmatch`)."""
        if not self._whole_match(text):
            return None
        return SafeMatch(self, text, 0, len(text), nonempty=False, whole=True)

    def iter_matches(self, text: str, limit: int | None = None) -> Iterator[SafeMatch]:
        """The matches `re.finditer` yields, in order, at most `limit` of them."""
        for start, end, nonempty in islice(self._matches(text), limit):
            yield SafeMatch(self, text, start, end, nonempty=nonempty, whole=False)

    def iter_spans(self, text: str, limit: int | None = None) -> Iterator[tuple[int, int]]:
        """The (start, end) of the matches `re.finditer` yields, at most `limit` of them."""
        if limit is None:
            return ((start, end) for start, end, _ in self._matches(text))
        return ((start, end) for start, end, _ in islice(self._matches(text), limit))

    # -- finding matches ---------------------------------------------------------------------------

    def _matches(self, text: str) -> Iterator[tuple[int, int, bool]]:
        """(start, end, whether an empty match was excluded) of each match, as `re.finditer`."""
        at = 0
        budget = 2 * (len(text) + 1) + FORWARD_BUDGET_SLACK
        if self._candidates is not None:
            # Candidate starts from a `re` search, each tried with a forward pass; a match is never
            # empty here. Passes from close candidates can overlap: past the budget, the backward
            # pass takes over.
            search = self._candidates
            failures = 0
            while True:
                found = search(text, at)
                if found is None:
                    return
                start = found.start()
                try:
                    end, budget = self._forward_end(text, start, False, budget)
                except _Budget:
                    # Failed candidates overlapped; matches' passes may not: a fresh budget.
                    at = start
                    budget = 2 * (len(text) + 1) + FORWARD_BUDGET_SLACK
                    break
                if end is None:
                    at = start + 1
                    failures += 1
                    if failures >= _DENSE_FAILURES and failures * 8 > at:
                        break  # candidates mostly fail: one backward pass costs less
                else:
                    yield start, end, False
                    at = end
        yield from self._from_starts(text, at, budget)

    def _from_starts(self, text: str, at: int, budget: int) -> Iterator[tuple[int, int, bool]]:
        """The matches from `at` on, their starts from the backward pass, their ends from forward
        passes while `budget` lasts."""
        starts = self._starts(text)
        memo: dict[int, set[int]] | None = None
        prune_at = 1024
        after_empty = False
        while True:
            start = starts.find(1, at)
            if start < 0:
                return
            nonempty = after_empty and start == at
            end: int | None = None
            if memo is None:
                try:
                    end, budget = self._forward_end(text, start, nonempty, budget)
                except _Budget:
                    memo = {}
            if memo is not None:
                end = self._backtrack(text, start, memo, nonempty=nonempty, whole=False, slots=None)
                if end is not None:
                    memo.pop(end, None)  # its states at `end` were on the path that matched
                    if len(memo) > prune_at:
                        for stale in [p for p in memo if p < end]:
                            del memo[stale]
                        prune_at = 2 * len(memo) + 1024
            if end is None:  # only an empty match started here, and one just ended here
                at = start + 1
                after_empty = False
                continue
            yield start, end, nonempty
            after_empty = end == start
            at = end

    def _whole_match(self, text: str) -> bool:
        dfa = self._whole
        n = len(text)
        row = dfa.row((self._start,), EDGE)
        at = 0
        while at < n - 1:
            stop = min(n - 1, at + _CHUNK_MAX)
            for ch in text[at:stop]:
                row = row[ch]
                if row.flag & EMPTY:
                    self.work.scanned += stop - at
                    return False
            self.work.scanned += stop - at
            at = stop
        if n:
            row = dfa.follow(row, text[-1], last=True)
        return dfa.final(row)

    def _forward_end(self, text: str, start: int, nonempty: bool, budget: int) -> tuple[int | None, int]:
        """Where the leftmost-first match from `start` ends (None: none does), and the budget left;
        `_Budget` when the pass would read more than `budget` characters."""
        dfa = self._first
        n = len(text)
        last = n - 1
        before = text[start - 1] if start else ""
        row = self._entries.get(before)
        if row is None:
            left = self._chars(before)[1] if before else EDGE
            row = self._entries[before] = dfa.row((self._start,), left)
        if start == n:
            return (None if nonempty or not dfa.final(row) else n), budget
        end = None
        at = start
        if nonempty:  # a match ending at `start` does not count, nor cut the threads after it
            row = dfa.follow(row, text[at], last=at == last, early=False)
            at += 1
        limit = min(last, start + budget)
        size = _CHUNK_MIN
        while at < limit and not row.flag & EMPTY:
            if at - start < _CHUNK_MIN:  # most matches are short: step by index, no slicing
                row = row[text[at]]
                at += 1
                if row.flag & MATCHED:
                    end = at - 1
                continue
            stop = min(limit, at + size)
            size = min(2 * size, _CHUNK_MAX)
            for position, ch in enumerate(text[at:stop], at):
                row = row[ch]
                flag = row.flag
                if flag:
                    if flag & MATCHED:
                        end = position
                    if flag & EMPTY:
                        stop = position + 1
                        break
            at = stop
        self.work.scanned += at - start
        if row.flag & EMPTY:
            return end, budget - (at - start)
        if at < last:
            raise _Budget
        if at == last:  # the last character: `$` may see it as a final newline
            row = dfa.follow(row, text[at], last=True)
            at += 1
            self.work.scanned += 1
            if row.flag & MATCHED:
                end = last
        if not row.flag & EMPTY and dfa.final(row):
            end = n
        return end, budget - (at - start)

    def _starts(self, text: str) -> bytearray:
        """A byte per position: 1 where some match starts (one backward pass)."""
        n = len(text)
        starts = bytearray(n + 1)
        dfa = self._backward
        row = dfa.row(frozenset(), EDGE)
        if n:
            backward = text[::-1]
            row = dfa.follow(row, backward[0], last=True)
            if row.flag & MATCHED:
                starts[n] = 1
            endings = self._endings
            idle = self._idle
            skipped = 0
            at = 1
            size = _CHUNK_MAX
            while at < n:
                stop = min(n, at + size)
                chunk = enumerate(backward[at:stop], at)
                at = stop
                size = min(size * 2, _CHUNK_MAX)
                for i, ch in chunk:
                    row = row[ch]
                    flag = row.flag
                    if not flag:
                        continue
                    if flag & MATCHED:
                        starts[n - i] = 1
                    if flag & EMPTY and endings is not None:
                        # Nothing in progress: jump to the next character a match can end with.
                        ahead = endings(backward, i + 1)
                        to = n if ahead is None else ahead.start()
                        if to == i + 1:
                            continue
                        skipped += to - i - 1
                        before = backward[to - 1]
                        row = idle.get(before) or idle.setdefault(before, dfa.row(frozenset(), self._chars(before)[1]))
                        if to <= stop and to - i - 1 <= _SKIP_BY_CONSUMING:
                            deque(islice(chunk, to - i - 1), maxlen=0)
                        else:
                            at = to
                            size = _CHUNK_MIN * 4
                            break
            self.work.scanned += n - skipped
        if dfa.final(row):
            starts[0] = 1
        return starts

    def _backtrack(
        self, text: str, start: int, memo: dict[int, set[int]], *, nonempty: bool, whole: bool, slots: list[int] | None
    ) -> int | None:
        """Where `re`'s match from `start` ends, by depth-first search in priority order; a state
        (instruction, loop depth, position) seen before, in this search or an earlier one of the
        same iteration, failed then, so each is visited once. Fills `slots` with the captures."""
        code = self._code
        chars = self._chars
        depths = self._depth
        n = len(text)
        stack: list[tuple[int, ...]] = [(self._start, 0, start)]
        work = self.work
        while stack:
            frame = stack.pop()
            if len(frame) == 2:  # undo a capture on the way back
                assert slots is not None
                slots[frame[0]] = frame[1]
                continue
            pc, depth, at = frame
            while True:
                seen = memo.get(at)
                if seen is None:
                    seen = memo[at] = set()
                state = pc * depths + depth
                if state in seen:
                    break
                seen.add(state)
                work.backtracked += 1
                op = code[pc]
                kind = op[0]
                if kind == CHAR:
                    if at < n and chars(text[at])[0] >> op[1] & 1:
                        pc, depth, at = op[2], 0, at + 1
                        continue
                    break
                if kind == SPLIT:
                    stack.extend((target, depth, at) for target in reversed(op[1][1:]))
                    pc = op[1][0]
                elif kind == ASSERT:
                    if not _holds(op[1], chars.left(text, at), chars.right(text, at)):
                        break
                    pc = op[2]
                elif kind == SAVE:
                    if slots is not None:
                        stack.append((op[1], slots[op[1]]))
                        slots[op[1]] = at
                    pc = op[2]
                elif kind == ENTER:
                    pc, depth = op[1], depth + 1
                elif kind == UNTIL:
                    pc, depth = (op[2], depth - 1) if depth else (op[1], 0)
                else:
                    if (nonempty and at == start) or (whole and at != n):
                        break
                    return at
        return None

    def _captures(self, text: str, start: int, *, nonempty: bool, whole: bool) -> list[int]:
        slots = [-1] * (2 * self.groups + 2)
        self._backtrack(text, start, {}, nonempty=nonempty, whole=whole, slots=slots)
        return slots


def compile(pattern: str, flags: int = 0) -> SafePattern:
    """Compile `pattern` (`re` syntax and flags) for linear-time matching.

    Raises `re.error` for a pattern `re` rejects and `UnsupportedPattern` for one this engine
    cannot run in linear time.
    """
    return SafePattern(pattern, flags)


def describe(pattern: str, error: Exception) -> str:
    """What is wrong with `pattern`, given what `compile` raised for it."""
    if isinstance(error, UnsupportedPattern):
        return f"pattern {pattern!r} is not supported: {error}"
    return f"pattern {pattern!r} does not compile: {error}"


def problem(pattern: str, flags: int = 0) -> str | None:
    """Why `pattern` cannot be used (it does not compile, or needs a refused construct), or None."""
    try:
        compile(pattern, flags)
    except (re.error, UnsupportedPattern) as exc:
        return describe(pattern, exc)
    return None

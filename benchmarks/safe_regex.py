"""Throughput of the checks' linear-time regex engine (`safe_regex`) against `re`.

    python benchmarks/safe_regex.py [--megabytes 3] [--repeat 3]

Benign input: a report-like text of `--megabytes` MB and patterns as rubrics write them (a
labelled number, invoice ids, a `Total:` line, a lookbehind/lookahead-delimited number, every
word, the whole text): CPU seconds, MB/s and matches for `re` and for `safe_regex`, all matches
counted as `text_matches` counts them. For `safe_regex`, the first run on a fresh pattern (its DFA
states built as it goes) and the best of `--repeat` more.

Pathological input: patterns and texts on which `re` backtracks (no match anywhere). `re` is
timed at sizes small enough to finish (its time grows polynomially or exponentially with them),
`safe_regex` at 1 MB, with the characters its DFA stepped through and the transitions it built.

CPU seconds of this process, so that other load on the machine does not count.
Prints one table per part.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable

from skill2env.kits.checks import labelled_number
from skill2env.rubric.checks import safe_regex

LINE = "The quick brown fox jumps over 12 lazy dogs; see INV-2041, Total: 1,234.50 EUR (était 1 200)\n"
BENIGN = [
    ("labelled number", labelled_number("Balance due", 1234.5), re.IGNORECASE),
    ("invoice ids", r"INV-\d+", 0),
    ("total line", r"(?m)^.*Total:\s*([\d,]+\.\d+)", 0),
    ("delimited number", r"(?<![\d.])\d{1,3}(?:,\d{3})*(?![\d,])", 0),
    ("every word", r"\b\w+\b", 0),
    ("whole text", r"(?s).+", 0),
]
PATHOLOGICAL = [
    ("stacked \\s*", labelled_number("Balance due", 1234.5), re.IGNORECASE, lambda n: "Balance due" + " " * n + "x"),
    ("(a*)*b", r"(a*)*b", 0, lambda n: "a" * n),
    ("(a|aa)*c", r"(a|aa)*c", 0, lambda n: "a" * n),
    ("(x+x+)+y", r"(x+x+)+y", 0, lambda n: "x" * n),
]
RE_SIZES = {"stacked \\s*": (50, 100, 200), "(a*)*b": (18, 20, 22), "(a|aa)*c": (22, 25, 28), "(x+x+)+y": (16, 18, 20)}
SAFE_SIZE = 1 << 20


def seconds(run: Callable[..., object], *args: object) -> float:
    """CPU seconds of one call (this process only: other load on the machine does not count)."""
    started = time.process_time()
    run(*args)
    return time.process_time() - started


def count_re(pattern: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def count_safe(pattern: safe_regex.SafePattern, text: str) -> int:
    return sum(1 for _ in pattern.iter_spans(text))


def benign(megabytes: float, repeat: int) -> None:
    text = LINE * int(megabytes * 1e6 / len(LINE))
    size = len(text) / 1e6
    print(f"benign input: {size:.1f} MB, {len(text.splitlines())} lines; CPU seconds")
    print(f"{'pattern':18} {'re s':>7} {'re MB/s':>8} {'safe 1st':>9} {'safe s':>7} {'safe MB/s':>9} {'matches':>8}")
    for name, source, flags in BENIGN:
        expected = re.compile(source, flags)
        compiled = safe_regex.compile(source, flags)
        found = count_safe(compiled, text)
        assert found == count_re(expected, text), name
        compiled = safe_regex.compile(source, flags)
        first = seconds(count_safe, compiled, text)
        best = min(seconds(count_safe, compiled, text) for _ in range(repeat))
        by_re = min(seconds(count_re, expected, text) for _ in range(repeat))
        print(f"{name:18} {by_re:7.3f} {size / by_re:8.1f} {first:9.3f} {best:7.3f} {size / best:9.1f} {found:8d}")


def pathological(repeat: int) -> None:
    print("\npathological input: no match anywhere; CPU seconds")
    print(f"{'pattern':14} {'re: chars → s':46} {'safe: chars → s':20} {'DFA chars':>10} {'transitions':>12}")
    for name, source, flags, make in PATHOLOGICAL:
        expected = re.compile(source, flags)
        by_re = ", ".join(f"{n} → {seconds(expected.search, make(n)):.3f}" for n in RE_SIZES[name])
        text = make(SAFE_SIZE)
        compiled = safe_regex.compile(source, flags)
        assert compiled.search(text) is None
        compiled = safe_regex.compile(source, flags)
        best = min(seconds(compiled.search, text) for _ in range(repeat))
        work = compiled.work
        print(
            f"{name:14} {by_re:46} {f'{len(text)} → {best:.3f}':20} {work.scanned // repeat:10d} {work.transitions:12d}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    benign(arguments.megabytes, arguments.repeat)
    pathological(arguments.repeat)


if __name__ == "__main__":
    main()

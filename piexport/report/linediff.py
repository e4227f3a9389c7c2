"""Line diffs of text from a session, bounded: difflib's matcher is quadratic in the lines
two texts share (a file of 20,000 lines drawn from 50 distinct ones took minutes), and
sessions hold such files (logs, CSV, lock files written twice).

A diff is made only when its work is small: the lines of one text that occur in the other,
times how often they occur there, is what difflib's matcher walks. Past :data:`MAX_WORK`, or
past :data:`SECONDS` of CPU, the caller gets None and says so (counts fall back to lines that
differ as multisets, which is what a reader wants from "+12 -3" anyway).
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

from ..deadline import bounded

MAX_WORK = 4_000_000
"""Line pairs difflib may compare."""
SECONDS = 2.0
"""CPU one diff may use, whatever its estimate said."""

Opcodes = list[tuple[str, int, int, int, int]]


def work(a: Sequence[str], b: Sequence[str]) -> int:
    """How many line pairs difflib's matcher compares, about: for each line of ``a``, the
    lines of ``b`` equal to it."""
    counted = Counter(b)
    return sum(n * counted[line] for line, n in Counter(a).items() if line in counted)


def opcodes(a: Sequence[str], b: Sequence[str], *, junk: bool = False) -> Opcodes | None:
    """difflib's opcodes turning ``a`` into ``b``, or None when that would cost too much."""
    if work(a, b) > MAX_WORK:
        return None
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=junk)
    return bounded(
        SECONDS, lambda: [(str(op), i1, i2, j1, j2) for op, i1, i2, j1, j2 in matcher.get_opcodes()]
    )


def line_counts(old: str, new: str) -> tuple[int, int]:
    """Lines added and removed going from ``old`` to ``new``: by a diff where one is cheap,
    else the lines of each that the other lacks (counted with their repeats)."""
    a, b = old.splitlines(), new.splitlines()
    ops = opcodes(a, b)
    if ops is None:
        ca, cb = Counter(a), Counter(b)
        return sum((cb - ca).values()), sum((ca - cb).values())
    added = removed = 0
    for op, i1, i2, j1, j2 in ops:
        if op != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed


def unified(old: str, new: str, fromfile: str, tofile: str) -> list[str] | None:
    """A unified diff's lines (each ending in a newline; a last line without one says so),
    or None when it would cost too much."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if work(a, b) > MAX_WORK:
        return None
    made = bounded(SECONDS, lambda: list(difflib.unified_diff(a, b, fromfile, tofile)))
    if made is None:
        return None
    return [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in made]

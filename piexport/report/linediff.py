"""Line diffs of text from a session, bounded by counted work: difflib's matcher is quadratic
in the lines two texts share (a file of 20,000 lines drawn from 50 distinct ones took
minutes), and sessions hold such files (logs, CSV, lock files written twice).

difflib's matcher finds the longest match in a range of ``a`` by walking, for each of its
lines, the lines of ``b`` equal to it; it does so again in each part left on either side.
:class:`_Counted` counts those line pairs as it goes (from prefix sums, in constant time a
call) and gives up past :data:`MAX_WORK`: the caller gets None and says so (counts fall back
to lines that differ as multisets, which is what a reader wants from "+12 -3" anyway). No
clock decides: the same two texts give the same diff, or the same None, on any machine.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from itertools import accumulate
from typing import Any

MAX_WORK = 4_000_000
"""Line pairs difflib may compare for one diff."""

Opcodes = list[tuple[str, int, int, int, int]]


class TooMuchWork(Exception):
    """The diff would compare more than :data:`MAX_WORK` line pairs."""


def work(a: Sequence[str], b: Sequence[str]) -> int:
    """How many line pairs difflib's matcher compares in its first pass: for each line of
    ``a``, the lines of ``b`` equal to it."""
    counted = Counter(b)
    return sum(n * counted[line] for line, n in Counter(a).items() if line in counted)


class _Counted(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """difflib's matcher, counting the line pairs its longest-match search walks."""

    a: Sequence[str]
    b2j: dict[str, list[int]]

    def __init__(self, a: Sequence[str], b: Sequence[str], autojunk: bool) -> None:
        self.spent = 0
        self._cost: list[int] = [0]
        super().__init__(None, a, b, autojunk=autojunk)

    def set_seq2(self, b: Any) -> None:
        super().set_seq2(b)
        self._costs()

    def set_seq1(self, a: Any) -> None:
        super().set_seq1(a)
        if hasattr(self, "b2j"):
            self._costs()

    def _costs(self) -> None:
        # a line's cost is how many lines of b its search walks (b2j: popular lines dropped)
        b2j = self.b2j
        self._cost = [0, *accumulate(len(b2j.get(line, ())) for line in self.a)]

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Any:
        end = len(self.a) if ahi is None else ahi
        self.spent += self._cost[end] - self._cost[alo] + (end - alo)
        if self.spent > MAX_WORK:
            raise TooMuchWork
        return super().find_longest_match(alo, ahi, blo, bhi)


def _matcher(a: Sequence[str], b: Sequence[str], junk: bool) -> _Counted | None:
    if work(a, b) > MAX_WORK:  # the first pass alone is too much: not even the tables
        return None
    return _Counted(a, b, junk)


def opcodes(a: Sequence[str], b: Sequence[str], *, junk: bool = False) -> Opcodes | None:
    """difflib's opcodes turning ``a`` into ``b``, or None when that would cost too much."""
    matcher = _matcher(a, b, junk)
    if matcher is None:
        return None
    try:
        return [(str(op), i1, i2, j1, j2) for op, i1, i2, j1, j2 in matcher.get_opcodes()]
    except TooMuchWork:
        return None


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
    """A unified diff's lines, as ``difflib.unified_diff`` makes them (each ending in a
    newline; a last line without one says so), or None when it would cost too much."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    matcher = _matcher(a, b, junk=True)  # unified_diff's own matcher keeps autojunk on
    if matcher is None:
        return None
    try:
        groups = list(matcher.get_grouped_opcodes(3))
    except TooMuchWork:
        return None
    made: list[str] = []
    for group in groups:
        if not made:
            made += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2])
        new_range = _range(first[3], last[4])
        made.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                made += [" " + line for line in a[i1:i2]]
                continue
            if tag in {"replace", "delete"}:
                made += ["-" + line for line in a[i1:i2]]
            if tag in {"replace", "insert"}:
                made += ["+" + line for line in b[j1:j2]]
    return [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in made]


def _range(start: int, stop: int) -> str:
    """difflib's ``_format_range_unified``: a range of lines as unified diffs write it."""
    beginning = start + 1  # lines start numbering with one
    length = stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1  # an empty range begins at the line before it
    return f"{beginning},{length}"

"""Line diffs of session text are exact when cheap and bounded when not."""

from __future__ import annotations

import difflib

from piexport.report import linediff
from piexport.report.files import net_change


def test_a_small_change_is_diffed_exactly() -> None:
    old = "".join(f"line {i}\n" for i in range(200))
    new = old.replace("line 50\n", "line fifty\nline 50b\n").replace("line 120\n", "")
    assert linediff.line_counts(old, new) == (2, 2)
    made = linediff.unified(old, new, "a/x", "b/x")
    assert made == list(
        difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/x", "b/x")
    )


def test_many_repeated_lines_are_not_diffed_line_by_line() -> None:
    """20,000 lines drawn from 50: difflib took minutes; the counts come from the lines each
    text has that the other lacks, and the net change says why there is no diff."""
    old = "".join(f"line {i % 50}\n" for i in range(20_000))
    new = "".join(f"line {(i * 7) % 50}\n" for i in range(20_000)) + "extra\n"
    assert linediff.work(old.splitlines(), new.splitlines()) > linediff.MAX_WORK
    assert linediff.opcodes(old.splitlines(), new.splitlines()) is None
    assert linediff.unified(old, new, "a", "b") is None
    assert linediff.line_counts(old, new) == (1, 0)
    net = net_change("x.csv", old, new, None)
    assert (net.status, net.added, net.removed, net.diff) == ("changed", 1, 0, None)
    assert net.reason and "too big" in net.reason

"""A diff is bounded by the line pairs difflib walks, counted as it goes: no clock decides
whether a session's change gets a diff or a count."""

from __future__ import annotations

import difflib
import random

import pytest

from piexport.report import linediff


def test_the_diff_is_difflibs_where_it_is_made() -> None:
    rng = random.Random(7)
    for _ in range(200):
        a = [f"line {rng.randint(0, 30)}\n" for _ in range(rng.randint(0, 60))]
        b = [f"line {rng.randint(0, 30)}\n" for _ in range(rng.randint(0, 60))]
        if b and rng.random() < 0.3:
            b[-1] = b[-1].rstrip("\n")
        old, new = "".join(a), "".join(b)
        made = list(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "x", "y"))
        made = [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in made]
        assert linediff.unified(old, new, "x", "y") == made
        matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
        assert linediff.opcodes(old.splitlines(), new.splitlines()) == matcher.get_opcodes()


def test_work_past_the_first_pass_is_counted_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Distinct lines with every 10th changed: the first pass is cheap (a pair a line) but
    difflib then searches what is left after each match again, n²/20 pairs in all (20,000
    lines: 20 million, seconds). The count stops it, the same way on any machine; the
    counts then come from the lines each text lacks. (A cap of 100,000 here, on 2,000
    lines, is the same shape as the real one, 4 million, on 10,000.)"""
    monkeypatch.setattr(linediff, "MAX_WORK", 100_000)
    old = [f"line {i}\n" for i in range(2_000)]
    new = ["changed\n" if i % 10 == 0 else line for i, line in enumerate(old)]
    assert linediff.work(old, new) < linediff.MAX_WORK
    assert linediff.opcodes(old, new) is None
    assert linediff.unified("".join(old), "".join(new), "a", "b") is None
    assert linediff.line_counts("".join(old), "".join(new)) == (200, 200)
    # a fifth of it is diffed, exactly
    small_old, small_new = old[:400], new[:400]
    ops = linediff.opcodes(small_old, small_new)
    expected = difflib.SequenceMatcher(None, small_old, small_new, autojunk=False)
    assert ops == expected.get_opcodes()

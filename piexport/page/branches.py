"""The session page's Branches panel and the data its compare view is built from.

The panel is HTML made by the template (it works without JavaScript). The compare view is
built by the page's script from a JSON data island: every pair of leaves compared here
with :func:`~piexport.report.compare.compare`, so the page and ``piexport compare`` agree.
Every string a reader will see goes into the island with its hidden characters already
shown as marks, and the island is escaped so no ``<`` can end its ``<script>`` element.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from ..read.jsonutil import dumps
from ..report.branches import Branch, figures_line, figures_text, list_branches
from ..report.compare import Cache, Comparison, Side, compare
from ..report.outline import plain_words
from ..report.paths import shown_path
from ..text.textsafe import plain_controls
from .view import SessionView

MAX_COMPARED_LEAVES = 40
"""Past this many leaves the page holds no comparisons (780 pairs at 40); the panel says
``piexport compare`` makes one."""


@dataclass(frozen=True, slots=True)
class BranchPanel:
    branches: list[Branch]
    island: Markup
    """The compare view's data as a ``<script type="application/json">`` element."""
    comparable: bool
    trivial: frozenset[str] = frozenset()
    """Leaves of side branches with nothing of their own to count (a label, a model change,
    a summary left behind, a turn that used nothing): listed on one line, not given a card
    of zeros each."""

    @staticmethod
    def words(text: str) -> str:
        """A preview as the words a reader sees (no ``##`` or ``**``)."""
        return plain_words(text)


def is_trivial(b: Branch) -> bool:
    """A side branch with nothing of its own to count: no message at all, or none with a
    turn, tool call, error, token, cost or modified file (a card of zeros, issue 38)."""
    f = b.figures
    if b.current:
        return False
    return f.message_count == 0 or not (
        f.messages.get("user", 0)
        or f.tool_calls
        or f.error_count
        or f.tokens["total"]
        or f.cost
        or f.known_estimate
        or f.files_modified
        or f.compactions
    )


def _t(text: Any) -> str:
    return plain_controls(text if isinstance(text, str) else str(text))


class _Pool:
    """Values stored once, referred to by their place. Every pair of leaves holds both its
    sides, and a leaf's turns after a fork are the same in every pair with that fork: held
    once each, 25 leaves take 25 sides' worth of turns instead of 600 (the island grew with
    the square of the leaves)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._index: dict[str, int] = {}
        self._made: dict[int, tuple[Any, int]] = {}
        self._words: dict[str, str] = {}

    def words(self, v: SessionView, text: str) -> str:
        """A turn's text as its card shows it, made once: a turn after a fork is in the
        sides of every pair with a leaf under it (most of a branchy page's panel time)."""
        shown = self._words.get(text)
        if shown is None:
            shown = self._words[text] = _t(v.session.derive(plain_words(text)))
        return shown

    def add(self, value: Any) -> int:
        key = dumps(value, indent=False)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(value)
        return self._index[key]

    def place(self, source: Any, make: Callable[[], Any]) -> int:
        """The place of what ``make`` builds from ``source``, built and compared once per
        source object (the compare cache hands out one Side per leaf and fork, to every
        pair that shares it). The source is kept so its id stays its own."""
        key = id(source)
        if key not in self._made:
            self._made[key] = (source, self.add(make()))
        return self._made[key][1]


def _side(v: SessionView, side: Side, line: str, pool: _Pool) -> dict[str, Any]:
    return {
        "leaf": _t(side.leaf),
        "dom": v.dom_of(side.leaf),
        "labels": [_t(x) for x in side.labels],
        "entries": len(side.own),
        "figures": figures_text(side.figures),
        "line": line,
        "stop": _t(side.stop) if side.stop else None,
        "files": [
            _t(v.session.derive(p))
            for p in sorted({shown_path(p, v.session.cwd) for p in side.figures.files_modified})
        ],
        "turns": [
            pool.add(
                [
                    v.dom_of(t.entry),
                    None if t.user is None else pool.words(v, t.user),
                    pool.words(v, t.answer),
                    t.tool_calls,
                    t.tool_errors,
                    _t(t.stop) if t.stop else None,
                ]
            )
            for t in side.turns
        ],
    }


def _pair(
    v: SessionView, c: Comparison, lines: dict[str, str], turns: _Pool, sides: _Pool
) -> dict[str, Any]:
    fork = c.fork
    return {
        "fork": None if fork is None else v.dom_of(fork),
        "forkText": None if fork is None else _t(v.summaries.get(fork, fork)),
        "shared": c.shared,
        "a": sides.place(c.a, lambda: _side(v, c.a, lines.get(c.a.leaf, ""), turns)),
        "b": sides.place(c.b, lambda: _side(v, c.b, lines.get(c.b.leaf, ""), turns)),
        "turns": [[i, j, m] for i, j, m in c.alignment],
        "onlyA": [_t(p) for p in c.only_a],
        "onlyB": [_t(p) for p in c.only_b],
        "both": [
            {
                "path": _t(f.path),
                "status": f.status,
                "diff": None if f.diff is None else _t(f.diff),
                "reason": None if f.reason is None else _t(f.reason),
            }
            for f in c.both
        ],
    }


def island(data: Any) -> Markup:
    """A JSON data island no text can break out of: ``<``, ``>`` and ``&`` as escapes."""
    text = (
        dumps(data, indent=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        # a session's text may hold U+2028/2029: legal in JSON, but kept escaped as well
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )
    return Markup(f'<script type="application/json" id="branch-data">{text}</script>')


def branch_panel(v: SessionView) -> BranchPanel:
    """The panel's branches, and every pair of leaves compared, for the page."""
    branches = list_branches(v.session)
    comparable = 1 < len(branches) <= MAX_COMPARED_LEAVES
    pairs: dict[str, Any] = {}
    turns, sides = _Pool(), _Pool()
    if comparable:
        lines = {b.leaf: figures_line(b) for b in branches}
        cache = Cache()
        for i, a in enumerate(branches):
            for j in range(i + 1, len(branches)):
                c = compare(v.session, a.leaf, branches[j].leaf, cache)
                pairs[f"{i},{j}"] = _pair(v, c, lines, turns, sides)
    data = {
        "leaves": [
            {
                "id": b.leaf,
                "name": _t(b.leaf),
                "dom": v.dom_of(b.leaf),
                "current": b.current,
                "labels": [_t(x) for x in b.labels],
            }
            for b in branches
        ],
        "pairs": pairs,
        "sides": sides.items,
        "turns": turns.items,
    }
    trivial = frozenset(b.leaf for b in branches if is_trivial(b))
    return BranchPanel(branches, island(data), comparable, trivial)

"""Where the time went on a session's current branch: figures for the page's timeline.

Pure data, no drawing (``templates/macros/timeline.html.j2`` draws it). Time is read from the
gaps between consecutive entries of the branch, in the branch's order: each gap is the time
it took to make the entry that ends it, so a gap before an assistant turn is the model's
time, one before a tool result the tool's, one before a user message the reader's (typing,
reading). A gap longer than ``stats.IDLE_GAP_MS`` is idle time, whatever ends it (the
reader away, a night), as in ``stats.active_ms``. A gap whose clock runs backwards counts as
0 (never a negative duration) and is counted apart, so a reader knows the clock was off.

A long branch is cut into at most ``MAX_SPANS`` runs of consecutive entries of equal count
(never by time, so a run is never empty and its entries stay together): each run's figures
are the sums of its entries', its marks (failures, retries, compactions, branch points)
counted and linked to the first of each.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..read.figures import usage_is_valid
from ..read.jsonutil import finite_number
from ..read.model import Entry, Session
from ..read.tree import timestamp_ms
from .prices import estimate_message
from .stats import IDLE_GAP_MS, failure, usage_source

MAX_SPANS = 240
"""Runs drawn at most: a 20,000-entry branch's timeline stays under ~2,000 SVG elements."""
KINDS = ("model", "tools", "user", "other")
"""What a gap of active time was spent on, by the entry that ends it."""
MARKS = ("failure", "retry", "compaction", "branch", "idle")


def kind_of(entry: Entry) -> str:
    """Whose time the gap before this entry was: the model's for an assistant turn, the
    tools' for a tool result (and a shell command the reader ran), the reader's for a user
    message, ``other`` for the rest (compactions, summaries, settings)."""
    role = entry.role
    if role == "assistant":
        return "model"
    if role in ("toolResult", "bashExecution"):
        return "tools"
    if role == "user":
        return "user"
    return "other"


@dataclass(slots=True)
class Span:
    """A run of consecutive entries of the branch, and what its time went on."""

    first: str
    """Id of its first entry."""
    last: str
    entries: int = 0
    start_ms: int = 0
    """Active time before this run on the branch (its place on the timeline)."""
    ms: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    """Active time by kind (``KINDS``), milliseconds."""
    idle_ms: int = 0
    idle_gaps: int = 0
    marks: dict[str, list[str]] = field(default_factory=dict)
    """Entry ids of each kind of mark (``MARKS``) in this run, in order."""
    cost: float = 0.0
    """Cost the run's entries reported."""
    estimated: float = 0.0
    """Estimated cost of its assistant turns that reported none."""
    estimated_turns: int = 0
    costed: int = 0
    turns: int = 0
    """Assistant turns in the run."""

    @property
    def active_ms(self) -> int:
        return sum(self.ms.values())


@dataclass(slots=True)
class Timeline:
    """The branch's time in runs (``spans``), with its totals."""

    spans: list[Span]
    entries: int
    """Entries on the branch."""
    timed: int
    """Entries with a readable timestamp (the others add no time)."""
    per_span: int
    """Entries in each run (the last may have fewer); 1 when nothing was merged."""
    ms: dict[str, int]
    idle_ms: int
    idle_gaps: int
    backwards: int
    """Gaps whose clock ran backwards, counted as 0."""
    cost: float | None
    """Reported cost of the branch, or None when nothing reported one."""
    estimated: float | None
    """Estimated cost of the turns that reported none, or None for no estimate."""
    marks: dict[str, int]
    """How many of each mark (``MARKS``) on the branch."""

    @property
    def active_ms(self) -> int:
        return sum(self.ms.values())

    @property
    def span_ms(self) -> int:
        """Active and idle time: the branch's first entry to its last, in its order."""
        return self.active_ms + self.idle_ms


def timeline(session: Session, leaf_id: str | None = None, max_spans: int = MAX_SPANS) -> Timeline:
    """The timeline of the branch that ends at ``leaf_id`` (the current one by default)."""
    path = session.path_entries(leaf_id)
    size = max(1, math.ceil(len(path) / max(1, max_spans)))
    branch_points = set(session.tree.branch_points)
    spans: list[Span] = []
    totals = dict.fromkeys(KINDS, 0)
    idle = idle_gaps = backwards = timed = 0
    cost = estimated = 0.0
    costed = guessed = 0
    counts = dict.fromkeys(MARKS, 0)
    prev_ms: int | None = None
    after_error = False
    for i, e in enumerate(path):
        if i % size == 0:
            spans.append(Span(e.id, e.id, start_ms=sum(totals.values())))
        span = spans[-1]
        span.last = e.id
        span.entries += 1
        ms = timestamp_ms(e.timestamp)
        if ms is not None:
            timed += 1
            if prev_ms is not None:
                gap = ms - prev_ms
                if gap < 0:
                    backwards += 1
                elif gap > IDLE_GAP_MS:
                    span.idle_ms += gap
                    span.idle_gaps += 1
                    idle += gap
                    idle_gaps += 1
                    _mark(span, counts, "idle", e.id)
                else:
                    kind = kind_of(e)
                    span.ms[kind] += gap
                    totals[kind] += gap
            prev_ms = ms
        failed = failure(e)
        if failed is not None:
            _mark(span, counts, "failure", e.id)
        if e.role == "assistant":
            span.turns += 1
            if after_error:
                _mark(span, counts, "retry", e.id)
            after_error = failed == "error"
        elif e.role == "user":
            after_error = False
        if e.type == "compaction":
            _mark(span, counts, "compaction", e.id)
        if e.id in branch_points:
            _mark(span, counts, "branch", e.id)
        paid, guess = _cost(e)
        if paid:
            span.cost += paid
            span.costed += 1
            cost += paid
            costed += 1
        if guess is not None:
            span.estimated += guess
            span.estimated_turns += 1
            estimated += guess
            guessed += 1
    return Timeline(
        spans=spans,
        entries=len(path),
        timed=timed,
        per_span=size,
        ms=totals,
        idle_ms=idle,
        idle_gaps=idle_gaps,
        backwards=backwards,
        cost=cost if costed else None,
        estimated=estimated if guessed else None,
        marks=counts,
    )


def _mark(span: Span, counts: dict[str, int], kind: str, entry_id: str) -> None:
    span.marks.setdefault(kind, []).append(entry_id)
    counts[kind] += 1


def _cost(e: Entry) -> tuple[float, float | None]:
    """The cost an entry reported (0 for none), and for an assistant turn that reported none
    its estimate (``prices``): read as ``stats.compute_figures`` reads them, so the
    timeline's totals are the header's."""
    source = usage_source(e)
    paid = 0.0
    if source is not None and usage_is_valid(source.usage):
        c = source.usage.get("cost")
        if isinstance(c, dict):
            n = finite_number(c.get("total"))
            paid = 0.0 if n is None else float(n)
    msg = e.message
    if e.type != "message" or msg is None or msg.get("role") != "assistant":
        return paid, None
    return paid, estimate_message(msg, e.timestamp)

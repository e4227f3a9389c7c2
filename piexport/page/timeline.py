"""The session page's timeline, "Where the time went": ``report.timeline``'s figures placed
for ``templates/macros/timeline.html.j2`` (inline SVG, no script, no style attribute).

The x axis is active time on the current branch: idle gaps (over ``IDLE_GAP_MS``) take no
width and are drawn as a dashed line where they fell. Each run of entries is a bar in the
band, cut by whose time it was (model, tools, the reader, other); failures, retries,
compactions and branch points are ticks in their own lanes above it; the cost as it accrues
is a line over the band. Every part links to its entry. Only figures and fixed words are
written here; they still pass through the page's ``finalize`` (the redaction gate) and
Jinja's escaping like every other text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..report.branches import cost_label, duration
from ..report.stats import IDLE_GAP_MS
from ..report.timeline import KINDS, Span, Timeline, timeline
from .view import SessionView

WIDTH = 1000.0
"""The viewBox's width; the page stretches it to the column (``preserveAspectRatio="none"``)."""
LANES = {"failure": 1.0, "retry": 1.0, "compaction": 7.0, "branch": 13.0}
"""Top of each mark's lane (a retry shares the failures' lane, in its own colour)."""
LANE_H = 5.0
BAND = (20.0, 40.0)
"""Top and bottom of the band of bars (and of the cost line)."""
KIND_WORDS = {"model": "model", "tools": "tools", "user": "you", "other": "other"}
MARK_WORDS = {
    "failure": ("failure", "failures"),
    "retry": ("retry", "retries"),
    "compaction": ("compaction", "compactions"),
    "branch": ("branch point", "branch points"),
    "idle": ("idle gap", "idle gaps"),
}


@dataclass(slots=True)
class Piece:
    x: float
    w: float
    cls: str


@dataclass(slots=True)
class Run:
    """One run of entries drawn: its pieces (one per kind with time), one link, one title."""

    href: str
    title: str
    x: float
    w: float
    pieces: list[Piece]


@dataclass(slots=True)
class Tick:
    x: float
    y1: float
    y2: float
    cls: str
    title: str
    href: str


@dataclass(slots=True)
class TimelineView:
    summary: str
    """The branch's figures in words (what each covers)."""
    note: str
    runs: list[Run] = field(default_factory=list)
    ticks: list[Tick] = field(default_factory=list)
    cost_line: str = ""
    """The polyline's points: cost (reported and estimated) accrued along the branch."""
    cost_top: str = ""
    legend: list[tuple[str, str]] = field(default_factory=list)
    head: list[str] = field(default_factory=list)
    rows: list[list[object]] = field(default_factory=list)
    foot: list[str] = field(default_factory=list)
    width: float = WIDTH
    active: str = ""
    idle: str = ""

    @property
    def elements(self) -> int:
        """SVG elements drawn (``<a>``, ``<rect>``, ``<line>``, ``<title>``; a tick has a
        wider clear rect to be clicked by), for the bound."""
        return sum(2 + len(r.pieces) for r in self.runs) + 4 * len(self.ticks) + 1


def _d(ms: int) -> str:
    return duration(ms / 1000)


def _count(n: int, kind: str) -> str:
    one, many = MARK_WORDS[kind]
    return f"{n:,} {one if n == 1 else many}"


def timeline_view(view: SessionView) -> TimelineView | None:
    """The current branch's timeline, or None for a branch with fewer than two entries."""
    t = timeline(view.session)
    if t.entries < 2:
        return None
    return draw(t, view.dom_of)


def draw(t: Timeline, dom: Callable[[str], str]) -> TimelineView:
    """Place a timeline's figures; ``dom_of`` maps an entry id to its element's id."""
    active = t.active_ms
    by_time = active > 0
    scale = WIDTH / (active if by_time else len(t.spans))
    out = TimelineView(summary=_summary(t), note=_note(t))
    out.active, out.idle = _d(active), _d(t.idle_ms)
    out.legend = [(k, KIND_WORDS[k]) for k in KINDS if t.ms[k]]
    out.legend += [(f"mark-{k}", MARK_WORDS[k][1]) for k in LANES if t.marks[k]]
    if t.marks["idle"]:
        out.legend.append(("mark-idle", f"idle (a gap over {IDLE_GAP_MS // 60_000} min)"))
    total_cost = (t.cost or 0) + (t.estimated or 0)
    if total_cost:
        out.legend.append(("cost", "cost so far (line)"))
        out.cost_top = cost_label(t.cost, t.estimated)
    points = [f"0,{BAND[1]:g}"]
    spent = 0.0
    out.head = ["Entries", "Active", "Model", "Tools", "You", "Idle", "Failures", "Cost"]
    for i, s in enumerate(t.spans):
        x = (s.start_ms if by_time else i) * scale
        w = (s.active_ms if by_time else 1) * scale
        href = "#" + dom(s.first)
        pieces: list[Piece] = []
        at = x
        for k in KINDS:
            if s.ms[k] and by_time:
                pieces.append(Piece(at, s.ms[k] * scale, k))
                at += s.ms[k] * scale
        if not by_time:
            pieces.append(Piece(x, w, "other"))
        label = _run_label(s, t.per_span)
        out.runs.append(Run(href, _run_title(label, s), x, w, pieces))
        for kind, y1 in LANES.items():
            ids = s.marks.get(kind)
            if ids:
                out.ticks.append(
                    Tick(
                        x + w / 2,
                        y1,
                        y1 + LANE_H,
                        f"mark-{kind}",
                        _tick_title(label, kind, len(ids)),
                        "#" + dom(ids[0]),
                    )
                )
        if s.idle_ms:
            first_idle = s.marks["idle"][0]
            out.ticks.append(
                Tick(
                    x,
                    0.0,
                    BAND[1],
                    "mark-idle",
                    f"{label}: idle {_d(s.idle_ms)} ({_count(s.idle_gaps, 'idle')} over "
                    f"{IDLE_GAP_MS // 60_000} min), left out of the width",
                    "#" + dom(first_idle),
                )
            )
        spent += s.cost + s.estimated
        if total_cost:
            y = BAND[1] - spent / total_cost * (BAND[1] - BAND[0])
            points.append(f"{x + w:.2f},{y:.2f}")
        out.rows.append(
            [
                (label, href),
                _d(s.active_ms),
                _d(s.ms["model"]),
                _d(s.ms["tools"]),
                _d(s.ms["user"]),
                _d(s.idle_ms) if s.idle_ms else "",
                f"{len(s.marks.get('failure', ())):,}" if s.marks.get("failure") else "",
                cost_label(
                    s.cost if s.costed else None, s.estimated if s.estimated_turns else None
                ),
            ]
        )
    if total_cost:
        out.cost_line = " ".join(points)
    out.foot = [
        "Branch",
        _d(active),
        _d(t.ms["model"]),
        _d(t.ms["tools"]),
        _d(t.ms["user"]),
        _d(t.idle_ms),
        f"{t.marks['failure']:,}",
        cost_label(t.cost, t.estimated),
    ]
    return out


def _run_label(s: Span, per_span: int) -> str:
    return "one entry" if s.entries == 1 and per_span == 1 else f"{s.entries:,} entries"


def _run_title(label: str, s: Span) -> str:
    parts = [f"{KIND_WORDS[k]} {_d(s.ms[k])}" for k in KINDS if s.ms[k]]
    return f"{label}: {_d(s.active_ms)} active" + (f" ({', '.join(parts)})" if parts else "")


def _tick_title(label: str, kind: str, n: int) -> str:
    return f"{label}: {_count(n, kind)}" + (" (links to the first)" if n > 1 else "")


def _summary(t: Timeline) -> str:
    words = [f"{KIND_WORDS[k]} {_d(t.ms[k])}" for k in KINDS if t.ms[k]]
    text = f"{_d(t.active_ms)} active" + (f" ({', '.join(words)})" if words else "")
    if t.idle_gaps:
        gaps = _count(t.idle_gaps, "idle")
        text += f"; {_d(t.idle_ms)} idle in {gaps} over {IDLE_GAP_MS // 60_000} min"
    marks = [
        _count(t.marks[k], k) for k in ("failure", "retry", "compaction", "branch") if t.marks[k]
    ]
    if marks:
        text += "; " + ", ".join(marks)
    text += f"; cost {cost_label(t.cost, t.estimated)}"
    return text


def _note(t: Timeline) -> str:
    note = (
        f"The current branch's {t.entries:,} entries, in order. Width is active time: the time "
        "before each entry is its maker's (the model's before a turn, the tools' before a "
        "result, yours before a message); a gap over "
        f"{IDLE_GAP_MS // 60_000} min is idle and takes no width."
    )
    if t.per_span > 1:
        note += (
            f" Merged: each bar is {t.per_span:,} consecutive entries, its marks counted"
            " together and linked to the first."
        )
    if not t.active_ms:
        note += " No time between entries is known: each bar has the same width."
    if t.backwards:
        note += (
            f" {t.backwards:,} gap{'s' if t.backwards != 1 else ''} where the clock ran"
            " backwards counted as no time."
        )
    if t.timed < t.entries:
        note += f" {t.entries - t.timed:,} entries have no time."
    return note + " Every part links to its entry."

"""Charts as data for ``templates/macros/charts.html.j2``: server-rendered inline SVG.

No script draws them and no style attribute colours them (the CSP stays strict): bars are
``<rect>`` elements with classes, each with a ``<title>`` holding its exact figures, beside a
text title and a table with the same figures. Geometry is in a viewBox the page stretches
(``preserveAspectRatio="none"``), so axis labels are HTML around the SVG and stay legible on a
phone. Long series are binned: a session's turns past ``MAX_BARS``, days into weeks or months.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from ..read.figures import END_CHARTED, FIRST_CHARTED, usage_is_valid
from ..read.jsonutil import finite_number
from ..read.model import JSON
from ..report.branches import cost_label
from ..report.prices import estimate_message
from ..report.usage import NO_DATE, model_key
from ..text.numbers import money, tokens
from .view import SessionView

MAX_BARS = 300
"""Bars in one chart at most: a 20,000-entry session's chart stays under ~1,000 SVG elements."""
SERIES = 6
"""Colours for series (models); past it, the smallest go into "other"."""
DAYS_MAX = 62
WEEKS_MAX = 106
HEIGHT = 100.0
SLOT = 10.0


@dataclass(slots=True)
class Bar:
    x: float
    y: float
    w: float
    h: float
    cls: str
    title: str
    href: str | None = None


@dataclass(slots=True)
class Mark:
    """A vertical line across the plot (a compaction, a branch summary, a model change)."""

    x: float
    cls: str
    title: str
    href: str | None = None


@dataclass(slots=True)
class HBar:
    """One row of a horizontal bar chart: label, bar length (0-100) and the figure shown."""

    label: str
    pct: float
    value: str
    title: str
    extra: str = ""
    href: str | None = None


@dataclass(slots=True)
class Chart:
    id: str
    title: str
    note: str = ""
    width: float = 100.0
    bars: list[Bar] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    """Polylines (``points``) of a second series, drawn over the bars."""
    y_label: str = ""
    y2_label: str = ""
    x_start: str = ""
    x_end: str = ""
    legend: list[tuple[str, str]] = field(default_factory=list)
    hbars: list[HBar] = field(default_factory=list)
    head: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    """Table rows; a first cell that is a (text, href) pair is a link."""
    foot: list[str] | None = None

    @property
    def svg_elements(self) -> int:
        """Elements the SVG holds (svg, bars with title and link, marks, lines)."""
        n = 1 + len(self.lines)
        links = [b.href for b in self.bars] + [m.href for m in self.marks]
        return n + sum(2 + (1 if href else 0) for href in links)


def error_rate(errors: int, calls: int) -> str:
    """A share of failed calls as a reader says it: ``12%``; ``<1%`` for some errors that
    round to none (2 of 500 is not "0%"), ``0%`` only for none; ``—`` for no calls."""
    if not calls:
        return "—"
    rate = errors / calls
    return "<1%" if errors and rate < 0.005 else f"{rate:.0%}"


def axis(label: str) -> str:
    """An axis top without needless decimals: 200k, 1M, $2."""
    return label.replace(".0k", "k").replace(".00M", "M").replace(".00", "")


def _add(a: float | None, b: float | None) -> float | None:
    return a if b is None else (b if a is None else a + b)


def _nice(top: float) -> float:
    """A round ceiling for an axis (1, 2, 2.5 or 5 times a power of ten)."""
    if top <= 0:
        return 1.0
    p = 10 ** math.floor(math.log10(top))
    return float(next(m * p for m in (1, 2, 2.5, 5, 10) if m * p >= top))


# --- the session page: context per turn ----------------------------------------------------


@dataclass(slots=True)
class Turn:
    entry_id: str
    dom: str
    no: int
    model: str
    input: int
    cache_read: int
    cache_write: int
    cost: float | None
    estimated: float | None = None
    """For a turn that reported no cost: its estimate (``report.prices``), marked "est."."""

    @property
    def context(self) -> int:
        return self.input + self.cache_read + self.cache_write


def _int(v: Any) -> int:
    """A token count as ``stats`` reads it: a usable number, else 0."""
    n = finite_number(v)
    return 0 if n is None else int(n)


def turns_on_path(view: SessionView) -> tuple[list[Turn], list[tuple[int, str, str, str]]]:
    """Assistant turns on the current path, and the events between them: (turns before it,
    kind, title, dom id) for compactions and branch summaries."""
    turns: list[Turn] = []
    events: list[tuple[int, str, str, str]] = []
    for e in view.session.path_entries():
        if e.type == "compaction":
            n = view.compaction_no.get(e.id, 0)
            before = _int(e.raw.get("tokensBefore"))
            what = f"Compaction {n}" + (f" (context was {tokens(before)})" if before else "")
            events.append((len(turns), "compaction", what, view.dom_of(e.id)))
        elif e.type == "branch_summary":
            events.append((len(turns), "branch", "Branch summary", view.dom_of(e.id)))
        elif e.role == "assistant":
            msg = e.message or {}
            usage = msg.get("usage")
            u: JSON = usage if isinstance(usage, dict) and usage_is_valid(usage) else {}
            cost_obj = u.get("cost")
            known = finite_number(cost_obj.get("total")) if isinstance(cost_obj, dict) else None
            cost = float(known) if known else None  # a model with no price reports 0
            guess = estimate_message(msg, e.timestamp) if cost is None else None
            turns.append(
                Turn(
                    e.id,
                    view.dom_of(e.id),
                    len(turns) + 1,
                    model_key(e) or "?",
                    _int(u.get("input")),
                    _int(u.get("cacheRead")),
                    _int(u.get("cacheWrite")),
                    cost,
                    guess,
                )
            )
    return turns, events


def context_chart(view: SessionView) -> Chart | None:
    """Input the model received per assistant turn (input + cache read + cache write), one
    colour per model, compactions and branch summaries marked, cost per turn as a line."""
    turns, events = turns_on_path(view)
    if not turns:
        return None
    size = max(1, math.ceil(len(turns) / MAX_BARS))
    bins = [turns[i : i + size] for i in range(0, len(turns), size)]
    models = list(dict.fromkeys(t.model for t in turns))
    cls_of = {m: f"s{i % SERIES}" for i, m in enumerate(models)}
    top = _nice(max(t.context for t in turns))
    costs = [_sum_cost(b) for b in bins]
    ests = [_sum_estimate(b) for b in bins]
    # the line: what each turn cost, estimates included (marked in the titles and the table)
    paid = [
        None if c is None and e is None else (c or 0) + (e or 0)
        for c, e in zip(costs, ests, strict=True)
    ]
    cost_top = max((c for c in paid if c is not None), default=None)
    any_est = any(e is not None for e in ests)
    chart = Chart(
        "context",
        "Context per turn",
        note=(
            "Tokens the model received at each assistant turn on the current branch (input + "
            "cache read + cache write)"
            + (f"; each bar is {size} turns (the largest shown)" if size > 1 else "")
            + ". Bars link to their turn."
        ),
        width=len(bins) * SLOT,
        y_label=axis(tokens(top)),
        y2_label=f"cost {'~' if any_est else ''}{money(cost_top)}" if cost_top else "",
        x_start="turn 1",
        x_end=f"turn {len(turns)}",
        head=["Turn", "Model", "Input", "Cache read", "Cache write", "Context", "Cost"],
        legend=[(cls_of[m], m) for m in models[:SERIES]]
        + (
            [
                (
                    "cost",
                    f"cost per turn (line; top {money(cost_top)}"
                    + ("; est. included" if any_est else "")
                    + ")",
                )
            ]
            if cost_top
            else []
        ),
    )
    points: list[str] = []
    for i, b in enumerate(bins):
        big = max(b, key=lambda t: t.context)
        h = big.context / top * HEIGHT
        span = f"turn {b[0].no}" if len(b) == 1 else f"turns {b[0].no} to {b[-1].no}"
        title = (
            f"{span}: {big.context:,} tokens of context"
            + (f" (turn {big.no})" if len(b) > 1 else "")
            + f" · {big.model} · cost {cost_label(costs[i], ests[i])}"
        )
        chart.bars.append(
            Bar(i * SLOT + 1, HEIGHT - h, SLOT - 2, h, cls_of[big.model], title, "#" + big.dom)
        )
        chart.rows.append(
            [
                (span, "#" + big.dom),
                big.model,
                f"{big.input:,}",
                f"{big.cache_read:,}",
                f"{big.cache_write:,}",
                f"{big.context:,}",
                cost_label(costs[i], ests[i]),
            ]
        )
        if cost_top and paid[i] is not None:
            y = HEIGHT - (paid[i] or 0) / cost_top * HEIGHT
            points.append(f"{i * SLOT + SLOT / 2:g},{y:.2f}")
        elif points:
            chart.lines.append(" ".join(points))
            points = []
    if points:
        chart.lines.append(" ".join(points if len(points) > 1 else points * 2))
    for before, kind, what, dom in events:
        x = math.ceil(before / size) * SLOT if before else 0.5
        chart.marks.append(Mark(min(x, chart.width - 0.5), kind, what, "#" + dom))
    prev = None
    for i, b in enumerate(bins):
        if prev is not None and b[0].model != prev:
            chart.marks.append(Mark(i * SLOT, "model", f"model: {prev} → {b[0].model}"))
        prev = b[-1].model
    total_cost = _sum_cost(turns)
    chart.foot = [
        "All turns",
        "",
        "",
        "",
        "",
        f"max {max(t.context for t in turns):,}",
        cost_label(total_cost, _sum_estimate(turns)),
    ]
    return chart


def _sum_estimate(turns: Iterable[Turn]) -> float | None:
    total: float | None = None
    for t in turns:
        total = _add(total, t.estimated)
    return total


def _sum_cost(turns: Iterable[Turn]) -> float | None:
    total: float | None = None
    for t in turns:
        total = _add(total, t.cost)
    return total


# --- the site indexes ----------------------------------------------------------------------


def periods(first: date, last: date) -> tuple[str, list[date]]:
    """The unit and the start of each bin between two days: days up to ~2 months, weeks up to
    ~2 years, then months; at least a week of days, so one day of data is not one wide bar."""
    span = (last - first).days + 1
    if span <= DAYS_MAX:
        first = min(first, last - timedelta(days=6))
        return "day", [first + timedelta(days=i) for i in range((last - first).days + 1)]
    if span <= WEEKS_MAX * 7:
        start = first - timedelta(days=first.weekday())
        return "week", [start + timedelta(weeks=i) for i in range((last - start).days // 7 + 1)]
    out, d = [], date(first.year, first.month, 1)
    while d <= last:
        out.append(d)
        d = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
    return "month", out


def bin_of(day: date, unit: str) -> date:
    if unit == "week":
        return day - timedelta(days=day.weekday())
    if unit == "month":
        return date(day.year, day.month, 1)
    return day


def period_label(start: date, unit: str) -> str:
    if unit == "week":
        return f"week of {start.isoformat()}"
    if unit == "month":
        return start.strftime("%Y-%m")
    return start.isoformat()


@dataclass(slots=True)
class Period:
    cost: dict[str, float | None] = field(default_factory=dict)
    tokens: dict[str, int] = field(default_factory=dict)
    sessions: set[str] = field(default_factory=set)
    messages: int = 0


_CHARTED = (FIRST_CHARTED.date(), END_CHARTED.date())
"""The days a site index charts (``read.figures``): the periods between any two fit a page."""


def index_charts(sessions: Sequence[JSON], prefix: str = "") -> list[Chart]:
    """The charts of a site index over session summaries (``site.summary.session_summary``):
    cost and tokens per period stacked by model, sessions per period, projects by cost (root
    only: with ``prefix`` href per project) and tool calls with their error rate."""
    days: dict[date, list[DayRow]] = {}
    tools: dict[str, list[int]] = {}
    for i, s in enumerate(sessions):
        usage = s.get("usage")
        if not isinstance(usage, dict):
            continue
        for row in usage.get("days") or ():
            day_text, model, tok, cost, msgs = row
            if day_text == NO_DATE:
                continue
            try:
                d = date.fromisoformat(day_text)
            except (TypeError, ValueError):
                continue
            if not _CHARTED[0] <= d < _CHARTED[1]:
                continue  # the loader reported it: a calendar past 9999 has no next month
            days.setdefault(d, []).append((str(i), model, tok, cost, msgs))
        for name, (calls, errors) in (usage.get("tools") or {}).items():
            t = tools.setdefault(name, [0, 0])
            t[0] += calls
            t[1] += errors
    charts: list[Chart] = []
    if days:
        charts += _time_charts(days)
    if tools:
        charts.append(_tool_chart(tools))
    return charts


DayRow = tuple[str, str, int, float | None, int]
"""One session's use of one model on one day: (session, model, tokens, cost, messages)."""


@dataclass(frozen=True, slots=True)
class _Periods:
    """The x axis of the charts over time: days, weeks or months, each labelled."""

    unit: str
    starts: list[date]
    labels: list[str]
    bins: dict[date, Period]
    """What each period holds."""

    @property
    def per(self) -> str:
        return {"day": "day", "week": "week", "month": "month"}[self.unit]


@dataclass(frozen=True, slots=True)
class _Models:
    """The series of the stacked charts: the biggest models, the rest as "other models"."""

    names: list[str]
    """Each series' name, in stacking order."""
    cls: dict[str, str]
    """Series name → its CSS class."""

    def group(self, model: str) -> str:
        return model if model in self.cls else OTHER_MODELS


OTHER_MODELS = "other models"


def _time_charts(days: dict[date, list[DayRow]]) -> list[Chart]:
    """Cost (when any was reported) and tokens per period stacked by model, and sessions
    per period."""
    unit, starts = periods(min(days), max(days))
    used = _binned(days, unit, starts)
    models = _models(used.model_cost, used.model_tokens)
    x = _Periods(unit, starts, [period_label(s, unit) for s in starts], used.bins)
    charts = []
    any_cost = any(c is not None for p in x.bins.values() for c in p.cost.values())
    for kind in ("cost", "tokens"):
        if kind == "cost" and not any_cost:
            continue
        charts.append(_stacked_chart(kind, _stacks(kind, x, models), x, models))
    charts.append(_sessions_chart(x))
    return charts


@dataclass(frozen=True, slots=True)
class _Binned:
    """The days' rows added up per period, and each model's whole cost and tokens."""

    bins: dict[date, Period]
    model_cost: dict[str, float]
    model_tokens: dict[str, int]


def _binned(days: dict[date, list[DayRow]], unit: str, starts: list[date]) -> _Binned:
    bins = {d: Period() for d in starts}
    model_cost: dict[str, float] = {}
    model_tokens: dict[str, int] = {}
    for d, rows in days.items():
        p = bins[bin_of(d, unit)]
        for sid, model, tok, cost, msgs in rows:
            if model:
                p.tokens[model] = p.tokens.get(model, 0) + tok
                p.cost[model] = _add(p.cost.get(model), cost)
                model_cost[model] = model_cost.get(model, 0.0) + (cost or 0.0)
                model_tokens[model] = model_tokens.get(model, 0) + tok
            if msgs:
                p.sessions.add(sid)
                p.messages += msgs
    return _Binned(bins, model_cost, model_tokens)


def _models(model_cost: dict[str, float], model_tokens: dict[str, int]) -> _Models:
    """Models by cost, then tokens: ``SERIES`` series at most, the last one "other"."""
    ranked = sorted(model_tokens, key=lambda m: (-model_cost.get(m, 0), -model_tokens[m], m))
    shown = ranked[: SERIES - 1] if len(ranked) > SERIES else ranked
    series = {m: f"s{i}" for i, m in enumerate(shown)}
    names = [*shown, *([OTHER_MODELS] if len(ranked) > len(shown) else [])]
    return _Models(names, {**series, OTHER_MODELS: "other"})


def _stacks(kind: str, x: _Periods, models: _Models) -> list[dict[str, float | None]]:
    """Each period's cost or tokens by series."""
    stacks: list[dict[str, float | None]] = []
    for s in x.starts:
        p = x.bins[s]
        stack: dict[str, float | None] = {}
        src: dict[str, Any] = p.cost if kind == "cost" else p.tokens
        for m, v in src.items():
            g = models.group(m)
            stack[g] = _add(stack.get(g), v) if kind == "cost" else (stack.get(g) or 0) + v
        stacks.append(stack)
    return stacks


def _stacked_chart(
    kind: str, stacks: list[dict[str, float | None]], x: _Periods, models: _Models
) -> Chart:
    """Cost or tokens per period, stacked by model, with its table."""
    names, cls, labels, per = models.names, models.cls, x.labels, x.per
    fmt = money if kind == "cost" else tokens
    top = _nice(max((sum(v or 0 for v in st.values()) for st in stacks), default=0))
    chart = Chart(
        kind,
        f"{'Cost' if kind == 'cost' else 'Tokens'} per {per}, by model",
        note="Every assistant message on every branch, on the day (UTC) of its entry; cost as "
        "the providers reported it (estimates for messages that reported none are not drawn).",
        width=len(x.starts) * SLOT,
        y_label=f"${top:g}" if kind == "cost" else axis(tokens(top)),
        x_start=labels[0],
        x_end=labels[-1],
        legend=[(cls[n], n) for n in names],
        head=[per.title(), *names, "Total"],
    )
    for i, st in enumerate(stacks):
        y = HEIGHT
        for n in names:
            v = st.get(n)
            if not v:
                continue
            h = v / top * HEIGHT
            y -= h
            chart.bars.append(
                Bar(i * SLOT + 1, y, SLOT - 2, h, cls[n], f"{labels[i]} · {n}: {fmt(v)}")
            )
        total: float | None = None
        for v in st.values():
            total = _add(total, v)
        if st:
            chart.rows.append([labels[i], *(fmt(st.get(n)) for n in names), fmt(total)])
    col_totals = []
    for n in names:
        t: float | None = None
        for st in stacks:
            t = _add(t, st.get(n))
        col_totals.append(fmt(t))
    grand: float | None = None
    for st in stacks:
        for v in st.values():
            grand = _add(grand, v)
    chart.foot = ["Total", *col_totals, fmt(grand)]
    return chart


def _sessions_chart(x: _Periods) -> Chart:
    """Sessions per period, with their messages in its table."""
    starts, labels, per = x.starts, x.labels, x.per
    counts = [len(x.bins[s].sessions) for s in starts]
    top = _nice(max(counts, default=0))
    chart = Chart(
        "sessions",
        f"Sessions per {per}",
        note=f"Sessions with at least one message that {per}.",
        width=len(starts) * SLOT,
        y_label=str(int(top)),
        x_start=labels[0],
        x_end=labels[-1],
        head=[per.title(), "Sessions", "Messages"],
    )
    for i, count in enumerate(counts):
        if count:
            h = count / top * HEIGHT
            chart.bars.append(
                Bar(i * SLOT + 1, HEIGHT - h, SLOT - 2, h, "s0", f"{labels[i]}: {count} sessions")
            )
            chart.rows.append([labels[i], str(count), str(x.bins[starts[i]].messages)])
    return chart


def _tool_chart(tools: dict[str, list[int]]) -> Chart:
    ranked = sorted(tools.items(), key=lambda kv: (-kv[1][0], kv[0]))
    top = max((c for c, _ in tools.values()), default=0) or 1
    chart = Chart(
        "tools",
        "Tool calls and error rate per tool",
        note="Calls of each tool on every branch; errors are results marked as errors.",
        head=["Tool", "Calls", "Errors", "Error rate"],
    )
    for name, (calls, errors) in ranked[:15]:
        rate = error_rate(errors, calls)
        chart.hbars.append(
            HBar(
                name,
                calls / top * 100,
                f"{calls:,}",
                f"{name}: {calls:,} calls, {errors:,} errors ({rate})",
                extra=f"{rate} errors" if errors else "",
            )
        )
    for name, (calls, errors) in ranked:
        chart.rows.append([name, f"{calls:,}", f"{errors:,}", error_rate(errors, calls)])
    calls_all = sum(c for c, _ in tools.values())
    errors_all = sum(e for _, e in tools.values())
    chart.foot = [
        "Total",
        f"{calls_all:,}",
        f"{errors_all:,}",
        error_rate(errors_all, calls_all),
    ]
    return chart


def project_chart(projects: Sequence[JSON]) -> Chart | None:
    """Projects by cost (by tokens when no session reported or was given a cost): the cost
    the providers reported plus, marked "est.", the estimate for messages that reported
    none (``report.prices``), as the index's Cost column shows them; ranked by the two."""
    rows = []
    for p in projects:
        cost: float | None = None
        est: float | None = None
        tok = 0
        for s in p["sessions"]:
            u = s.get("usage")
            if isinstance(u, dict) and u.get("cost") is not None:
                cost = _add(cost, float(u["cost"]))
            guess = finite_number(s.get("costEstimated"))
            if guess:
                est = _add(est, float(guess))
            tok += int(s.get("tokens") or 0)
        rows.append((p, cost, est, tok))
    if not rows:
        return None
    by_cost = any(c is not None or e is not None for _, c, e, _ in rows)
    rows.sort(key=lambda r: (-((r[1] or 0) + (r[2] or 0)), -r[3]) if by_cost else (-r[3],))
    top = max((((r[1] or 0) + (r[2] or 0)) if by_cost else r[3]) for r in rows) or 1
    chart = Chart(
        "projects",
        "Projects by cost" if by_cost else "Projects by tokens (no cost data)",
        note="Every session of the project, every branch."
        + (
            " est.: estimated from a price table for messages that reported no cost."
            if any(e is not None for _, _, e, _ in rows)
            else ""
        ),
        head=["Project", "Sessions", "Tokens", "Cost"],
    )
    for p, cost, est, tok in rows[:15]:
        v = ((cost or 0) + (est or 0)) if by_cost else tok
        chart.hbars.append(
            HBar(
                str(p.get("label") or p["cwd"]),
                v / top * 100,
                cost_label(cost, est) if by_cost else tokens(tok),
                f"{p['cwd']}: {cost_label(cost, est)}, {tokens(tok)} tokens, "
                f"{len(p['sessions'])} sessions",
                href=f"{p['key']}/index.html",
            )
        )
    for p, cost, est, tok in rows:
        chart.rows.append(
            [
                (str(p.get("label") or p["cwd"]), f"{p['key']}/index.html"),
                str(len(p["sessions"])),
                tokens(tok),
                cost_label(cost, est),
            ]
        )
    total: float | None = None
    total_est: float | None = None
    for _, c, e, _ in rows:
        total = _add(total, c)
        total_est = _add(total_est, e)
    chart.foot = [
        "Total",
        str(sum(len(p["sessions"]) for p, _, _, _ in rows)),
        tokens(sum(t for _, _, _, t in rows)),
        cost_label(total, total_est),
    ]
    return chart

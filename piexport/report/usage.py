"""Usage over many sessions: rows by day, week, month, project, model or tool (``piexport usage``).

Every figure is ``stats.compute_figures`` over a group of entries, added up with
``Figures.add``: the numbers are the ones ``summary`` and the pages show, grouped. A message
counts on the day (in the given zone) of its entry's timestamp; tokens and cost add up every
assistant message on every branch.
"""

from __future__ import annotations

import csv
import fnmatch
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..read.discover import discover
from ..read.figures import chartable, iso_time, utc_text
from ..read.model import JSON, Entry, Session
from ..read.tree import timestamp_ms
from ..text.ansi import strip_ansi
from ..text.columns import cells as cell_width
from ..text.columns import cut_end, cut_start, pad_end
from ..text.mdsafe import newlines
from ..text.numbers import NONE, count, money, tokens
from ..text.textsafe import plain_controls
from .stats import Figures, compute_figures, usage_source
from .summary import session_span

BY = ("day", "week", "month", "block", "project", "model", "session", "tool", "kind")
PERIODS = ("day", "week", "month", "block")
"""Groupings by time: ``--breakdown`` shows each one's models inside it."""
BLOCK_MS = 5 * 3_600_000
"""A 5-hour block, as ccusage counts a subscription's usage window."""
NO_DATE = "(no date)"
NO_MODEL = "(no model)"
MODEL_NOT_RECORDED = "(model not recorded)"
"""The model of usage pi writes without naming one: a summary's, a tool's own model work."""


def zone(name: str | None) -> tzinfo:
    """A time zone by IANA name (``Europe/Paris``), ``UTC`` by default."""
    if not name or name.upper() == "UTC":
        return UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        msg = f"unknown time zone: {name!r} (use an IANA name such as Europe/Paris, or UTC)"
        raise InputError(msg) from exc


def parse_day(text: str | None) -> date | None:
    """``YYYY-MM-DD`` (the day in ``--tz``; an ISO time's day) or nothing."""
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip()[:10] if "T" in text else text.strip())
    except ValueError as exc:
        raise InputError(f"not a date: {text!r} (use YYYY-MM-DD)") from exc


def local_day(ms: int | None, tz: tzinfo) -> date | None:
    """The calendar day of a timestamp in ``tz``; None for none, or for one outside the
    years the site charts (the loader reported it: ``read.figures``)."""
    if not chartable(ms):
        return None
    assert ms is not None
    try:
        return datetime.fromtimestamp(ms / 1000, tz).date()
    except (OverflowError, OSError, ValueError):
        return None


def period_key(day: date | None, by: str) -> str:
    """``2025-03-04``, ``2025-W10`` (ISO week) or ``2025-03``."""
    if day is None:
        return NO_DATE
    if by == "week":
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"
    if by == "month":
        return f"{day.year}-{day.month:02d}"
    return day.isoformat()


def model_key(entry: Entry) -> str | None:
    """``provider/model`` of an entry that carries usage (an assistant message, a ``usage``
    entry); ``MODEL_NOT_RECORDED`` for usage pi writes without a model (summaries, a tool's own
    model work); None for entries without usage."""
    source = usage_source(entry)
    if source is None:
        return None
    if source.model:
        return source.model
    return MODEL_NOT_RECORDED if source.kind in _WITHOUT_MODEL else NO_MODEL


_WITHOUT_MODEL = frozenset({"tool work", "compaction summaries", "branch summaries"})


def kind_key(entry: Entry) -> str | None:
    """What an entry's usage paid for (``stats.usage_source``): turns, tool work, compaction
    or branch summaries, or a usage entry's kind such as ``cache_warm``."""
    source = usage_source(entry)
    return source.kind if source is not None else None


def models_in_effect(session: Session) -> dict[str, str]:
    """Entry id → the ``provider/model`` in effect at it, so that every message of a session
    falls in one model's row and the rows add up to the total: each assistant message and
    each ``model_change`` sets it for what follows on its path (as pi's context does); a
    request or a tool result belongs to the model that was working; an entry before any
    model takes the first one below it (the one that answered it)."""
    tree = session.tree
    order = [eid for eid, _ in tree.walk()]
    found: dict[str, str | None] = {}
    for eid in order:
        e = session.by_id[eid]
        own = model_key(e) if e.role == "assistant" else _changed_to(e)
        parent = tree.parent.get(eid)
        found[eid] = own or (found.get(parent) if parent is not None else None)
    for eid in reversed(order):
        if found[eid] is None:
            found[eid] = next((found[k] for k in tree.children.get(eid, ()) if found[k]), None)
    return {e.id: found.get(e.id) or NO_MODEL for e in session.entries}


def _changed_to(entry: Entry) -> str | None:
    if entry.type != "model_change":
        return None
    model, provider = entry.raw.get("modelId"), entry.raw.get("provider")
    if not isinstance(model, str) or not model:
        return None
    return f"{provider}/{model}" if isinstance(provider, str) and provider else model


def project_of(session: Session) -> str:
    """A session's project: its header cwd, else the folder it sits in."""
    if session.cwd:
        return session.cwd
    return Path(session.path).parent.name or "(unknown)"


@dataclass(slots=True)
class Row:
    """One row of the report: a key, the sessions it covers and their figures."""

    key: str
    figures: Figures = field(default_factory=Figures)
    sessions: set[str] = field(default_factory=set)
    tool_calls: int | None = None
    """In ``--by tool`` rows: calls of that tool (``figures`` then holds only its results)."""
    tool_errors: int | None = None
    title: str | None = None
    """In ``--by session`` rows: the session's title."""
    started: int | None = None
    """In ``--by session`` rows: when it started (ms), ``summary.session_span``'s start,
    the figure ``summary`` and the site show (a fork's own first entry, not the history it
    copied). In ``--by block`` rows: the block's start (an hour)."""
    breakdown: list[Row] | None = None
    """With ``--breakdown``: the row's models, each with its own figures."""

    @property
    def label(self) -> str:
        """The key as the table shows it (a session by when it started and its title)."""
        if self.title is None:
            return self.key
        when = local_day_time(self.started)
        return f"{when} {self.title}"

    def as_json(self) -> JSON:
        f = self.figures
        calls = sum(f.tool_calls.values()) if self.tool_calls is None else self.tool_calls
        errors = f.tool_errors if self.tool_errors is None else self.tool_errors
        extra: JSON = {}
        if self.title is not None:
            extra = {"title": self.title, "started": iso_time(self.started)}
        elif self.started is not None:  # a block
            extra = {
                "start": iso_time(self.started),
                "end": iso_time(self.started + BLOCK_MS),
                "firstActivity": iso_time(self.figures.first_ms),
                "lastActivity": iso_time(self.figures.last_ms),
            }
        more: JSON = {}
        if self.breakdown is not None:
            more = {"models": [r.as_json() for r in self.breakdown]}
        return {
            "key": self.key,
            **extra,
            "sessions": len(self.sessions),
            "messages": f.message_count,
            "toolCalls": calls,
            "toolErrors": errors,
            "tokens": {
                "input": f.tokens["input"],
                "output": f.tokens["output"],
                "cacheRead": f.tokens["cacheRead"],
                "cacheWrite": f.tokens["cacheWrite"],
                "reasoning": f.tokens["reasoning"],
                "total": f.tokens["total"],
            },
            "cost": f.known_cost,
            "costEstimated": f.known_estimate,
            **more,
        }

    @property
    def empty(self) -> bool:
        """A row with nothing to show: no session, no message, no token, no call."""
        f = self.figures
        return not (
            self.sessions
            or f.message_count
            or f.tokens["total"]
            or f.known_cost
            or self.tool_calls
            or self.tool_errors
        )


def local_day_time(ms: int | None, tz: tzinfo | None = None) -> str:
    """``2025-03-03 08:41`` (UTC, or in ``tz``), or ``(no date)`` (for a time no calendar
    holds too)."""
    if tz is None or tz is UTC:
        return utc_text(ms, "%Y-%m-%d %H:%M") or NO_DATE
    if not chartable(ms):
        return NO_DATE
    assert ms is not None
    return datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M")


def _in_range(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def session_groups(
    session: Session,
    key: Callable[[Entry, date | None], str | None],
    tz: tzinfo = UTC,
    since: date | None = None,
    until: date | None = None,
) -> dict[str, Figures]:
    """The session's entries (every branch) grouped by ``key(entry, day)``, each group's
    figures from ``compute_figures``. Entries whose key is None are left out."""
    groups: dict[str, list[Entry]] = {}
    for e in session.entries:
        day = local_day(timestamp_ms(e.timestamp), tz)
        if not _in_range(day, since, until):
            continue
        k = key(e, day)
        if k is not None:
            groups.setdefault(k, []).append(e)
    return {k: compute_figures(es, estimate=True) for k, es in groups.items()}


def tool_rows(
    session: Session,
    since: date | None,
    until: date | None,
    tz: tzinfo,
    calls: Mapping[str, int] | None = None,
) -> dict[str, tuple[int, int]]:
    """Calls and failed results per tool name (``calls``: the range's ``Figures.tool_calls``,
    when the caller has them already)."""
    kept = (
        session.entries
        if since is None and until is None
        else [
            e
            for e in session.entries
            if _in_range(local_day(timestamp_ms(e.timestamp), tz), since, until)
        ]
    )
    if calls is None:
        calls = compute_figures(kept).tool_calls
    failed = [
        e.message or {}
        for e in kept
        if e.role == "toolResult" and (e.message or {}).get("isError") is True
    ]
    names: dict[str, str] = {}
    if failed:  # a result may come a day after its call: names from every entry
        for e in session.entries:
            for b in e.tool_calls():
                cid, name = b.get("id"), b.get("name")
                if isinstance(cid, str):
                    names[cid] = name if isinstance(name, str) and name else "?"
    errors: dict[str, int] = {}
    for msg in failed:
        cid = msg.get("toolCallId")
        found = names.get(cid) if isinstance(cid, str) else None
        found = found or msg.get("toolName")
        tool = found if isinstance(found, str) and found else "?"
        errors[tool] = errors.get(tool, 0) + 1
    return {n: (calls.get(n, 0), errors.get(n, 0)) for n in {*calls, *errors}}


@dataclass(slots=True)
class UsageReport:
    by: str
    rows: list[Row]
    total: Row
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> JSON:
        return {
            "by": self.by,
            "rows": [r.as_json() for r in self.rows],
            "total": {k: v for k, v in self.total.as_json().items() if k != "key"},
        }


def usage_report(
    sessions: Iterable[Session],
    by: str = "day",
    *,
    tz: tzinfo = UTC,
    since: date | None = None,
    until: date | None = None,
    project: str | None = None,
    breakdown: bool = False,
) -> UsageReport:
    """Rows by ``by`` over the sessions (those whose project matches the ``project`` glob);
    ``breakdown``: each period's models in it (``Row.breakdown``). Rows with nothing in
    them (a model no message was answered by) are left out; they add nothing to the total."""
    if by not in BY:
        raise InputError(f"--by must be one of {', '.join(BY)}")
    if breakdown and by not in PERIODS:
        raise InputError(f"--breakdown goes with --by {', '.join(PERIODS)}")
    rows: dict[str, Row] = {}
    total = Row("total")
    hours: list[int] = []  # --by block: every entry's time, to find the blocks
    for session in sessions:
        proj = project_of(session)
        if project and not (
            fnmatch.fnmatch(proj, project)
            or fnmatch.fnmatch(Path(session.path).parent.name, project)
        ):
            continue
        sid = session.path
        whole = session_groups(session, lambda e, d: "", tz, since, until).get("")
        if whole is None or not whole.entries:
            continue
        total.figures.add(whole)
        if whole.message_count:
            total.sessions.add(sid)
        if by == "tool":
            for name, (calls, errors) in tool_rows(session, since, until, tz).items():
                row = rows.setdefault(name, Row(name, tool_calls=0, tool_errors=0))
                row.tool_calls = (row.tool_calls or 0) + calls
                row.tool_errors = (row.tool_errors or 0) + errors
                row.sessions.add(sid)
            continue
        key = _key(session, by, proj, breakdown)
        for k, fig in session_groups(session, key, tz, since, until).items():
            row = rows.setdefault(k, Row(k))
            if by == "session":  # when it started as summary and the site say it
                row.title = session.title or "(no messages)"
                row.started = session_span(session).start
            row.figures.add(fig)
            if fig.message_count or fig.by_kind:
                row.sessions.add(sid)
        if by == "block":
            hours += _entry_times(session, tz, since, until)
    if by == "block":
        rows = _blocks(rows, hours, tz)
    if breakdown:
        rows = _broken_down(rows)
    ordered = sorted((r for r in rows.values() if not r.empty), key=_order(by))
    return UsageReport(by, ordered, total)


_SEP = "\0"
"""Between a period and a model in a ``--breakdown`` group's key."""


def _key(
    session: Session, by: str, proj: str, breakdown: bool
) -> Callable[[Entry, date | None], str | None]:
    """What an entry is grouped by (``--by``; with ``breakdown``, its model too)."""
    if by == "project":
        return lambda e, d: proj
    if by == "kind":
        return lambda e, d: kind_key(e)
    if by == "session":
        return lambda e, d: session.path
    if by in ("model", *(("day", "week", "month", "block") if breakdown else ())):
        models = models_in_effect(session)

        def model(e: Entry) -> str:
            return model_key(e) or models[e.id]

        if by == "model":
            return lambda e, d: model(e)
        period = _period(by)
        return lambda e, d: f"{period(e, d)}{_SEP}{model(e)}"
    return _period(by)


def _period(by: str) -> Callable[[Entry, date | None], str]:
    """An entry's period: its day, week or month, or (``block``) its hour's start in ms."""
    if by == "block":
        return lambda e, d: _hour_key(timestamp_ms(e.timestamp), d)
    return lambda e, d: period_key(d, by)


def _hour_key(ms: int | None, day: date | None) -> str:
    """An entry's hour (its start, ms), or ``NO_DATE``: blocks are made of hours."""
    if day is None or ms is None:
        return NO_DATE
    return str(ms - ms % 3_600_000)


def _entry_times(session: Session, tz: tzinfo, since: date | None, until: date | None) -> list[int]:
    """The times (ms) of the entries ``session_groups`` counts that have one."""
    out = []
    for e in session.entries:
        ms = timestamp_ms(e.timestamp)
        day = local_day(ms, tz)
        if day is not None and ms is not None and _in_range(day, since, until):
            out.append(ms)
    return out


def block_starts(times: Iterable[int]) -> list[int]:
    """ccusage's 5-hour blocks over entry times (ms): a block starts at the hour of the
    first entry not in one (floored) and holds what comes in the 5 hours from there; an
    entry 5 hours or more after the block's start, or more than 5 hours after the entry
    before it, starts the next one. Blocks never overlap, and each starts on an hour."""
    starts: list[int] = []
    last: int | None = None
    for t in sorted(times):
        if not starts or last is None or t - starts[-1] >= BLOCK_MS or t - last > BLOCK_MS:
            starts.append(t - t % 3_600_000)
        last = t
    return starts


def _blocks(hourly: dict[str, Row], times: list[int], tz: tzinfo) -> dict[str, Row]:
    """Rows by hour (their keys: the hour's start in ms, or with a model after ``_SEP``)
    gathered into rows by 5-hour block, keyed by when the block starts in ``tz``."""
    import bisect

    starts = block_starts(times)
    out: dict[str, Row] = {}
    for key, row in hourly.items():
        hour, sep, model = key.partition(_SEP)
        if hour == NO_DATE:
            start, name = None, NO_DATE
        else:
            start = starts[bisect.bisect_right(starts, int(hour)) - 1]
            name = local_day_time(start, tz)
        block = out.setdefault(name + sep + model, Row(name + sep + model, started=start))
        block.figures.add(row.figures)
        block.sessions |= row.sessions
    return out


def _broken_down(rows: dict[str, Row]) -> dict[str, Row]:
    """Rows keyed period + model made into a row per period holding a row per model."""
    out: dict[str, Row] = {}
    for key, row in rows.items():
        period, _, model = key.partition(_SEP)
        whole = out.setdefault(period, Row(period, started=row.started, breakdown=[]))
        whole.figures.add(row.figures)
        whole.sessions |= row.sessions
        row.key, row.started = model, None
        if not row.empty:
            assert whole.breakdown is not None
            whole.breakdown.append(row)
    for whole in out.values():
        assert whole.breakdown is not None
        whole.breakdown.sort(key=_order("model"))
    return out


def _order(by: str) -> Callable[[Row], Any]:
    if by in PERIODS:
        return lambda r: (r.key == NO_DATE, r.key)
    if by == "tool":
        return lambda r: (-(r.tool_calls or 0), r.key)
    if by == "session":
        return lambda r: (r.started is None, r.started or 0, r.key)
    return lambda r: (-(r.figures.cost), -r.figures.tokens["total"], r.key)


def usage_of(
    where: Path,
    by: str,
    *,
    tz_name: str | None = None,
    since: str | None = None,
    until: str | None = None,
    project: str | None = None,
    breakdown: bool = False,
) -> tuple[UsageReport, list[str]]:
    """The usage of every session under ``where`` (a folder or one file), one row per
    ``by``, days in ``tz_name`` (default UTC), from ``since`` to ``until`` (YYYY-MM-DD);
    and the session files that could not be read (left out of the figures). Raises
    ``InputError`` for an unknown zone, a malformed day or a path that does not exist."""
    tz, first, last = zone(tz_name), parse_day(since), parse_day(until)
    if not where.exists():
        raise InputError(f"{where}: no such file or folder")
    problems: list[str] = []
    report = usage_report(
        load_sessions(discover(where), problems),
        by,
        tz=tz,
        since=first,
        until=last,
        project=project,
        breakdown=breakdown,
    )
    return report, problems


def load_sessions(paths: Sequence[Path], problems: list[str]) -> Iterable[Session]:
    """Each file loaded in turn; one that cannot be read is reported and skipped."""
    from ..errors import PiexportError
    from ..read.loader import load_session

    for p in paths:
        try:
            yield load_session(p)
        except PiexportError as exc:
            problems.append(str(exc))


# --- formats ---------------------------------------------------------------------------

COLUMNS = (
    ("Sess", "sessions"),
    ("Msgs", "messages"),
    ("Tools", "toolCalls"),
    ("Errs", "toolErrors"),
    ("Input", "input"),
    ("Output", "output"),
    ("CacheR", "cacheRead"),
    ("CacheW", "cacheWrite"),
    ("Cost", "cost"),
)
WIDTH = 80
"""A table's width when none is given (a terminal's, or ``COLUMNS``, is given by the CLI)."""
MIN_KEY = 12
"""The first column is never narrower (the figures stay whole; the line gets longer)."""

TOOL_COLUMNS = (
    ("Sess", "sessions"),
    ("Calls", "toolCalls"),
    ("Errs", "toolErrors"),
    ("Rate", "rate"),
)
"""``--by tool``: a tool's rows have calls and errors, no tokens or cost of their own."""
NOTES = {
    "tool": "Calls on every branch; Errs: results marked as errors; Sess: sessions that "
    "called the tool.",
    "model": "Every message counts under the model working at it (a request under the model "
    "that answered); Sess: sessions with a message under the model, so a session that "
    "changed models counts in each of their rows.",
    "kind": "Rows by what the usage paid for: Msgs and Errs count the entries that carry "
    "usage, the total every message; tokens and Cost add up to the total.",
    "block": "5-hour blocks as ccusage counts them: a block starts at the hour of the first "
    "message after the last block and lasts 5 hours; a gap of more than 5 hours starts a "
    "new one. Figures as for --by day.",
}
NOTE = (
    "Msgs: messages of every role; Errs: failed tool calls; tokens and Cost: every usage pi "
    "counts (turns, usage entries, summaries, tool work) on every branch, cost as the provider "
    "reported it."
)
BREAKDOWN_NOTE = (
    "Indented rows: each model's part of the row above, every message under the model "
    "working at it (as --by model); they add up to it."
)
ESTIMATE_NOTE = (
    "Est.: estimated cost (genai-prices) of the messages whose provider reported none, "
    "not included in Cost."
)


ESTIMATE_COLUMN = ("Est.", "costEstimated")
"""Shown when a message reported no cost and has an estimate: beside Cost, never in it."""


def _columns(by: str, estimates: bool = False) -> tuple[tuple[str, str], ...]:
    if by == "tool":
        return TOOL_COLUMNS
    columns = COLUMNS[1:] if by == "session" else COLUMNS  # one session a row: always 1
    return (*columns, ESTIMATE_COLUMN) if estimates else columns


def _cells(data: JSON, columns: tuple[tuple[str, str], ...] = COLUMNS) -> list[str]:
    """A row's figures as the rest of piexport writes them: counts ``1,234``, tokens
    ``12.3k``/``4.09B``, dollars ``$0.0123``; an absent figure ``—``."""
    out = []
    for _, k in columns:
        if k == "rate":
            calls, errors = int(data["toolCalls"]), int(data["toolErrors"])
            out.append(f"{errors / calls:.0%}" if calls else NONE)
        elif k in ("cost", "costEstimated"):
            out.append(money(data[k]))
        elif k in data:
            out.append(count(int(data[k])))
        else:
            out.append(tokens(int(data["tokens"][k])))
    return out


def format_table(
    report: UsageReport, safe: Callable[[str], str] = str, width: int | None = None
) -> str:
    """An aligned table with a totals row, ``width`` terminal cells wide (default 80): the
    figures whole, the first column taking what is left. A name is cut at its end (a model
    keeps its provider, a session its date and the start of its title), a project's path at
    its start (its last folders tell projects apart); widths are counted in terminal cells
    (a wide character takes two)."""
    width = width or WIDTH
    data = report.as_json()
    columns = _columns(report.by, data["total"]["costEstimated"] is not None)
    head = [h for h, _ in columns]
    body: list[tuple[int, list[str]]] = []  # (indent, cells)
    for row, r in zip(report.rows, data["rows"], strict=True):
        body.append((0, [safe(row.label), *_cells(r, columns)]))
        for sub, s in zip(row.breakdown or (), r.get("models", ()), strict=True):
            body.append((2, [safe(sub.label), *_cells(s, columns)]))
    total = ["Total", *_cells({**data["total"], "key": "Total"}, columns)]
    every = [cells for _, cells in body] + [total]
    widths = [max(len(h), *(len(r[i + 1]) for r in every)) for i, h in enumerate(head)]
    names = [cell_width(c[0]) + indent for indent, c in body] + [len(report.by), 5]
    key_width = max(MIN_KEY, min(width - sum(widths) - len(widths), max(names)))
    cut = cut_start if report.by == "project" else cut_end

    def line(cells: list[str], indent: int = 0) -> str:
        name = " " * indent + cut(cells[0], key_width - indent)
        return " ".join(
            [pad_end(name, key_width)]
            + [c.rjust(w) for c, w in zip(cells[1:], widths, strict=True)]
        ).rstrip()

    rule = "-" * (key_width + sum(widths) + len(widths))
    lines = [line([report.by.title(), *head]), rule]
    lines += [line(cells, indent) for indent, cells in body]
    return "\n".join([*lines, rule, line(total)])


def format_notes(
    by: str, estimates: bool = False, width: int | None = None, breakdown: bool = False
) -> str:
    """What the table's figures cover, wrapped to its width (printed under it)."""
    import textwrap

    notes = [NOTES.get(by, NOTE)] + ([BREAKDOWN_NOTE] if breakdown else [])
    notes += [ESTIMATE_NOTE] if estimates and by != "tool" else []
    return "\n".join(textwrap.fill(n, min(width or WIDTH, 100)) for n in notes)


CSV_FIELDS = (
    "key",
    "sessions",
    "messages",
    "toolCalls",
    "toolErrors",
    "input",
    "output",
    "cacheRead",
    "cacheWrite",
    "reasoning",
    "total",
    "cost",
    "costEstimated",
)


_FORMULA_START = frozenset("=+-@\t\r\uff1d\uff0b\uff0d\uff20")
"""What makes a spreadsheet read a line of a cell as a formula (the full-width forms too)."""


def csv_text(text: str) -> str:
    """A text cell no spreadsheet runs and no terminal obeys: terminal escapes (colours,
    OSC 8 links, OSC 52 clipboard writes) removed, every other control character and bidi
    or invisible character shown as a mark (``\x1b``, ``⟪U+202E⟫``), line ends made LF, and
    each line that would start a formula begun with ``'``: a spreadsheet starts a new row
    or cell line at a CR as well as at an LF."""
    text = plain_controls(strip_ansi(newlines(text)))
    return "\n".join(
        "'" + line if line.lstrip(" ")[:1] in _FORMULA_START else line for line in text.split("\n")
    )


def csv_row(cells: Sequence[object]) -> str:
    """One CSV line, written by the standard library's ``csv`` (quoted where a cell holds a
    line end, a quote or a comma): every text cell through :func:`csv_text` first, numbers
    as they are."""
    out = io.StringIO()
    cells = [csv_text(c) if isinstance(c, str) else c for c in cells]
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()


def format_csv(report: UsageReport) -> str:
    """A line per row and the total; with ``--breakdown``, a ``model`` column after the key
    and a line per model after its period's (the period's own has it empty)."""
    data = report.as_json()
    split = any("models" in r for r in data["rows"])
    fields = [CSV_FIELDS[0], *(["model"] if split else []), *CSV_FIELDS[1:]]
    lines = [csv_row(fields)]

    def one(r: JSON, key: str, model: str | None) -> str:
        flat = {**r, **r["tokens"]}
        return csv_row(
            [
                key,
                *([model or ""] if split else []),
                *(flat[k] for k in CSV_FIELDS[1:-2]),
                "" if flat["cost"] is None else flat["cost"],
                "" if flat["costEstimated"] is None else flat["costEstimated"],
            ]
        )

    for r in data["rows"]:
        lines.append(one(r, str(r["key"]), None))
        lines += [one(m, str(r["key"]), str(m["key"])) for m in r.get("models", ())]
    lines.append(one(data["total"], "total", None))
    return "".join(lines)


def session_usage(session: Session) -> JSON:
    """What the site's index charts need about one session, small enough for the manifest:
    per UTC day and model ``[day, provider/model or "", tokens, cost or None, messages]``, per
    tool ``[calls, errors]``, and the whole file's cost (None when no message reported one)."""
    groups = session_groups(session, lambda e, d: f"{period_key(d, 'day')}\0{model_key(e) or ''}")
    days = []
    whole = Figures()
    for k, fig in sorted(groups.items()):
        day, model = k.split("\0", 1)
        whole.add(fig)
        if fig.message_count or fig.tokens["total"]:
            days.append([day, model, fig.tokens["total"], fig.known_cost, fig.message_count])
    tools = tool_rows(session, None, None, UTC, whole.tool_calls)
    return {
        "days": days,
        "tools": {k: list(v) for k, v in sorted(tools.items())},
        "cost": whole.known_cost,
    }

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
from ..text.cut import shorten_left
from ..text.mdsafe import newlines
from ..text.numbers import money
from ..text.textsafe import plain_controls
from .stats import Figures, compute_figures, usage_source
from .summary import session_span

BY = ("day", "week", "month", "project", "model", "session", "tool", "kind")
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
    """``YYYY-MM-DD`` (the day in ``--tz``) or nothing."""
    if not text:
        return None
    try:
        return date.fromisoformat(text.strip())
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
    copied)."""

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
        }


def local_day_time(ms: int | None) -> str:
    """``2025-03-03 08:41`` (UTC), or ``(no date)`` (for a time no calendar holds too)."""
    return utc_text(ms, "%Y-%m-%d %H:%M") or NO_DATE


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
) -> UsageReport:
    """Rows by ``by`` over the sessions (those whose project matches the ``project`` glob)."""
    if by not in BY:
        raise InputError(f"--by must be one of {', '.join(BY)}")
    rows: dict[str, Row] = {}
    total = Row("total")
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
        key: Callable[[Entry, date | None], str | None]
        if by == "project":
            key = lambda e, d, proj=proj: proj  # type: ignore[misc]  # noqa: E731
        elif by == "model":
            models = models_in_effect(session)
            key = lambda e, d, models=models: model_key(e) or models[e.id]  # type: ignore[misc]  # noqa: E731
        elif by == "kind":
            key = lambda e, d: kind_key(e)  # noqa: E731
        elif by == "session":
            key = lambda e, d, sid=sid: sid  # type: ignore[misc]  # noqa: E731
        else:
            key = lambda e, d: period_key(d, by)  # noqa: E731
        for k, fig in session_groups(session, key, tz, since, until).items():
            row = rows.setdefault(k, Row(k))
            if by == "session":  # when it started as summary and the site say it
                row.title = session.title or "(no messages)"
                row.started = session_span(session).start
            row.figures.add(fig)
            if fig.message_count or fig.by_kind:
                row.sessions.add(sid)
    ordered = sorted(rows.values(), key=_order(by))
    return UsageReport(by, ordered, total)


def _order(by: str) -> Callable[[Row], Any]:
    if by in ("day", "week", "month"):
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


def compact(n: int) -> str:
    """A count in at most six characters: 999, 12.3k, 4.56M, 7.89B."""
    for size, unit in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if abs(n) >= size:
            return f"{n / size:.2f}{unit}" if abs(n) < 10 * size else f"{n / size:.1f}{unit}"
    return str(n)


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
}
NOTE = (
    "Msgs: messages of every role; Errs: failed tool calls; tokens and Cost: every usage pi "
    "counts (turns, usage entries, summaries, tool work) on every branch, cost as the provider "
    "reported it."
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
    out = []
    for _, k in columns:
        if k == "rate":
            calls, errors = int(data["toolCalls"]), int(data["toolErrors"])
            out.append(f"{errors / calls:.0%}" if calls else "—")
        elif k in ("cost", "costEstimated"):
            out.append(money(data[k]))
        elif k in data:
            out.append(compact(int(data[k])))
        else:
            out.append(compact(int(data["tokens"][k])))
    return out


def _fit(text: str, width: int) -> str:
    """Cut on the left (paths and models end in what tells them apart), never inside a
    redaction token."""
    return shorten_left(text, width)


def _fit_end(text: str, width: int) -> str:
    """Cut on the right (a session: its date and the start of its title)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(report: UsageReport, safe: Callable[[str], str] = str) -> str:
    """An aligned table with a totals row, at most 80 columns wide."""
    data = report.as_json()
    columns = _columns(report.by, data["total"]["costEstimated"] is not None)
    head = [h for h, _ in columns]
    body = [
        [safe(row.label), *_cells(r, columns)]
        for row, r in zip(report.rows, data["rows"], strict=True)
    ]
    body.append(["Total", *_cells({**data["total"], "key": "Total"}, columns)])
    widths = [max(len(h), *(len(r[i + 1]) for r in body)) for i, h in enumerate(head)]
    room = WIDTH - sum(widths) - len(widths)
    key_width = max(6, min(room, max(len(r[0]) for r in [*body, [report.by.title()]])))
    lines = []

    cut = _fit_end if report.by == "session" else _fit

    def line(cells: list[str]) -> str:
        return " ".join(
            [cut(cells[0], key_width).ljust(key_width)]
            + [c.rjust(w) for c, w in zip(cells[1:], widths, strict=True)]
        ).rstrip()

    lines.append(line([report.by.title(), *head]))
    rule = "-" * min(WIDTH, key_width + sum(widths) + len(widths))
    lines.append(rule)
    lines += [line(r) for r in body[:-1]]
    lines.append(rule)
    lines.append(line(body[-1]))
    return "\n".join(lines)


def format_notes(by: str, estimates: bool = False) -> str:
    """What the table's figures cover, wrapped to its width (printed under it)."""
    import textwrap

    notes = [NOTES.get(by, NOTE)] + ([ESTIMATE_NOTE] if estimates and by != "tool" else [])
    return "\n".join(textwrap.fill(n, WIDTH) for n in notes)


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
    data = report.as_json()
    lines = [csv_row(CSV_FIELDS)]
    for r in [*data["rows"], {**data["total"], "key": "total"}]:
        flat = {**r, **r["tokens"]}
        lines.append(
            csv_row(
                [
                    str(flat["key"]),
                    *(flat[k] for k in CSV_FIELDS[1:-2]),
                    "" if flat["cost"] is None else flat["cost"],
                    "" if flat["costEstimated"] is None else flat["costEstimated"],
                ]
            )
        )
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

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
from datetime import date, datetime, timezone, tzinfo
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..read.model import JSON, Entry, Session
from ..read.tree import timestamp_ms
from ..share.cut import shorten_left
from .stats import Figures, compute_figures

BY = ("day", "week", "month", "project", "model", "tool")
NO_DATE = "(no date)"
NO_MODEL = "(no model)"


def zone(name: str | None) -> tzinfo:
    """A time zone by IANA name (``Europe/Paris``), ``UTC`` by default."""
    if not name or name.upper() == "UTC":
        return timezone.utc
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
    """The calendar day of a timestamp in ``tz``; None for none (or one no calendar has)."""
    if ms is None:
        return None
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
    """``provider/model`` of an assistant message (None for anything else)."""
    msg = entry.message
    if entry.type != "message" or msg is None or msg.get("role") != "assistant":
        return None
    model = msg.get("model")
    if not isinstance(model, str) or not model:
        return NO_MODEL
    provider = msg.get("provider")
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

    def as_json(self) -> JSON:
        f = self.figures
        calls = sum(f.tool_calls.values()) if self.tool_calls is None else self.tool_calls
        errors = f.tool_errors if self.tool_errors is None else self.tool_errors
        return {
            "key": self.key,
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
        }


def _in_range(day: date | None, since: date | None, until: date | None) -> bool:
    if since is None and until is None:
        return True
    if day is None:
        return False
    return (since is None or day >= since) and (until is None or day <= until)


def session_groups(
    session: Session,
    key: Callable[[Entry, date | None], str | None],
    tz: tzinfo = timezone.utc,
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
    return {k: compute_figures(es) for k, es in groups.items()}


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
    tz: tzinfo = timezone.utc,
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
            key = lambda e, d: model_key(e)  # noqa: E731
        else:
            key = lambda e, d: period_key(d, by)  # noqa: E731
        for k, fig in session_groups(session, key, tz, since, until).items():
            row = rows.setdefault(k, Row(k))
            row.figures.add(fig)
            if fig.message_count:
                row.sessions.add(sid)
    ordered = sorted(rows.values(), key=_order(by))
    return UsageReport(by, ordered, total)


def _order(by: str) -> Callable[[Row], Any]:
    if by in ("day", "week", "month"):
        return lambda r: (r.key == NO_DATE, r.key)
    if by == "tool":
        return lambda r: (-(r.tool_calls or 0), r.key)
    return lambda r: (-(r.figures.cost), -r.figures.tokens["total"], r.key)


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


def money(cost: float | None) -> str:
    if cost is None:
        return "—"
    return f"${cost:.2f}" if cost >= 1 else f"${cost:.4f}"


def _cells(data: JSON) -> list[str]:
    out = []
    for _, k in COLUMNS:
        if k == "cost":
            out.append(money(data["cost"]))
        elif k in data:
            out.append(compact(int(data[k])))
        else:
            out.append(compact(int(data["tokens"][k])))
    return out


def _fit(text: str, width: int) -> str:
    """Cut on the left (paths and models end in what tells them apart), never inside a
    redaction token."""
    return shorten_left(text, width)


def format_table(report: UsageReport, safe: Callable[[str], str] = str) -> str:
    """An aligned table with a totals row, at most 80 columns wide."""
    data = report.as_json()
    head = [h for h, _ in COLUMNS]
    body = [[safe(r["key"]), *_cells(r)] for r in data["rows"]]
    body.append(["Total", *_cells({**data["total"], "key": "Total"})])
    widths = [max(len(h), *(len(r[i + 1]) for r in body)) for i, h in enumerate(head)]
    room = WIDTH - sum(widths) - len(widths)
    key_width = max(6, min(room, max(len(r[0]) for r in [*body, [report.by.title()]])))
    lines = []

    def line(cells: list[str]) -> str:
        return " ".join(
            [_fit(cells[0], key_width).ljust(key_width)]
            + [c.rjust(w) for c, w in zip(cells[1:], widths, strict=True)]
        ).rstrip()

    lines.append(line([report.by.title(), *head]))
    rule = "-" * min(WIDTH, key_width + sum(widths) + len(widths))
    lines.append(rule)
    lines += [line(r) for r in body[:-1]]
    lines.append(rule)
    lines.append(line(body[-1]))
    return "\n".join(lines)


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
)


def _csv_text(text: str) -> str:
    """A cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def format_csv(report: UsageReport) -> str:
    data = report.as_json()
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for r in [*data["rows"], {**data["total"], "key": "total"}]:
        flat = {**r, **r["tokens"]}
        w.writerow(
            [
                _csv_text(str(flat["key"])),
                *(flat[k] for k in CSV_FIELDS[1:-1]),
                "" if flat["cost"] is None else flat["cost"],
            ]
        )
    return buf.getvalue()


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
    tools = tool_rows(session, None, None, timezone.utc, whole.tool_calls)
    return {
        "days": days,
        "tools": {k: list(v) for k, v in sorted(tools.items())},
        "cost": whole.known_cost,
    }

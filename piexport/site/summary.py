"""The facts an index row shows about a session, all of them from the whole file."""

from __future__ import annotations

from pathlib import Path

from ..read.figures import chartable
from ..read.model import JSON, Session
from ..read.tree import timestamp_ms
from ..report.stats import file_figures
from ..report.summary import session_span
from ..report.usage import session_usage

__all__ = ["SUMMARY_KEYS", "session_summary"]


def session_summary(session: Session, source: Path) -> JSON:
    """The facts an index row shows about a session (all of them from the whole file)."""
    fig = file_figures(session)
    header = session.header
    # when the session ran comes from its entries: a header can be later than every entry
    # (an /export copy) or earlier than copied ones (a /fork); it is kept, and shown, apart
    span = session_span(session, fig)
    first, last, header_ms = span.start, span.end, span.header
    if any(t is not None and not chartable(t) for t in (first, last, header_ms)):
        first, last, header_ms = _charted(session, first, last, header_ms)
    parts = session.title_parts
    title = str(parts) if parts is not None else "(no messages)"
    return {
        "id": session.id,
        "name": session.name,
        "title": session.derive.line(title, 300, ""),
        "titleChip": parts.chip if parts is not None else None,
        "titleText": parts.text if parts is not None else title,
        "titleRaw": parts.raw if parts is not None else None,
        "cwd": session.cwd,
        "file": source.name,
        "parentSession": header.parent_session if header else None,
        "started": first,
        "last": last,
        "headerTime": header_ms,
        "durationSeconds": span.seconds,
        "activeSeconds": span.active_seconds,
        "copiedFrom": span.copied_from,
        "messages": fig.message_count,
        "entries": len(session.entries),
        "leaves": len(session.tree.leaves),
        "branchPoints": len(session.tree.branch_points),
        "compactions": fig.compactions,
        "labels": len(session.labels),
        "models": fig.models,
        "tokens": fig.tokens["total"],
        "tokensDetail": dict(fig.tokens),
        "cost": round(fig.cost, 6),
        "costEstimated": fig.known_estimate,
        "toolCalls": sum(fig.tool_calls.values()),
        "errors": fig.errors,
        "toolErrors": fig.tool_errors,
        "diagnostics": len(session.diagnostics),
        "usage": session_usage(session),
        # set by the site, which knows the sessions around it (read.lineage)
        "relation": None,
        "subagents": 0,
        "costWithSubagents": None,
    }


def _charted(
    session: Session, first: int | None, last: int | None, header: int | None
) -> tuple[int | None, int | None, int | None]:
    """A session's start, end and header time, each dropped for the times of its entries the
    site charts when it is not one of those (the loader named it: ``read.figures``)."""
    times = [
        ms
        for e in session.entries
        if (ms := timestamp_ms(e.timestamp)) is not None and chartable(ms)
    ]
    if first is not None and not chartable(first):
        first = min(times, default=None)
    if last is not None and not chartable(last):
        last = max(times, default=first)
    return first, last, header if header is None or chartable(header) else None


SUMMARY_KEYS = (
    "id",
    "name",
    "title",
    "titleChip",
    "titleText",
    "titleRaw",
    "cwd",
    "file",
    "parentSession",
    "started",
    "last",
    "headerTime",
    "durationSeconds",
    "activeSeconds",
    "copiedFrom",
    "messages",
    "entries",
    "leaves",
    "branchPoints",
    "compactions",
    "labels",
    "models",
    "tokens",
    "tokensDetail",
    "cost",
    "costEstimated",
    "toolCalls",
    "errors",
    "toolErrors",
    "diagnostics",
    "usage",
    "relation",
    "subagents",
    "costWithSubagents",
)

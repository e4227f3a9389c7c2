"""What a CI job page needs about a run: a stable JSON summary and a short Markdown one.

The JSON shape is documented in the README and kept stable; the Markdown is short enough
for ``$GITHUB_STEP_SUMMARY`` and shows content only inside code fences, so nothing from the
session can become HTML on the job page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..read.figures import iso_time
from ..read.model import JSON, Session, content_text
from ..read.tree import timestamp_ms
from ..text.cut import Derive
from ..text.mdsafe import code_fence, inline_text
from .paths import shown_path
from .stats import Figures, active_ms, compute_figures, file_figures

FAIL_CONDITIONS = ("tool-error", "error", "aborted")
TRIM = 600


@dataclass(frozen=True, slots=True)
class Span:
    """When a session ran, from its entries (issue 28: a header can be hours off)."""

    start: int | None
    """Its first entry; for a fork, its first entry of its own (at or after the header:
    the ones before were copied from the session it was forked from)."""
    end: int | None
    header: int | None
    """The header's time, as written."""
    copied_from: int | None = None
    """A fork's copied history: the time of its first (copied) entry."""
    active_ms: int | None = None
    """Time spent working from ``start`` to ``end`` (``stats.active_ms``: gaps between
    entries over 15 minutes are idle); the span (``seconds``) keeps them."""

    @property
    def active_seconds(self) -> float | None:
        return None if self.active_ms is None else self.active_ms / 1000

    @property
    def seconds(self) -> float | None:
        if self.start is None or self.end is None:
            return None
        return max(0.0, (self.end - self.start) / 1000)

    @property
    def header_later(self) -> bool:
        """The header was written after the entries (an /export copy)."""
        return self.header is not None and self.end is not None and self.header > self.end


def session_span(session: Session, every: Figures | None = None) -> Span:
    """Start and end from the entries. pi writes the header when the file is made: a
    little before the first entry as a rule, after every entry in an ``/export`` copy
    (its entries are the original's), and before the entries of a ``/fork``'s own turns but
    after the history it copied. So: the first entry, except in a fork (a header naming
    its parent), where it is the first entry at or after the header."""
    every = every if every is not None else file_figures(session)
    header = session.header
    header_ms = timestamp_ms(header.timestamp) if header else None
    first, last = every.first_ms, every.last_ms
    if first is None:
        return Span(header_ms, header_ms, header_ms)
    assert last is not None
    if header_ms is None or header_ms <= first or header_ms > last:
        return Span(first, last, header_ms, active_ms=every.active_ms)
    if header is None or not header.parent_session:
        # no parent named: nothing was copied (a version-1 file's header can be dated
        # after its first entries), so its first entry is where it starts
        return Span(first, last, header_ms, active_ms=every.active_ms)
    own = [
        ms
        for e in session.entries
        if (ms := timestamp_ms(e.timestamp)) is not None and ms >= header_ms
    ]
    return Span(min(own), last, header_ms, copied_from=first, active_ms=active_ms(own))


def summary_json(session: Session, leaf_id: str | None = None) -> JSON:
    """The stable JSON summary (see README: "piexport summary")."""
    path = compute_figures(session.path_entries(leaf_id), estimate=True)
    every = file_figures(session)
    header = session.header
    span = session_span(session, every)  # from the entries, not the header
    return {
        "session": {
            "id": session.id,
            "name": session.name,
            "cwd": session.cwd,
            "started": iso_time(span.start),
            "ended": iso_time(span.end),
            "headerTime": iso_time(span.header),
            "durationSeconds": span.seconds,
            "activeSeconds": span.active_seconds,
            "parentSession": header.parent_session if header else None,
        },
        "path": path.as_json(),
        "all": every.as_json(),
        "leaves": list(session.tree.leaves),
        "labels": dict(session.labels),
        "diagnostics": [str(d) for d in session.diagnostics],
    }


def failures(
    session: Session, conditions: tuple[str, ...], leaf_id: str | None = None
) -> list[str]:
    """Which of the ``--fail-on`` conditions the current path shows."""
    entries = session.path_entries(leaf_id)
    found = []
    stops = [(e.message or {}).get("stopReason") for e in entries if e.role == "assistant"]
    if "tool-error" in conditions and compute_figures(entries).tool_errors:
        found.append("tool-error")
    for stop in ("error", "aborted"):
        if stop in conditions and stop in stops:
            found.append(stop)
    return found


def _link_ok(link: str) -> bool:
    """http(s) or a relative path; never another scheme, never markup."""
    has_scheme = re.match(r"^[A-Za-z][\w+.-]*:", link) is not None
    return (not has_scheme or link.startswith(("http://", "https://"))) and not re.search(
        r"[\s<>]", link
    )


def _trim(text: str, derive: Derive, limit: int = TRIM) -> str:
    """The start of a text, cut near ``limit`` (made with the session's ``derive``)."""
    return derive.cut(text.strip(), limit, strip=True)


def _cost_cell(fig: Figures) -> str:
    """The reported cost, and beside it (never added to it) the estimate for messages that
    reported none."""
    shown = f"${fig.cost:.4f}" if fig.cost else "—"
    if fig.known_estimate is not None:
        shown += (
            f" (+ ~${fig.cost_estimated:.4f} est.)"
            if fig.cost
            else f" (~${fig.cost_estimated:.4f} est.)"
        )
    return shown


def summary_markdown(session: Session, leaf_id: str | None = None, link: str | None = None) -> str:
    """A short report for a CI job page: asked, outcome, figures, files modified, link."""
    from .branches import duration as written_duration  # as the pages write it

    entries = session.path_entries(leaf_id)
    fig: Figures = compute_figures(entries, estimate=True)
    data = summary_json(session, leaf_id)
    derive = session.derive
    asked = next(
        (
            text
            for e in entries
            if e.role == "user"
            and (text := content_text((e.message or {}).get("content"), "", derive)).strip()
        ),
        "",
    )
    outcome = next(
        (
            text
            for e in reversed(entries)
            if e.role == "assistant"
            and (text := content_text((e.message or {}).get("content"), "", derive)).strip()
        ),
        "",
    )
    title = session.title or "pi session"
    duration = data["session"]["durationSeconds"]
    active = data["session"]["activeSeconds"]
    lines = [f"### pi session: {inline_text(title)}", ""]
    if link and _link_ok(link):
        lines += [f"[Open the full transcript](<{link}>)", ""]
    lines += ["**Asked**", "", code_fence(_trim(asked, derive) or "(no user message)"), ""]
    lines += ["**Outcome**", "", code_fence(_trim(outcome, derive) or "(no assistant text)"), ""]
    stops = [(e.message or {}).get("stopReason") for e in entries if e.role == "assistant"]
    last_stop = stops[-1] if stops else None
    lines += [
        "| tokens in | tokens out | cache read | cache write | cost | active | span | tool calls "
        "| tool errors | turns ended in error |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {fig.tokens['input']} | {fig.tokens['output']} | {fig.tokens['cacheRead']} | "
        f"{fig.tokens['cacheWrite']} | {_cost_cell(fig)} | "
        f"{'—' if active is None else written_duration(active)} | "
        f"{'—' if duration is None else written_duration(duration)} | "
        f"{sum(fig.tool_calls.values())} | "
        f"{fig.tool_errors} | {fig.errors} |",
        "",
    ]
    if last_stop in ("error", "aborted", "length"):
        lines += [f"**The last turn ended with `{last_stop}`.**", ""]
    if fig.files_modified:
        shown = sorted({shown_path(p, session.cwd) for p in fig.files_modified})
        lines += ["**Files modified**", "", code_fence(derive.join(shown, "\n")), ""]
    if session.diagnostics:
        lines += [f"_{len(session.diagnostics)} problem(s) reading the session file._", ""]
    # our one-line encoders (a code span, a heading) join lines: read again
    return derive.markdown("\n".join(lines))

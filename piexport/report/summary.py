"""What a CI job page needs about a run: a stable JSON summary and a short Markdown one.

The JSON shape is documented in the README and kept stable; the Markdown is short enough
for ``$GITHUB_STEP_SUMMARY`` and shows content only inside code fences, so nothing from the
session can become HTML on the job page.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ..read.model import JSON, Session, content_text
from ..read.tree import timestamp_ms
from ..share.cut import Derive
from .mdsafe import code_fence, inline_text
from .stats import Figures, compute_figures, file_figures

FAIL_CONDITIONS = ("tool-error", "error", "aborted")
TRIM = 600


def _iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    stamp = datetime.fromtimestamp(ms / 1000, timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def summary_json(session: Session, leaf_id: str | None = None) -> JSON:
    """The stable JSON summary (see README: "piexport summary")."""
    path = compute_figures(session.path_entries(leaf_id))
    every = file_figures(session)
    header = session.header
    started = timestamp_ms(header.timestamp) if header else None
    started = started if started is not None else every.first_ms
    ended = every.last_ms
    return {
        "session": {
            "id": session.id,
            "name": session.name,
            "cwd": session.cwd,
            "started": _iso(started),
            "ended": _iso(ended),
            "durationSeconds": (ended - started) / 1000
            if started is not None and ended is not None
            else None,
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


def summary_markdown(session: Session, leaf_id: str | None = None, link: str | None = None) -> str:
    """A short report for a CI job page: asked, outcome, figures, files modified, link."""
    entries = session.path_entries(leaf_id)
    fig: Figures = compute_figures(entries)
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
    lines = [f"### pi session: {inline_text(title)}", ""]
    if link and _link_ok(link):
        lines += [f"[Open the full transcript](<{link}>)", ""]
    lines += ["**Asked**", "", code_fence(_trim(asked, derive) or "(no user message)"), ""]
    lines += ["**Outcome**", "", code_fence(_trim(outcome, derive) or "(no assistant text)"), ""]
    stops = [(e.message or {}).get("stopReason") for e in entries if e.role == "assistant"]
    last_stop = stops[-1] if stops else None
    lines += [
        "| tokens in | tokens out | cache read | cache write | cost | duration | tool calls "
        "| tool errors | turns ended in error |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {fig.tokens['input']} | {fig.tokens['output']} | {fig.tokens['cacheRead']} | "
        f"{fig.tokens['cacheWrite']} | {f'${fig.cost:.4f}' if fig.cost else '—'} | "
        f"{'—' if duration is None else f'{duration:.0f} s'} | {sum(fig.tool_calls.values())} | "
        f"{fig.tool_errors} | {fig.errors} |",
        "",
    ]
    if last_stop in ("error", "aborted", "length"):
        lines += [f"**The last turn ended with `{last_stop}`.**", ""]
    if fig.files_modified:
        modified = derive.join(sorted(fig.files_modified), "\n")
        lines += ["**Files modified**", "", code_fence(modified), ""]
    if session.diagnostics:
        lines += [f"_{len(session.diagnostics)} problem(s) reading the session file._", ""]
    # our one-line encoders (a code span, a heading) join lines: read again
    return derive.markdown("\n".join(lines))

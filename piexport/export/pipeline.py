"""One session file → one page: load, shape, render, then write atomically."""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..deadline import DeadlineExceeded, cpu_limit, held, outer_expired, stops
from ..errors import PiexportError
from ..output import write_atomic
from ..page.render import RenderOptions, SiteNav, render_plain_parts, render_session_parts
from ..page.view import ChildRef, Origin, Subagent, build_view
from ..read.loader import load_session
from ..read.model import Diagnostic, Session
from ..read.selection import Selection, sharing_notice
from ..redact.engine import Redactor
from ..redact.rules import RedactionError
from ..redact.session import redact_session
from ..report.subagents import session_outcome
from ..workers import default_workers
from .gate import Gate
from .shown import share_session

__all__ = [
    "ExportResult",
    "Gate",
    "RenderOptions",
    "SiteNav",
    "export_session",
    "page_seconds",
    "share_session",
]


def page_seconds(input_bytes: int) -> float:
    """The hang guard of one page, in CPU seconds of the page's process: two minutes, and
    30 s per MB of session. Big pages take well under half a second of it per MB, so no
    ordinary page reaches it, on a busy machine (its clock counts the page's own work, not
    the waiting) or on one 50 times slower; it is a last resort, behind the counted caps
    that decide what a page shows, and its firing is written on the page and reported."""
    return 120.0 + 30.0 * input_bytes / 1_000_000


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What one export produced: the page written and the session (with its diagnostics)."""

    out: Path
    session: Session
    """The session as shown: selected and redacted when asked."""
    redacted: dict[str, int] = field(default_factory=dict)
    """Secrets replaced on this page, per rule (empty without a redactor)."""
    subagents: int = 0
    """Subagent sessions the page lists."""
    cost_with_subagents: float | None = None
    """The session's cost and its subagents' (None when none reported one)."""


def export_session(
    source: Path | IO[bytes],
    out: Path,
    options: RenderOptions | None = None,
    *,
    parent_href: str | None = None,
    forks: list[tuple[str, str]] | None = None,
    origin: Origin | None = None,
    children: Sequence[ChildRef] = (),
    name: str | None = None,
    redactor: Redactor | None = None,
    selection: Selection | None = None,
    seconds: float | None = None,
    pending_tail: bool = False,
    nav: SiteNav | None = None,
) -> ExportResult:
    """Load, shape and render one session file, then write its page atomically.

    With a ``redactor``, secrets are replaced before anything is rendered and the page is
    scanned again before it is written: if a rule still matches, ``RedactionError`` is raised
    and no page is left at ``out`` (an older one is removed too). Raises ``InputError`` for a
    file with no usable entries and ``OutputError`` when the page cannot be written; problems
    inside the file are diagnostics on the result.

    What the page shows is decided by counted work only. A page whose making uses more than
    ``seconds`` of CPU time (default :func:`page_seconds` of the input's size: a hang guard
    no ordinary page reaches) is written as a plain-text page instead, with a diagnostic
    saying so; blocks the per-block guards stopped are marked on the page and reported in
    one diagnostic (warnings: ``--strict`` fails on them).

    ``pending_tail``: the file is being written; an unterminated last line waits (see
    ``load_session``). ``nav``: where the page sits in a site (``SiteNav``).

    ``origin`` says how the session came from its parent; ``children`` are the sessions
    started from it (``read.lineage``): its subagents are read for their task, end and cost.
    """
    loaded = load_session(source, name=name, pending_tail=pending_tail)
    session, redacted = share_session(loaded, redactor, selection)
    notice = sharing_notice(selection, redacted if redactor is not None else None)
    options = options or RenderOptions()
    gate = Gate(redactor, options.workers or default_workers()) if redactor is not None else Gate()
    if seconds is None:
        seconds = page_seconds(_size(source))
    lineage: dict[str, Any] = {}
    try:
        with stops() as stopped, cpu_limit(seconds):
            view = build_view(
                session,
                parent_href=parent_href,
                forks=forks,
                origin=origin,
                subagents=subagents(children, redactor),
            )
            lineage = {
                "subagents": len(view.subagents),
                "cost_with_subagents": view.cost_with_subagents,
            }
            parts = render_session_parts(view, options, sharing=notice, nav=nav)
            try:
                _write(out, parts, gate, session)
            finally:  # its worker processes end now, never when the collector gets to them
                close = getattr(parts, "close", None)
                if close is not None:
                    with held():
                        close()
        if stopped:
            said = f"{len(stopped)} block(s) stopped by the hang guard, shown as text: "
            session.diagnostics.append(Diagnostic(session.path, 0, said + "; ".join(stopped)))
    except DeadlineExceeded:
        if outer_expired():
            raise
        took = f"the page took longer than {seconds:g} s of CPU time to make"
        session.diagnostics.append(Diagnostic(session.path, 0, f"{took}: written as plain text"))
        reason = f"{took[0].upper()}{took[1:]}, so it is shown as plain text."
        plain = render_plain_parts(session, session.title or "Untitled session", reason, nav)
        _write(out, plain, gate, session)
        lineage = {}
    return ExportResult(out, session, redacted, **lineage)


MAX_DEPTH = 20
"""Subagents of subagents counted in a "with subagents" total, at most this deep."""


def subagents(
    children: Sequence[ChildRef], redactor: Redactor | None = None, depth: int = 0
) -> list[Subagent]:
    """The subagent sessions among ``children``, each read for its task, end and cost (with
    its own subagents'); redacted like the page that lists them."""
    out: list[Subagent] = []
    for ref in children:
        if ref.relation != "subagent":
            continue
        try:
            child = load_session(ref.path)
        except PiexportError:
            out.append(Subagent(ref, None, None))
            continue
        if redactor is not None:  # its words reach this page: redacted, not counted on it
            counted = Counter(redactor.counts)
            child = redact_session(child, redactor)
            redactor.counts.clear()
            redactor.counts.update(counted)
        outcome = session_outcome(child)
        deeper = subagents(ref.children, redactor, depth + 1) if depth < MAX_DEPTH else []
        costs = [c for c in (outcome.cost, *(d.total_cost for d in deeper)) if c is not None]
        out.append(Subagent(ref, outcome, sum(costs) if costs else None))
    return out


def _size(source: Path | IO[bytes]) -> int:
    try:
        return source.stat().st_size if isinstance(source, Path) else 0
    except OSError:
        return 0


def _write(out: Path, parts: Iterator[str], gate: Gate, session: Session) -> None:
    """Write a page atomically, through ``gate``: a page it refuses is not left at ``out``
    (nor is an older one)."""
    if not gate.redacting:
        write_atomic(out, parts)
        return

    def check(written: Path) -> None:
        # the page as written, before it takes the place of the old one
        gate.check_file(written, out, "html", session)

    try:
        write_atomic(out, parts, check=check)
    except RedactionError:
        with contextlib.suppress(OSError):
            out.unlink()
        raise

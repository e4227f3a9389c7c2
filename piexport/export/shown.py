"""The session as an output shows it: loaded, then selected, then redacted (the first steps
of every export: a page, Markdown, JSON, a summary, a printed report)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ..read.loader import load_session
from ..read.model import Session
from ..read.selection import Selection, apply_selection

if TYPE_CHECKING:  # the rules load only when something is redacted
    from ..redact.engine import Redactor

__all__ = ["Shown", "load_shown", "share_session", "shown"]


@dataclass(frozen=True, slots=True)
class Shown:
    """A session as shown, and the secrets replaced in it per rule (empty unredacted)."""

    session: Session
    """Selected and redacted when asked; its ``derive`` makes every text made from it."""
    redacted: dict[str, int] = field(default_factory=dict)


def share_session(
    session: Session, redactor: Redactor | None = None, selection: Selection | None = None
) -> tuple[Session, dict[str, int]]:
    """Name the figures that cannot be true, apply the selection, then redaction; returns the
    session to show and the secrets replaced per rule. Raises ``SelectionError`` for an unknown
    leaf."""
    from ..report.prices import estimate_problems

    known = set(session.diagnostics)
    session.diagnostics.extend(d for d in estimate_problems(session) if d not in known)
    if selection is not None:
        session = apply_selection(session, selection)
    if redactor is None:
        return session, {}
    from ..redact.session import redact_session

    before = Counter(redactor.counts)
    session = redact_session(session, redactor)
    return session, dict(redactor.counts - before)


def shown(
    session: Session, redactor: Redactor | None = None, selection: Selection | None = None
) -> Shown:
    """:func:`share_session` as a :class:`Shown`."""
    return Shown(*share_session(session, redactor, selection))


def load_shown(
    source: Path | IO[bytes],
    redactor: Redactor | None = None,
    selection: Selection | None = None,
    *,
    name: str | None = None,
) -> Shown:
    """Load a session file (or a stream, called ``name``), then select and redact it.
    Raises ``InputError`` for a file with no usable entries, ``SelectionError`` for an
    unknown leaf."""
    return shown(load_session(source, name=name), redactor, selection)

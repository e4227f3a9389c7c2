"""One session file → one page: load, shape, render, then write atomically."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .loader import load_session
from .model import Session
from .output import write_atomic
from .render import RenderOptions, render_session_parts
from .view import build_view

__all__ = ["ExportResult", "RenderOptions", "export_session"]


@dataclass(frozen=True, slots=True)
class ExportResult:
    """What one export produced: the page written and the session (with its diagnostics)."""

    out: Path
    session: Session


def export_session(
    source: Path | IO[bytes],
    out: Path,
    options: RenderOptions | None = None,
    *,
    parent_href: str | None = None,
    forks: list[tuple[str, str]] | None = None,
    name: str | None = None,
) -> ExportResult:
    """Load, shape and render one session file, then write its page atomically.

    Raises ``InputError`` for a file with no usable entries and ``OutputError`` when the
    page cannot be written; problems inside the file are diagnostics on the result.
    """
    session = load_session(source, name=name)
    view = build_view(session, parent_href=parent_href, forks=forks)
    write_atomic(out, render_session_parts(view, options or RenderOptions()))
    return ExportResult(out, session)

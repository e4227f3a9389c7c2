"""The output gate as one object: every writer of session text (a page, Markdown, JSON, a
summary, a share's description, a printed report) takes a :class:`Gate` and asks it before
anything leaves, instead of each calling the redaction rules its own way."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rules load only when something is redacted
    from ..read.model import Session
    from ..redact.engine import Redactor

__all__ = ["Gate"]


@dataclass(frozen=True, slots=True)
class Gate:
    """The last check before an output is written or printed (``redact.engine.gate``).

    With a ``redactor``, :meth:`check` raises ``RedactionError`` naming the rules (never the
    secrets) when they still find something in an output, read as its reader reads it, and
    names the entries of ``session`` whose ids hold a secret (``redact.engine.unrewritable``:
    redaction never rewrites ids). Without one there is nothing to check: every output
    passes, so a writer asks the gate whether or not the command redacts."""

    redactor: Redactor | None = None
    workers: int = 1
    """Processes that scan a big output together."""

    @property
    def redacting(self) -> bool:
        return self.redactor is not None

    def check(
        self, text: str, where: object, kind: str = "html", session: Session | None = None
    ) -> None:
        """Gate an output about to be written or printed. ``where`` names it in the refusal;
        ``kind`` is how its reader reads it: ``"html"`` (a page), ``"markdown"``,
        ``"json"``, ``"csv"`` or ``"text"`` (a terminal, a file read as it is)."""
        self._gate(text, where, kind, session)

    def check_file(
        self,
        path: Path,
        where: object | None = None,
        kind: str = "html",
        session: Session | None = None,
    ) -> None:
        """Gate a file written and not yet in place (a page is never held whole), read a
        slice at a time; ``where`` defaults to the file itself."""
        self._gate(path, path if where is None else where, kind, session)

    def _gate(self, text: str | Path, where: object, kind: str, session: Session | None) -> None:
        if self.redactor is None:
            return
        from ..redact.gate import gate

        gate(text, self.redactor, where, workers=self.workers, session=session, kind=kind)

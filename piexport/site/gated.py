"""Every name and file the site writes, redacted and through the output gate when it
redacts (the names of files and folders can hold secrets too)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..output import write_atomic

if TYPE_CHECKING:
    from ..redact.engine import Redactor

__all__ = ["shown", "text_gate", "write_checked"]


def text_gate(redactor: Redactor | None) -> Callable[[str, Path], None] | None:
    """The output gate as ``gate(text, path)`` when redacting, else None."""
    if redactor is None:
        return None
    from ..export.pipeline import check_output

    # the index's values, a blank line between: each read as it is (search shows each as
    # text of its own), never one value with the next
    return lambda text, path: check_output(text, redactor, path, kind="text")


def shown(text: str, redactor: Redactor | None) -> str:
    """A name or message as the site writes it: redacted when redacting."""
    return text if redactor is None else redactor.redact_text(text, count=False)


def write_checked(path: Path, text: str, redactor: Redactor | None) -> None:
    """Write an index page, through the output gate when redacting."""
    if redactor is not None:
        from ..export.pipeline import check_output

        check_output(text, redactor, path)
    write_atomic(path, text)

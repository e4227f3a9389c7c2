"""Every name and file the site writes, redacted and through the output gate when it
redacts (the names of files and folders can hold secrets too). A page the gate refuses is
replaced by a plain page that says why (the rules, never the text): one refused page never
stops an archive."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import RedactionError
from ..export.gate import Gate
from ..output import write_atomic

if TYPE_CHECKING:
    from ..redact.engine import Redactor
    from .records import SiteReport

__all__ = ["refused_page", "shown", "text_gate", "write_checked", "write_refused"]


def text_gate(redactor: Redactor | None) -> Callable[[str, Path], None] | None:
    """The output gate as ``gate(text, path)`` when redacting, else None."""
    if redactor is None:
        return None
    # the index's values, a blank line between: each read as it is (search shows each as
    # text of its own), never one value with the next
    return lambda text, path: Gate(redactor).check(text, path, kind="text")


def shown(text: str, redactor: Redactor | None) -> str:
    """A name or message as the site writes it: redacted when redacting."""
    return text if redactor is None else redactor.redact_text(text, count=False)


def write_checked(
    path: Path, text: str, redactor: Redactor | None, report: SiteReport | None = None
) -> None:
    """Write an index page, through the output gate when redacting. With a ``report``, a
    page the gate refuses is replaced by a plain page saying so and named in
    ``report.refused``; without one, the refusal is raised."""
    if redactor is not None:
        try:
            Gate(redactor).check(text, path)
        except RedactionError as exc:
            if report is None:
                raise
            write_refused(path, str(exc), redactor, report.out)
            report.refused.append(str(exc))
            return
    write_atomic(path, text)


def write_refused(path: Path, reason: str, redactor: Redactor | None, site: Path) -> bool:
    """Put a plain page at ``path`` in place of one the gate refused: it says why (the
    gate's message names the rules and counts, never what they matched) and links the
    site's root index. The plain page is gated too; should it be refused as well, the page
    says only that it was refused; should that be refused, no page is left (False)."""
    try:
        depth = len(path.resolve().relative_to(site.resolve()).parts) - 1
    except ValueError:
        depth = 0
    home = "../" * depth + "index.html"
    for text in (refused_page(reason, home), refused_page(None, home)):
        if redactor is not None:
            try:
                Gate(redactor).check(text, path)
            except RedactionError:
                continue
        write_atomic(path, text)
        return True
    path.unlink(missing_ok=True)
    return False


def refused_page(reason: str | None, home: str) -> str:
    """A page with no session text: what the redaction gate refused, and why."""
    why = (
        f"<p>The redaction gate refused it: <code>{html.escape(reason)}</code></p>"
        if reason is not None
        else "<p>The redaction gate refused it.</p>"
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">'
        '<meta name="robots" content="noindex">'
        "<title>Page not written</title></head>\n<body>\n"
        "<h1>Page not written</h1>\n"
        f"{why}\n"
        "<p>The rules still found something in the page after redaction, so it was not "
        "written, and nothing it held is here. Every other page of the archive was. "
        "Allow what is not a secret with <code>--allow</code> or a redaction config's "
        "<code>allow</code>, or build without the rule that matched.</p>\n"
        f'<p><a href="{html.escape(home)}">pi sessions</a></p>\n'
        "</body></html>\n"
    )

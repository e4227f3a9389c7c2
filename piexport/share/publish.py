"""``piexport share``: render a page as ``render --redact`` does, upload it as a secret gist,
record it in the share log; and take shares back.

Fails safe: gh is checked (installed, logged in) and the log is checked (writable) before
anything is rendered; the page is written by :func:`export_session`, whose output gate stops a
page the redaction rules still match; it reaches gh from a private temporary folder (0700, the
page 0600) that is removed afterwards whatever happens; a share is recorded only once gh has
said where it went.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..deadline import held
from ..errors import OutputError
from ..export.gate import Gate
from ..export.pipeline import RenderOptions, export_session
from ..read.model import Session
from ..read.selection import Selection
from ..redact.engine import Redactor
from ..site.names import page_name
from ..text.textsafe import terminal_safe
from ..version import __version__
from .gist import GistError, check_gh, create_gist, delete_gist, gist_id_from
from .log import ShareLog, ShareRecord, now_iso, session_key

__all__ = ["ShareResult", "revoke", "share", "viewer_link"]

VIEWER_ENV = "PIEXPORT_SHARE_VIEWER"


@dataclass(frozen=True, slots=True)
class ShareResult:
    record: ShareRecord
    session: Session
    """The session as shared (selected, redacted), with its diagnostics."""


def viewer_link(template: str | None, gist_id: str) -> str | None:
    """The viewer URL for a gist: ``{id}`` in the template replaced (no other braces read)."""
    return template.replace("{id}", gist_id) if template else None


def share(
    source: Path,
    log: ShareLog,
    *,
    redactor: Redactor | None,
    selection: Selection | None = None,
    description: str | None = None,
    viewer: str | None = None,
    options: RenderOptions | None = None,
    seconds: float | None = None,
) -> ShareResult:
    """Render, gate, upload and record one session; raises a ``PiexportError`` (nothing
    uploaded, nothing recorded) when any step fails before the upload."""
    gh = check_gh()
    log.check_writable()
    shown_name = source.name if redactor is None else redactor.redact_text(source.name, count=False)
    folder = Path(tempfile.mkdtemp(prefix="piexport-share-"))  # 0700: only we can enter it
    try:
        page = folder / page_name(Path(shown_name))
        result = export_session(
            source, page, options, redactor=redactor, selection=selection, seconds=seconds
        )
        os.chmod(page, 0o600)
        session = result.session
        title = session.title or "Untitled session"
        text = description if description is not None else f"pi session: {title}"
        # one line, no control characters (a NUL cannot even be an argument), bidi
        # controls and invisible characters shown as marks, as the page's title shows them
        text = session.derive.line(terminal_safe(text), 200)
        # what gh sends besides the page: the gist's description and file name
        Gate(redactor).check(f"{text}\n{page.name}", "gist description", "text", session)
        gist = create_gist(gh, page, text)
    finally:
        with held(), contextlib.suppress(OSError):
            shutil.rmtree(folder)
    resolved = str(source.resolve())
    record = ShareRecord(
        shared_at=now_iso(),
        # the log keeps the path as the page shows it: redacted when the page is
        session=resolved if redactor is None else redactor.redact_text(resolved, count=False),
        session_id=session.header.id if session.header else None,
        leaf=session.tree.leaf_id,
        gist_id=gist.id,
        url=gist.url,
        description=text,
        redacted=redactor is not None,
        secrets=dict(sorted(result.redacted.items())),
        selection=_selection_json(selection),
        viewer_url=viewer_link(viewer, gist.id),
        version=__version__,
        session_key=session_key(resolved),
    )
    try:
        log.add(record)
    except OutputError as exc:
        msg = (
            f"{exc}; the page was uploaded to {gist.url} but is not in the share log: "
            f"delete it with `gh gist delete {gist.id}`"
        )
        raise OutputError(msg) from exc
    return ShareResult(record, session)


def _selection_json(selection: Selection | None) -> dict[str, object]:
    s = selection or Selection()
    return {
        "branch": s.branch,
        "leaf": s.leaf,
        "noThinking": s.no_thinking,
        "noToolOutput": s.no_tool_output,
        "noImages": s.no_images,
        "onlyContext": s.only_context,
    }


@dataclass(frozen=True, slots=True)
class Revoked:
    record: ShareRecord
    already_gone: bool
    """GitHub no longer had the gist (deleted by hand): recorded as revoked all the same."""


def revoke(
    log: ShareLog, ids: Iterable[str] = (), session_file: Path | None = None
) -> tuple[list[Revoked], list[str]]:
    """Delete the gists of these shares (by gist id or URL, or every live share of a session
    file) and record each in the log as it goes. Returns what was revoked and notes on what
    was skipped; raises ``GistError`` when gh fails (shares revoked before it stay recorded)
    and ``PiexportError`` naming an id that is not in the log (before anything is deleted)."""
    records = log.records()
    by_id = {r.gist_id: r for r in records}
    chosen: list[ShareRecord] = []
    notes: list[str] = []
    for raw in ids:
        gist_id = gist_id_from(raw)
        if gist_id is None or gist_id not in by_id:
            msg = f"{raw}: no share with this gist id in {log.path} (see piexport shares)"
            raise GistError(msg)
        chosen.append(by_id[gist_id])
    if session_file is not None:
        wanted = str(session_file.resolve())
        found = [r for r in records if r.is_of(wanted)]
        if not found:
            raise GistError(f"{session_file}: no share of this session in {log.path}")
        chosen += found
    todo: list[ShareRecord] = []
    for r in {r.gist_id: r for r in chosen}.values():
        if r.revoked_at is not None:
            notes.append(f"{r.gist_id}: already revoked at {r.revoked_at}")
        else:
            todo.append(r)
    if not todo:
        return [], notes
    gh = check_gh()
    log.check_writable()
    done: list[Revoked] = []
    for r in todo:
        existed = delete_gist(gh, r.gist_id)
        log.revoke(r.gist_id)
        done.append(Revoked(r, already_gone=not existed))
    return done, notes

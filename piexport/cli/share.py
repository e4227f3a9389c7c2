"""Commands that put pages somewhere else: ``share`` (a secret gist, and taking one back)
and ``shares`` (the share log). Rendering, the gate, gh and the log are ``share``'s."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import PiexportError
from ..read.jsonutil import output_json
from ..read.selection import Selection
from ..text.textsafe import terminal_safe
from .errors import RunFailed, failure
from .options import (
    format_option,
    no_redact_option,
    page_timeout_option,
    redact_options,
    selection_options,
)
from .printing import redaction_line, report, say, session_path, usable_session_file

if TYPE_CHECKING:
    from ..redact.engine import Redactor
    from ..share.log import ShareLog
    from ..share.publish import ShareResult


def _interactive() -> bool:
    """Whether a person can answer a question (tests replace this)."""
    return sys.stdin.isatty()


@click.command("share")
@click.argument("file", required=False, type=click.Path(path_type=Path))
@click.option("--description", metavar="TEXT", help="The gist's description (default: the title).")
@click.option(
    "--viewer",
    metavar="URL",
    envvar="PIEXPORT_SHARE_VIEWER",
    help="Also print a viewer link: this URL with {id} replaced by the gist id "
    "(or $PIEXPORT_SHARE_VIEWER; none by default).",
)
@click.option(
    "--revoke",
    "revoke_ids",
    metavar="ID",
    multiple=True,
    help="Delete this shared gist (id or URL, repeatable) and mark it revoked in the log.",
)
@click.option(
    "--revoke-session",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="Delete every gist shared from this session file.",
)
@page_timeout_option
@no_redact_option
@redact_options
@selection_options(per_session=True)
def share_command(
    file: Path | None,
    description: str | None,
    viewer: str | None,
    revoke_ids: tuple[str, ...],
    revoke_session: Path | None,
    page_timeout: float | None,
    redactor: Redactor | None,
    selection: Selection | None,
) -> None:
    """Upload a session's page as a secret GitHub gist (with gh) and print its URL.

    The page is made as `render --redact` makes it (redaction on unless --no-redact; same
    gate), reaches gh from a private temporary file, and the share is recorded in the share
    log (see `piexport shares`). --revoke ID or --revoke-session FILE deletes shared gists."""
    from ..share.log import ShareLog
    from ..share.publish import share

    log = ShareLog.default()
    if revoke_ids or revoke_session is not None:
        if file is not None:
            raise click.UsageError("give FILE to share, or --revoke/--revoke-session, not both")
        _revoke(log, revoke_ids, revoke_session)
        return
    file = _usable(file, viewer, redactor)
    if redactor is None:
        _unredacted()
    publish = functools.partial(share, description=description, viewer=viewer)
    try:
        result = publish(file, log, redactor=redactor, selection=selection, seconds=page_timeout)
    except PiexportError as exc:
        raise failure(exc) from exc
    redaction_line(redactor, result.record.secrets)
    _said(result, log)


def _usable(file: Path | None, viewer: str | None, redactor: Redactor | None) -> Path:
    """FILE given and a session, and a --viewer URL with a place for the gist id."""
    if file is None:
        raise click.UsageError("missing FILE (or --revoke ID / --revoke-session FILE)")
    if viewer is not None and "{id}" not in viewer:
        raise click.UsageError(f"--viewer {viewer!r}: the URL needs {{id}} for the gist id")
    found = Path(session_path(str(file), redactor))  # a path, or the start of an id
    usable_session_file(found, redactor)
    return found


def _said(result: ShareResult, log: ShareLog) -> None:
    """The share's URL (and viewer link) on stdout; where it is recorded, on stderr."""
    record = result.record
    click.echo(terminal_safe(record.url))
    if record.viewer_url:
        click.echo(terminal_safe(record.viewer_url))
    say(f"recorded in {log.path}; take it back with: piexport share --revoke {record.gist_id}")
    report(result.session, strict=False)


def _unredacted() -> None:
    """Sharing without redaction: a person is asked first (no: exit 1), a script warned."""
    if _interactive():
        click.confirm(
            "Share the page WITHOUT redaction? Any secret in the session is uploaded",
            abort=True,
        )
    else:
        say("warning: --no-redact: the page is uploaded without redaction")


def _revoke(log: ShareLog, ids: tuple[str, ...], session: Path | None) -> None:
    """``share --revoke``: delete the gists and say which (a failure exits 1)."""
    from ..share.publish import revoke

    try:
        done, notes = revoke(log, ids, session)
    except PiexportError as exc:
        raise RunFailed(str(exc)) from exc
    finally:
        for problem in log.problems:
            say(terminal_safe(problem))
    for note in notes:
        say(terminal_safe(note))
    for r in done:
        gone = " (GitHub no longer had it)" if r.already_gone else ""
        click.echo(terminal_safe(f"revoked {r.record.gist_id} {r.record.url}{gone}"))


@click.command("shares")
@format_option("text", "json", help="A table (also: table), or every record as JSON.")
def shares_command(fmt: str) -> None:
    """List the pages `piexport share` uploaded, oldest first, and which were revoked."""
    from ..share.log import ShareLog, shares_table

    log = ShareLog.default()
    try:
        records = log.records()
    except PiexportError as exc:
        raise RunFailed(str(exc)) from exc
    for problem in log.problems:
        say(terminal_safe(problem))
    if fmt == "json":
        click.echo(output_json([r.as_json() for r in records]))
    elif not records:
        say(f"no shares recorded in {log.path}")
    else:
        for line in shares_table(records):
            click.echo(line)


COMMANDS = (share_command, shares_command)

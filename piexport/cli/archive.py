"""Commands over a whole sessions folder: ``site`` (a static archive, ``--watch`` to keep it
current), ``serve`` (a live one), ``search`` and ``usage``. Building, watching and serving
are ``site``'s; searching ``search``'s; the figures ``report.usage``'s."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import PiexportError
from ..export.gate import Gate
from ..export.outputs import Printed
from ..search.records import FIELDS
from .errors import Interrupted, RunFailed, UsageProblem, failure
from .options import (
    colour,
    format_option,
    highlight_option,
    many_sessions,
    page_timeout_option,
    redact_options,
    search_fields_option,
    selection_options,
    site_job,
    strict_option,
)
from .printing import (
    derive_for,
    emit,
    open_in_browser,
    output_folder,
    progress_bar,
    redaction_line,
    said,
    say,
    terminal_width,
    usable_session_file,
)

if TYPE_CHECKING:
    from ..redact.engine import Redactor
    from ..search.local import Found
    from ..search.query import Query
    from ..site.job import SiteJob


@click.command("site")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    default=Path("piexport-site"),
    show_default=True,
    help="Folder to write the site to.",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Worker processes (default: all cores).",
)
@click.option("--force", is_flag=True, help="Render every page again, changed or not.")
@many_sessions()
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option("--open", "open_site", is_flag=True, help="Open the site's index in a browser.")
@search_fields_option(
    "What search indexes, comma-separated (default: all): "
    + ", ".join(FIELDS)
    + ". Prefix with - to leave out, e.g. -output,-thinking."
)
@click.option("--no-search", is_flag=True, help="Write no search page and no index.")
@click.option(
    "--watch",
    is_flag=True,
    help="After building, keep the site current as sessions change (Ctrl+C stops).",
)
@click.option(
    "--poll",
    is_flag=True,
    help="With --watch: look for changes by polling (network drives give no events).",
)
@page_timeout_option
@highlight_option
@redact_options
@selection_options(per_session=False)
@strict_option
@site_job
def site_command(
    job: SiteJob, quiet: bool, open_site: bool, strict: bool, watch: bool, poll: bool
) -> None:
    """Archive every session under ROOT (default: pi's sessions folder) as a static site.

    Writes one page per session, an index per project and one over all projects, and
    search.html, which searches every session from the folder (no server needed). Pages of
    unchanged sessions are kept; pages of deleted sessions are removed.
    """
    from ..site.live import build_lines
    from ..site.live import watch as watch_site

    _usable_root(job.root, job.redactor)
    output_folder(job.out)
    if watch:
        _live(functools.partial(watch_site, job, quiet=quiet, poll=poll, open_browser=open_site))
        return
    try:
        built = job.build(progress=None if quiet else progress_bar("rendering"))
    except PiexportError as exc:
        raise failure(exc) from exc
    except KeyboardInterrupt as exc:  # Ctrl+C: what is written is kept (and said)
        raise Interrupted(f"piexport: {exc or 'interrupted'}") from None
    for line in build_lines(built, quiet=quiet):
        say(line)
    if built.nothing_found:
        say(f"piexport: {built.nothing_found}")
    redaction_line(job.redactor, built.redacted)
    if open_site and (job.out / "index.html").is_file():
        open_in_browser(job.out / "index.html")
    if built.failed or built.refused:  # each said above
        raise RunFailed()
    if strict and built.warnings:
        raise RunFailed(f"{len(built.warnings)} warning(s) and --strict")


def _live(run: Callable[..., None]) -> None:
    """Run a watch (``site.live``) that tells the person on stderr; a second Ctrl+C stops it
    at once."""
    try:
        run(say=say)
    except KeyboardInterrupt:
        raise Interrupted("stopped") from None
    except Exception as exc:  # the first build: a missing folder is unusable input (2)
        raise failure(exc) from exc


@click.command("serve")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path),
    default=None,
    help="Folder for the site (default: a cache folder per ROOT).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on (0: any free one, said when serving starts).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but localhost shows your sessions to the network.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the archive in a browser.")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None, help="Worker processes.")
@many_sessions()
@click.option("--poll", is_flag=True, help="Poll for changes (network drives give no events).")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@highlight_option
@redact_options
def serve_command(
    root: Path | None,
    out: Path | None,
    port: int,
    host: str,
    open_browser: bool,
    jobs: int | None,
    project: str | None,
    since: str | None,
    until: str | None,
    poll: bool,
    quiet: bool,
    highlight_chars: int | None,
    redactor: Redactor | None,
) -> None:
    """Serve a live archive of ROOT (default: pi's sessions folder) on localhost.

    Builds the site, keeps it current as pi writes, and serves it read-only. Open pages
    update in place when their session changes.
    """
    from ..page.render import RenderOptions
    from ..read.discover import default_sessions_root
    from ..site.job import SiteJob
    from ..site.live import default_serve_folder, serve

    root = root if root is not None else default_sessions_root()
    out = output_folder(out if out is not None else default_serve_folder(root))
    _usable_root(root, redactor)
    options = colour(RenderOptions(live=True), highlight_chars)
    job = SiteJob(
        root, out, options, jobs, project=project, since=since, until=until, redactor=redactor
    )
    _live(
        functools.partial(serve, job, host, port, quiet=quiet, poll=poll, open_browser=open_browser)
    )


@click.command("search")
@click.argument("query")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "--site",
    "site",
    type=click.Path(path_type=Path),
    help="Search a built site's index instead of a sessions folder.",
)
@format_option("text", "json", help="path:line: id: snippet per match, or JSON.")
@click.option(
    "--limit",
    type=click.IntRange(0),
    default=50,
    show_default=True,
    help="At most this many matches (0: all).",
)
@many_sessions(
    since="Only entries on or after this day (after: in the query)",
    until="Only entries on or before this day (before: the day after)",
)
@search_fields_option("What to search in a sessions folder (as for site).")
@redact_options
def search_command(
    query: str,
    root: Path | None,
    site: Path | None,
    fmt: str,
    limit: int,
    project: str | None,
    since: str | None,
    until: str | None,
    search_fields: frozenset[str] | None,
    redactor: Redactor | None = None,
) -> None:
    """Search sessions with the search page's query language; print path:line: id: snippet.

    ROOT is a sessions folder (default: pi's). Words, "a phrase", -word, and filters
    project:, model:, role:, tool:, label:, after:DATE, before:DATE, is:error (--project
    takes part of a path: the project: filter). Exit 1 when nothing matches.
    """
    from ..read.discover import default_sessions_root
    from ..search.local import find
    from ..search.query import choose, parse

    q = parse(query)
    for problem in q.errors:
        say(f"piexport: {problem}")
    folder = root if root is not None else default_sessions_root()
    if site is None:
        _usable_root(folder, redactor)
    try:
        choose(q, project, since, until)
        if q.empty:
            raise UsageProblem("nothing to search for: give words or filters")
        found = find(
            q, root=folder, site=site, limit=limit, fields=search_fields, redactor=redactor
        )
    except PiexportError as exc:
        raise failure(exc) from exc
    _print_found(found, q, fmt, redactor)
    if not found.hits:
        if site is None:
            _nothing_found(folder.expanduser(), redactor)
        say("piexport: no matches")
        raise RunFailed()


def _print_found(found: Found, q: Query, fmt: str, redactor: Redactor | None) -> None:
    """Search results as lines for people or JSON, through the gate; the files that could
    not be read on stderr."""
    for problem in found.problems:
        say(said(f"piexport: {problem}", redactor))
    derive = derive_for(redactor)
    if fmt == "json":
        shown = found.as_json(q, derive if redactor is not None else None)
        emit(Printed.json(shown), Gate(redactor), "search")
        return
    if not found.complete and found.hits:
        say("piexport: no entry has every word; entries with some of them:")
    lines = found.lines(q, lambda s: click.style(s, bold=True), derive)
    if lines:
        emit(Printed("\n".join(lines), "lines"), Gate(redactor), "search")


USAGE_BY = ("day", "week", "month", "block", "project", "model", "session", "tool", "kind")
"""``report.usage.BY``, written here so that start-up does not load the report (a test
holds them equal)."""


@click.command("usage")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "--by",
    type=click.Choice(list(USAGE_BY)),
    default="day",
    show_default=True,
    help="One row per day, ISO week, month, 5-hour block (as ccusage counts them), project "
    "(cwd), provider/model, session, tool, or kind of usage (turns, cache warming, "
    "summaries, a tool's own model work).",
)
@click.option(
    "--breakdown",
    is_flag=True,
    help="With --by day, week, month or block: each row's models under it.",
)
@many_sessions(
    since="Only messages on or after this day", until="Only messages on or before this day"
)
@click.option("--tz", "tz_name", metavar="ZONE", help="Days in this IANA zone (default: UTC).")
@format_option("text", "json", "csv", help="An aligned table (also: table), or JSON/CSV.")
@redact_options
def usage_command(
    root: Path | None,
    by: str,
    breakdown: bool,
    project: str | None,
    since: str | None,
    until: str | None,
    tz_name: str | None,
    fmt: str,
    redactor: Redactor | None = None,
) -> None:
    """Tokens, cost, messages and tool calls of every session, by period, project, model or tool."""
    from ..export.outputs import usage_output
    from ..report.usage import format_notes, usage_of

    where = _root(root, redactor)
    choice = {"since": since, "until": until, "project": project}
    try:
        usage, problems = usage_of(where, by, tz_name=tz_name, breakdown=breakdown, **choice)
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc
    width = terminal_width()
    emit(usage_output(usage, fmt, derive_for(redactor), width), Gate(redactor), "usage")
    if fmt == "text":
        estimates = usage.total.figures.known_estimate is not None
        click.echo(format_notes(usage.by, estimates, width, breakdown))
    _read_problems(problems, redactor)
    if not usage.total.sessions and not problems:
        _nothing_found(where, redactor)
    if problems:
        raise RunFailed(
            f"{len(problems)} session file(s) could not be read; the figures leave them out"
        )


@click.command("list")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@many_sessions()
@format_option("text", "json", help="A table for people (also: table), or JSON.")
@redact_options
def list_command(
    root: Path | None,
    project: str | None,
    since: str | None,
    until: str | None,
    fmt: str,
    redactor: Redactor | None = None,
) -> None:
    """List the sessions under ROOT (default: pi's sessions folder), oldest first: start,
    id, size, cost, title and file. An id's first characters, or --latest, stand for a
    FILE in the commands over one session."""
    from ..export.outputs import listing_output
    from ..report.listing import list_sessions

    where = _root(root, redactor)
    try:
        listing = list_sessions(where, project=project, since=since, until=until)
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc
    printed = listing_output(listing, fmt, derive_for(redactor), terminal_width())
    emit(printed, Gate(redactor), "list")
    _read_problems(listing.problems, redactor)
    if not listing.rows and not listing.problems:
        _nothing_found(where, redactor)
    if listing.problems:
        raise RunFailed(f"{len(listing.problems)} session file(s) could not be read")


def _root(root: Path | None, redactor: Redactor | None) -> Path:
    """ROOT, or pi's sessions folder: usable (see :func:`_usable_root`), ``~`` expanded."""
    from ..read.discover import default_sessions_root

    where = (root if root is not None else default_sessions_root()).expanduser()
    _usable_root(where, redactor)
    return where


def _read_problems(problems: list[str], redactor: Redactor | None) -> None:
    for problem in problems:
        say(said(problem, redactor))


def _usable_root(root: Path, redactor: Redactor | None) -> None:
    """ROOT missing, or given as one file that cannot be read or holds no pi session:
    unusable input (exit 2), as for the commands over one session; in a folder, such a
    file is one failed session among the others (exit 1)."""
    root = root.expanduser()
    if not root.exists():
        hint = "pass the sessions folder, e.g. ~/.pi/agent/sessions"
        raise UsageProblem(said(f"{root}: no such folder ({hint})", redactor))
    if root.is_file():
        usable_session_file(root, redactor)


def _nothing_found(root: Path, redactor: Redactor | None) -> None:
    """One line on stderr saying where the walk looked, when it found no session file."""
    from ..read.discover import find_sessions

    if root.is_dir():
        found = find_sessions(root)
        if not found.files:
            say(said(f"piexport: {found.nothing_found()}", redactor))


COMMANDS = (site_command, serve_command, search_command, usage_command, list_command)

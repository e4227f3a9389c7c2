"""The ``piexport`` command: a thin layer that wires options to the library."""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from .errors import InputError, PiexportError
from .output import write_atomic
from .read.context import build_session_context
from .read.jsonutil import output_json
from .read.loader import load_session
from .read.model import Session
from .read.selection import Selection, SelectionError, sharing_notice
from .report.outline import render_tree_text
from .report.summary import FAIL_CONDITIONS, failures, summary_json, summary_markdown
from .search.records import FIELDS
from .text.cut import PLAIN, Derive
from .text.textsafe import terminal_safe
from .version import __version__

if TYPE_CHECKING:  # the renderer and the redaction rules load only for commands using them
    from .page.render import RenderOptions
    from .redact.engine import Redactor

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

EXIT_OK, EXIT_WARNINGS, EXIT_UNUSABLE = 0, 1, 2


class Failure(click.ClickException):
    """Unusable input: a one-line error, exit 2, never a traceback."""

    exit_code = EXIT_UNUSABLE


class Failed(click.ClickException):
    """Something failed or --strict saw warnings: a one-line error, exit 1."""

    exit_code = EXIT_WARNINGS


def _load(path: str, redactor: Redactor | None = None) -> Session:
    """The session in ``path`` (``-``: stdin); a file that cannot be read is a one-line
    error (its path redacted with ``redactor``, as everything the command prints)."""
    try:
        if path == "-":
            return load_session(sys.stdin.buffer, name="<stdin>")
        return load_session(Path(path))
    except InputError as exc:
        raise Failure(_said(str(exc), redactor)) from exc
    except PiexportError as exc:
        raise Failed(_said(str(exc), redactor)) from exc


def _said(text: str, redactor: Redactor | None) -> str:
    """A message as the command prints it: one line for a terminal, redacted when asked."""
    shown = terminal_safe(text)
    return shown if redactor is None else redactor.redact_text(shown, count=False)


def _shown(session: Session, redactor: Redactor | None) -> tuple[Session, dict[str, int]]:
    """The session as a command shows it (redacted with ``redactor``), and the secrets
    replaced per rule; its ``derive`` makes every text made from it."""
    if redactor is None:
        return session, {}
    from .redact.session import redact_session

    before = Counter(redactor.counts)
    shown = redact_session(session, redactor)
    return shown, dict(redactor.counts - before)


def _lines(lines: Iterable[str], session: Session) -> str:
    """Lines for a terminal: control characters out, and each line read again as one
    text with the session's ``derive`` (what removing them joined, a composed line)."""
    return "".join(session.derive(terminal_safe(line)) + "\n" for line in lines)


def _emit(
    text: str,
    redactor: Redactor | None,
    where: str,
    session: Session | None = None,
    *,
    kind: str = "text",
    nl: bool = True,
) -> None:
    """Print an output: when redacting, only once the gate has read it as its reader reads
    it (``kind``: ``"markdown"``, ``"json"``, ``"csv"``, ``"text"`` for a terminal); a
    refusal prints nothing, names the rules and exits 1."""
    if redactor is not None:
        from .redact.gate import gate
        from .redact.rules import RedactionError

        try:
            gate(text, redactor, where, session=session, kind=kind)
        except RedactionError as exc:
            raise Failed(str(exc)) from exc
    click.echo(text, nl=nl)


def _report(session: Session, strict: bool, quiet: bool = False) -> None:
    """Diagnostics to stderr; with --strict, any warning makes the run fail (exit 1)."""
    if not quiet:
        for d in session.diagnostics:
            click.echo(session.derive(terminal_safe(str(d))), err=True)
    warnings = [d for d in session.diagnostics if d.level != "info"]
    if strict and warnings:
        raise Failed(f"{session.path}: {len(warnings)} warning(s) and --strict")


F = TypeVar("F", bound=Callable[..., Any])


def _options_into(
    name: str, options: list[Callable[[Any], Any]], build: Callable[[dict[str, Any]], Any]
) -> Callable[[F], F]:
    """Add click options to a command and hand it one argument built from their values."""

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def command(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = build(kwargs)
            return f(*args, **kwargs)

        wrapped: Any = command
        for option in reversed(options):
            wrapped = option(wrapped)
        return cast(F, wrapped)

    return decorate


def _pop_redactor(values: dict[str, Any]) -> Redactor | None:
    return _redactor(
        values.pop("redact"),
        values.pop("redact_patterns"),
        values.pop("redact_config"),
        values.pop("allow"),
    )


def _pop_selection(values: dict[str, Any]) -> Selection | None:
    return _selection(
        values.pop("branch"),
        values.pop("no_thinking"),
        values.pop("no_tool_output"),
        values.pop("no_images"),
        values.pop("leaf_id", None),
        values.pop("only_context", False),
    )


def _colour(options: RenderOptions, highlight_chars: int | None) -> RenderOptions:
    """``options`` with the colouring budget --highlight-chars gave, if it did."""
    if highlight_chars is None:
        return options
    return dataclasses.replace(options, highlight_chars=highlight_chars)


highlight_option = click.option(
    "--highlight-chars",
    type=click.IntRange(0),
    metavar="N",
    default=None,
    help="Colour at most N characters of code per page (default 400000, about a second; "
    "0: none). Colouring is most of the time a page takes to make.",
)


redact_options = _options_into(
    "redactor",
    [
        click.option(
            "--redact",
            is_flag=True,
            help="Replace secrets (API keys, tokens, passwords, private keys, credentials "
            "in URLs) with [REDACTED:rule:hash] before rendering, and refuse to write a "
            "page the rules still match.",
        ),
        click.option(
            "--redact-pattern",
            "redact_patterns",
            metavar="REGEX",
            multiple=True,
            help="Also redact what this regex matches (repeatable; implies --redact; a "
            "group named 'secret' limits it to that group).",
        ),
        click.option(
            "--redact-config",
            type=click.Path(dir_okay=False, exists=True, path_type=Path),
            help="TOML file with [[patterns]] (name, regex), allow = [...] and key = "
            "'...' (implies --redact).",
        ),
        click.option(
            "--allow",
            "allow",
            metavar="STRING",
            multiple=True,
            help="Never redact this exact string (repeatable).",
        ),
    ],
    _pop_redactor,
)
"""--redact and the options that shape it (every command that prints or writes session
text): the command gets ``redactor``."""


def selection_options(*, per_session: bool) -> Callable[[F], F]:
    """--branch, --no-thinking, --no-tool-output, --no-images (and --leaf, --only-context):
    the command gets ``selection``."""
    options = [
        click.option(
            "--branch",
            type=click.Choice(["all", "current"]),
            default="all",
            show_default=True,
            help="Every branch, or only the path to the leaf.",
        ),
        click.option("--no-thinking", is_flag=True, help="Leave out the model's thinking."),
        click.option(
            "--no-tool-output", is_flag=True, help="Keep tool calls, leave out their output."
        ),
        click.option("--no-images", is_flag=True, help="Leave out images (a marker stays)."),
    ]
    if per_session:
        options += [
            click.option(
                "--leaf", "leaf_id", metavar="ID", help="The branch ending at this entry."
            ),
            click.option(
                "--only-context",
                is_flag=True,
                help="Only what the model saw on the current branch (pi's context).",
            ),
        ]

    return _options_into("selection", options, _pop_selection)


def _redactor(
    redact: bool, patterns: tuple[str, ...], config: Path | None, allow: tuple[str, ...]
) -> Redactor | None:
    """The Redactor the options ask for, or None; a bad pattern is a usage error (exit 2)."""
    if not (redact or patterns or config):
        return None
    from .redact.config import load_redact_config
    from .redact.engine import Redactor
    from .redact.rules import RedactionError

    named = [("custom", p) for p in patterns]
    allowed, key = list(allow), ""
    try:
        if config is not None:
            extra, more_allowed, key = load_redact_config(config)
            named += extra
            allowed += more_allowed
        return Redactor.create(named, allowed, key)
    except RedactionError as exc:
        raise click.UsageError(str(exc)) from exc


def _selection(
    branch: str,
    no_thinking: bool,
    no_tool_output: bool,
    no_images: bool,
    leaf_id: str | None = None,
    only_context: bool = False,
) -> Selection | None:
    selection = Selection(
        branch="current" if branch == "current" else "all",
        leaf=leaf_id,
        no_thinking=no_thinking,
        no_tool_output=no_tool_output,
        only_context=only_context,
        no_images=no_images,
    )
    return None if selection.is_default else selection


def _derive(redactor: Redactor | None) -> Derive:
    """What makes the text a command prints from several sessions (a redacted session
    carries its own: ``session.derive``)."""
    return PLAIN if redactor is None else Derive(redactor)


def _derived(value: Any, derive: Derive) -> Any:
    """Every string in a JSON value made with ``derive``."""
    if isinstance(value, str):
        return derive(value)
    if isinstance(value, list):
        return [_derived(v, derive) for v in value]
    if isinstance(value, dict):
        return {k: _derived(v, derive) for k, v in value.items()}
    return value


def _redaction_line(redactor: Redactor | None, counts: Mapping[str, int]) -> None:
    if redactor is not None:
        from .redact.engine import redaction_report

        click.echo(redaction_report(counts), err=True)


session_file = click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
strict_option = click.option("--strict", is_flag=True, help="Exit 1 when the file had warnings.")


def format_option(*choices: str, help: str | None = None) -> Callable[[F], F]:
    """``--format`` as every command spells it: the first choice is the default."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=choices[0],
        show_default=True,
        help=help,
    )


@click.group(context_settings=CONTEXT_SETTINGS, invoke_without_command=True)
@click.version_option(__version__, "-V", "--version", prog_name="piexport")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Turn pi coding-agent session files into self-contained HTML you can share and keep."""
    if ctx.invoked_subcommand is None:
        from .read.discover import default_sessions_root, discover

        click.echo(ctx.get_help())
        root = default_sessions_root()
        count = len(discover(root)) if root.is_dir() else 0
        if count:
            click.echo(
                f"\nFound {count} pi sessions in {root}.\n"
                f"Run `piexport site` to archive them all into ./piexport-site/."
            )


@cli.command("context")
@session_file
@click.option("--leaf", "leaf_id", metavar="ID", help="Build the context for this leaf.")
@redact_options
@strict_option
def context_command(
    file: str, leaf_id: str | None, redactor: Redactor | None, strict: bool
) -> None:
    """Print what the model saw (pi's buildSessionContext) as JSON."""
    session, redacted = _shown(_load(file, redactor), redactor)
    if leaf_id is not None and leaf_id not in session.by_id:
        raise Failure(f"{session.path}: no entry with id {leaf_id!r}")
    _emit(
        output_json(build_session_context(session, leaf_id)),
        redactor,
        "context",
        session,
        kind="json",
    )
    _redaction_line(redactor, redacted)
    _report(session, strict)


TREE_IDS_WIDTH = 100
"""A terminal at least this wide shows entry ids in ``tree`` unless told otherwise."""


@cli.command("tree")
@session_file
@click.option(
    "--ids/--no-ids",
    default=None,
    help="Show each entry's id (default: when the terminal is at least 100 columns wide, "
    "or output is not a terminal).",
)
@redact_options
@strict_option
def tree_command(file: str, ids: bool | None, redactor: Redactor | None, strict: bool) -> None:
    """Print the entry tree the way pi's /tree shows it (• marks the current path); on a
    terminal, lines are cut to its width."""
    import shutil

    session, redacted = _shown(_load(file, redactor), redactor)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    if ids is None:
        ids = width is None or width >= TREE_IDS_WIDTH
    text = render_tree_text(session, ids=ids, width=width)
    _emit(text, redactor, "tree", session, nl=False)
    _redaction_line(redactor, redacted)
    _report(session, strict)


@cli.command("info")
@session_file
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON.")
@redact_options
@strict_option
def info_command(file: str, as_json: bool, redactor: Redactor | None, strict: bool) -> None:
    """Print the header, name, counts by entry type and role, leaves, labels and problems."""
    session, redacted = _shown(_load(file, redactor), redactor)
    facts = session_facts(session)
    if as_json:
        _emit(output_json(facts), redactor, "info", session, kind="json")
    else:
        lines = []
        for key, value in facts.items():
            if isinstance(value, dict):
                shown = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
            elif isinstance(value, list):
                shown = ", ".join(str(v) for v in value) or "-"
            else:
                shown = "-" if value is None else str(value)
            lines.append(f"{key + ':':<14}{shown}")
        _emit(_lines(lines, session), redactor, "info", session, nl=False)
    _redaction_line(redactor, redacted)
    _report(session, strict, quiet=as_json is False)


page_timeout_option = click.option(
    "--page-timeout",
    "page_timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help="Past this, a page is written as plain text (default: 60 s + 4 s per MB of session).",
)


@cli.command("site")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
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
@click.option("--project", metavar="PATTERN", help="Only projects whose cwd matches this glob.")
@click.option("--since", metavar="DATE", help="Only sessions active on or after DATE.")
@click.option("--until", metavar="DATE", help="Only sessions started on or before DATE.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors.")
@click.option(
    "--search-fields",
    metavar="LIST",
    callback=lambda _c, _p, v: _search_fields(v),
    help="What search indexes, comma-separated (default: all): "
    + ", ".join(FIELDS)
    + ". Prefix with - to leave out, e.g. -output,-thinking.",
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
def site_command(
    root: Path | None,
    out: Path,
    jobs: int | None,
    force: bool,
    project: str | None,
    since: str | None,
    until: str | None,
    quiet: bool,
    search_fields: frozenset[str] | None,
    no_search: bool,
    page_timeout: float | None,
    redactor: Redactor | None,
    selection: Selection | None,
    strict: bool,
    highlight_chars: int | None = None,
    watch: bool = False,
    poll: bool = False,
) -> None:
    """Archive every session under ROOT (default: pi's sessions folder) as a static site.

    Writes one page per session, an index per project and one over all projects, and
    search.html, which searches every session from the folder (no server needed). Pages of
    unchanged sessions are kept; pages of deleted sessions are removed.
    """
    from .export.pipeline import RenderOptions
    from .read.discover import default_sessions_root
    from .site.build import build_site

    root = root if root is not None else default_sessions_root()
    options = _colour(RenderOptions(), highlight_chars)
    if watch:
        _watch_and_serve(
            root,
            out,
            quiet=quiet,
            poll=poll,
            options=options,
            jobs=jobs,
            force=force,
            project=project,
            since=since,
            until=until,
            redactor=redactor,
            selection=selection,
            page_seconds=page_timeout,
            search_fields=search_fields,
            search=not no_search,
        )
        return
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if quiet or not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label="rendering", file=sys.stderr)
            bar.__enter__()
        bar.update(1)
        if done == total:
            bar.__exit__(None, None, None)

    try:
        report = build_site(
            root,
            out,
            options=options,
            jobs=jobs,
            force=force,
            project=project,
            since=since,
            until=until,
            progress=progress,
            redactor=redactor,
            selection=selection,
            page_seconds=page_timeout,
            search_fields=search_fields,
            search=not no_search,
        )
    except InputError as exc:
        raise Failure(str(exc)) from exc
    except PiexportError as exc:
        raise Failed(str(exc)) from exc
    for _rel, error in report.failed:
        click.echo(terminal_safe(f"failed: {error}"), err=True)
    if not quiet:
        for warning in report.warnings:
            click.echo(terminal_safe(warning), err=True)
        click.echo(report.summary_line(), err=True)
    _redaction_line(redactor, report.redacted)
    if report.failed:
        raise SystemExit(1)
    if strict and report.warnings:
        raise Failed(f"{len(report.warnings)} warning(s) and --strict")


def _search_fields(value: str | None) -> frozenset[str] | None:
    if not value:
        return None
    names = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [n for n in names if n.lstrip("-") not in FIELDS]
    if unknown:
        msg = f"unknown field(s) {', '.join(unknown)}; choose from {', '.join(FIELDS)}"
        raise click.BadParameter(msg)
    if all(n.startswith("-") for n in names):
        return frozenset(FIELDS) - {n[1:] for n in names}
    if any(n.startswith("-") for n in names):
        raise click.BadParameter("list fields to keep, or fields to leave out with -, not both")
    return frozenset(names)


@cli.command("search")
@click.argument("query")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "--site",
    "site",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
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
@click.option(
    "--search-fields",
    metavar="LIST",
    callback=lambda _c, _p, v: _search_fields(v),
    help="What to search in a sessions folder (as for site).",
)
@redact_options
def search_command(
    query: str,
    root: Path | None,
    site: Path | None,
    fmt: str,
    limit: int,
    search_fields: frozenset[str] | None,
    redactor: Redactor | None = None,
) -> None:
    """Search sessions with the search page's query language; print path:line: id: snippet.

    ROOT is a sessions folder (default: pi's). Words, "a phrase", -word, and filters
    project:, model:, role:, tool:, label:, after:DATE, before:DATE, is:error. Exit 1 when
    nothing matches.
    """
    from .read.discover import default_sessions_root
    from .search.local import run_search
    from .search.query import parse as parse_query
    from .search.query import snippet_line

    q = parse_query(query)
    for problem in q.errors:
        click.echo(f"piexport: {problem}", err=True)
    if q.empty:
        raise Failure("nothing to search for: give words or filters")
    if site is not None:
        if not (site / "search" / "meta.js").is_file():
            raise Failure(f"{site}: no search index (build it with piexport site)")
        try:
            groups, complete = run_search(q, site=site, limit=limit)
        except InputError as exc:
            raise Failure(terminal_safe(str(exc))) from exc
    else:
        root = root if root is not None else default_sessions_root()
        if not root.exists():
            raise Failure(f"{root}: no such folder")
        problems: list[str] = []
        groups, complete = run_search(
            q, root=root, fields=search_fields, problems=problems, redactor=redactor
        )
        for problem in problems:
            click.echo(_said(f"piexport: {problem}", redactor), err=True)
    hits = [h for g in groups for h in g]
    if limit:
        hits = hits[:limit]
    derive = _derive(redactor)
    if fmt == "json":
        matches = [h.as_json(q) for h in hits]
        if redactor is not None:  # a snippet is a cut, a path a session's file name
            matches = [{k: _derived(v, derive) for k, v in m.items()} for m in matches]
        _emit(
            output_json({"complete": complete, "matches": matches}), redactor, "search", kind="json"
        )
    else:
        if not complete and hits:
            click.echo("piexport: no entry has every word; entries with some of them:", err=True)
        lines = []
        for h in hits:
            line = snippet_line(
                h.text, q, 160, lambda s: click.style(terminal_safe(s), bold=True), terminal_safe
            )
            lines.append(derive(terminal_safe(f"{h.path}:{h.line}: {h.entry_id}: ") + line))
        if lines:
            _emit("\n".join(lines), redactor, "search")
    if not hits:
        click.echo("piexport: no matches", err=True)
        raise SystemExit(1)


@cli.command("render")
@session_file
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="File to write (default: the session's name with .html/.md/.json, here; - for stdout).",
)
@format_option(
    "html",
    "md",
    "json",
    help="A page, the conversation as Markdown, or the model as JSON.",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in a browser afterwards.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1),
    default=None,
    help="Processes that render a big page together (default: all cores; same page).",
)
@page_timeout_option
@highlight_option
@redact_options
@selection_options(per_session=True)
@strict_option
def render_command(
    file: str,
    out: Path | None,
    fmt: str,
    open_page: bool,
    jobs: int | None,
    page_timeout: float | None,
    highlight_chars: int | None,
    redactor: Redactor | None,
    selection: Selection | None,
    strict: bool,
) -> None:
    """Write one self-contained HTML page for one session (FILE may be - for stdin).

    To share a page safely, add --redact and choose what it shows (--branch current,
    --no-thinking, --no-tool-output, --no-images, --only-context); the page says which."""
    from .export.pipeline import RenderOptions, check_output, export_session, share_session
    from .page.render import render_session
    from .redact.rules import RedactionError
    from .report.formats import session_json, session_markdown

    if out is None:
        out = Path(("session" if file == "-" else Path(file).stem) + "." + fmt)
    # pages written side by side: a fork links to its parent's page by file name
    options = _colour(RenderOptions(link_parent_by_name=True, workers=jobs or 0), highlight_chars)
    if fmt == "html" and str(out) != "-":
        source: Any = sys.stdin.buffer if file == "-" else Path(file)
        try:
            result = export_session(
                source,
                out,
                options,
                name="<stdin>" if file == "-" else None,
                redactor=redactor,
                selection=selection,
                seconds=page_timeout,
            )
        except (InputError, SelectionError) as exc:
            raise Failure(str(exc)) from exc
        except PiexportError as exc:
            raise Failed(str(exc)) from exc
        session, redacted = result.session, result.redacted
    else:
        try:
            session, redacted = share_session(_load(file, redactor), redactor, selection)
        except SelectionError as exc:
            raise Failure(str(exc)) from exc
        if fmt == "html":
            notice = sharing_notice(selection, redacted if redactor is not None else None)
            text = render_session(session, options, sharing=notice)
        else:
            text = session_markdown(session) if fmt == "md" else session_json(session)
        if redactor is not None:
            try:
                kind = {"json": "json", "md": "markdown"}.get(fmt, "html")
                check_output(text, redactor, out, session=session, kind=kind)
            except RedactionError as exc:
                raise Failed(str(exc)) from exc
        if str(out) == "-":
            sys.stdout.write(text)
        else:
            try:
                write_atomic(out, text)
            except PiexportError as exc:
                raise Failed(str(exc)) from exc
    _redaction_line(redactor, redacted)
    if str(out) != "-":
        click.echo(f"wrote {out}", err=True)
    if open_page and str(out) != "-":
        click.launch(str(out.resolve()))
    _report(session, strict)


@cli.command("summary")
@session_file
@format_option("markdown", "json", help="Markdown for a CI job page, or the stable JSON figures.")
@click.option("--leaf", "leaf_id", metavar="ID", help="Summarise the path to this leaf.")
@click.option("--link", metavar="URL", help="Link to the HTML page, shown in the Markdown.")
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(list(FAIL_CONDITIONS)),
    help="Exit 1 when the current path shows this (repeatable).",
)
@redact_options
@strict_option
def summary_command(
    file: str,
    fmt: str,
    leaf_id: str | None,
    link: str | None,
    fail_on: tuple[str, ...],
    redactor: Redactor | None,
    strict: bool,
) -> None:
    """Print a run's summary for CI: Markdown for the job page, or JSON figures."""
    session, redacted = _shown(_load(file, redactor), redactor)
    if leaf_id is not None and leaf_id not in session.by_id:
        raise Failure(f"{session.path}: no entry with id {leaf_id!r}")
    if fmt == "json":
        _emit(
            output_json(summary_json(session, leaf_id)), redactor, "summary", session, kind="json"
        )
    else:
        text = summary_markdown(session, leaf_id, link)
        _emit(text, redactor, "summary", session, kind="markdown")
    _redaction_line(redactor, redacted)
    _report(session, strict)
    found = failures(session, fail_on, leaf_id)
    if found:
        raise Failed(f"{session.path}: the session shows {', '.join(found)} (--fail-on)")


def _print_report(
    file: str,
    strict: bool,
    as_json: Callable[[Session], Any] | None,
    as_lines: Callable[[Session], Iterable[str]],
    redactor: Redactor | None,
    what: str,
) -> None:
    """Load one session (redacted with ``redactor``) and print a report of it: its JSON
    when ``as_json`` is given, else its lines made safe for a terminal; then the file's
    problems. Through the gate when redacting."""
    session, redacted = _shown(_load(file, redactor), redactor)
    if as_json is not None:
        _emit(output_json(as_json(session)), redactor, what, session, kind="json")
    else:
        _emit(_lines(as_lines(session), session), redactor, what, session, nl=False)
    _redaction_line(redactor, redacted)
    _report(session, strict)


# ---- branches and compare (issue 17)


@cli.command("branches")
@session_file
@format_option("text", "json", help="A block per leaf, or the stable JSON.")
@redact_options
@strict_option
def branches_command(file: str, fmt: str, redactor: Redactor | None, strict: bool) -> None:
    """Print every branch (leaf) with its figures from where it forks off the current one."""
    from .report.branches import branches_json, branches_text

    _print_report(
        file,
        strict,
        branches_json if fmt == "json" else None,
        lambda s: branches_text(s).rstrip("\n").split("\n"),
        redactor,
        "branches",
    )


@cli.command("compare")
@session_file
@click.argument("leaf_a", metavar="LEAF_A")
@click.argument("leaf_b", metavar="LEAF_B")
@format_option("md", "json", help="Markdown for a pull request or CI report, or the stable JSON.")
@redact_options
@strict_option
def compare_command(
    file: str, leaf_a: str, leaf_b: str, fmt: str, redactor: Redactor | None, strict: bool
) -> None:
    """Compare two branches (leaf ids or labels): turns aligned, figures, files, diffs."""
    from .report.branches import find_leaf
    from .report.compare import compare, compare_markdown

    loaded = _load(file, redactor)
    found = []
    for wanted in (leaf_a, leaf_b):
        leaf = find_leaf(loaded, wanted)  # a label as the user wrote it, before redaction
        if leaf is None:
            raise Failure(_said(f"{loaded.path}: no entry with id or label {wanted!r}", redactor))
        found.append(leaf)
    session, redacted = _shown(loaded, redactor)
    result = compare(session, found[0], found[1])
    if fmt == "json":
        _emit(output_json(result.as_json()), redactor, "compare", session, kind="json")
    else:
        _emit(
            compare_markdown(session, result),
            redactor,
            "compare",
            session,
            kind="markdown",
            nl=False,
        )
    _redaction_line(redactor, redacted)
    _report(session, strict)


def session_facts(session: Session) -> dict[str, Any]:
    """The facts ``piexport info`` shows, in display order."""
    header = session.header
    types = Counter(e.type for e in session.entries)
    roles = Counter(e.role or "?" for e in session.entries if e.type == "message")
    return {
        "file": session.path,
        "id": header.id if header else None,
        "version": header.version if header else None,
        "cwd": header.cwd if header else None,
        "started": header.timestamp if header else None,
        "forkedFrom": header.parent_session if header else None,
        "name": session.name,
        "entries": len(session.entries),
        "types": dict(types.most_common()),
        "roles": dict(roles.most_common()),
        "leaf": session.tree.leaf_id,
        "leaves": session.tree.leaves,
        "branchPoints": session.tree.branch_points,
        "labels": [session.derive(f"{k}={v}") for k, v in session.labels.items()],
        "diagnostics": [session.derive(str(d)) for d in session.diagnostics],
    }


# ---- live: site --watch and serve


def default_serve_folder(root: Path) -> Path:
    """Where ``serve`` keeps its site when not told: a cache folder per sessions folder."""
    import hashlib
    import os

    cache = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    resolved = str(root.expanduser().resolve())
    digest = hashlib.sha1(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return Path(cache) / "piexport" / "serve" / digest


def _watch_and_serve(
    root: Path,
    out: Path,
    *,
    quiet: bool,
    poll: bool,
    server: Any = None,
    open_browser: bool = False,
    **build_options: Any,
) -> None:
    """Build, then watch until Ctrl+C. The first Ctrl+C lets the build under way finish (so
    the site is whole) and stops; a second one stops at once."""
    import signal
    import threading

    from .site.watch import WatchState, watch_site

    stop = threading.Event()
    state = WatchState()

    def on_sigint(signum: int, frame: Any) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        if state.building:
            click.echo("stopping once this build is written (Ctrl+C again: at once)", err=True)

    def on_build(report: Any) -> None:
        for _rel, error in report.failed:
            click.echo(terminal_safe(f"failed: {error}"), err=True)
        if not quiet:
            for warning in report.warnings:
                click.echo(terminal_safe(warning), err=True)
            if report.rendered or report.removed or report.failed or state.builds == 1:
                click.echo(report.summary_line(), err=True)
        if state.builds == 1:
            if server is not None:
                click.echo(f"serving {out} at {server.url()} (Ctrl+C stops)", err=True)
                if open_browser:
                    import webbrowser

                    webbrowser.open(server.url())
            elif not quiet:
                click.echo(f"watching {root} (Ctrl+C stops)", err=True)

    def on_error(exc: Exception) -> None:  # a later build's: the watch goes on
        click.echo(terminal_safe(f"build failed: {exc}"), err=True)

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        watch_site(
            root,
            out,
            stop=stop,
            on_build=on_build,
            on_error=on_error,
            state=state,
            force_polling=True if poll else None,
            **build_options,
        )
    except KeyboardInterrupt:
        click.echo("stopped", err=True)
        raise SystemExit(130) from None
    except Exception as exc:  # the first build: a missing folder is unusable input (2)
        raise (Failure if isinstance(exc, InputError) else Failed)(str(exc)) from exc
    finally:
        signal.signal(signal.SIGINT, previous)
        if server is not None:
            server.shutdown()
            server.server_close()
    if not quiet:
        click.echo("stopped; the site is complete", err=True)


@cli.command("serve")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Folder for the site (default: a cache folder per ROOT).",
)
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. Anything but localhost shows your sessions to the network.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the archive in a browser.")
@click.option("-j", "--jobs", type=click.IntRange(1), default=None, help="Worker processes.")
@click.option("--project", metavar="PATTERN", help="Only projects whose cwd matches this glob.")
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
    poll: bool,
    quiet: bool,
    highlight_chars: int | None,
    redactor: Redactor | None,
) -> None:
    """Serve a live archive of ROOT (default: pi's sessions folder) on localhost.

    Builds the site, keeps it current as pi writes, and serves it read-only. Open pages
    update in place when their session changes.
    """
    from .export.pipeline import RenderOptions
    from .read.discover import default_sessions_root
    from .site.serve import start_server

    root = root if root is not None else default_sessions_root()
    out = out if out is not None else default_serve_folder(root)
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(
            f"warning: listening on {host}: anyone who can reach this address can read "
            "your sessions (no password, no TLS)",
            err=True,
        )
    out.mkdir(parents=True, exist_ok=True)
    try:
        server = start_server(out, "127.0.0.1" if host == "localhost" else host, port)
    except OSError as exc:
        raise Failure(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    _watch_and_serve(
        root,
        out,
        quiet=quiet,
        poll=poll,
        server=server,
        open_browser=open_browser,
        options=_colour(RenderOptions(live=True), highlight_chars),
        jobs=jobs,
        project=project,
        redactor=redactor,
    )


def main() -> None:
    """Entry point of the console script and ``python -m piexport``."""
    cli(prog_name="piexport")


# --- piexport share / piexport shares (issue 19) -------------------------------------------


def _interactive() -> bool:
    """Whether a person can answer a question (tests replace this)."""
    return sys.stdin.isatty()


def _share_redaction(f: F) -> F:
    """``--no-redact`` for share, where --redact is the default: the command gets a Redactor
    unless --no-redact (then None), built by redact_options from the same options."""

    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        no_redact = kwargs.pop("no_redact")
        if no_redact and (kwargs["redact"] or kwargs["redact_patterns"] or kwargs["redact_config"]):
            raise click.UsageError(
                "--no-redact cannot be combined with --redact, --redact-pattern or --redact-config"
            )
        kwargs["redact"] = not no_redact
        return f(*args, **kwargs)

    option = click.option(
        "--no-redact",
        is_flag=True,
        help="Upload the page without redaction (asks first on a terminal).",
    )
    return cast(F, option(command))


def _share_failure(exc: PiexportError) -> click.ClickException:
    return Failure(str(exc)) if isinstance(exc, (InputError, SelectionError)) else Failed(str(exc))


@cli.command("share")
@click.argument(
    "file", required=False, type=click.Path(dir_okay=False, exists=True, path_type=Path)
)
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
@_share_redaction
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
    from .share.log import ShareLog
    from .share.publish import revoke, share

    log = ShareLog.default()
    if revoke_ids or revoke_session is not None:
        if file is not None:
            raise click.UsageError("give FILE to share, or --revoke/--revoke-session, not both")
        try:
            done, notes = revoke(log, revoke_ids, revoke_session)
        except PiexportError as exc:
            raise Failed(str(exc)) from exc
        finally:
            for problem in log.problems:
                click.echo(terminal_safe(problem), err=True)
        for note in notes:
            click.echo(terminal_safe(note), err=True)
        for r in done:
            gone = " (GitHub no longer had it)" if r.already_gone else ""
            click.echo(terminal_safe(f"revoked {r.record.gist_id} {r.record.url}{gone}"))
        return
    if file is None:
        raise click.UsageError("missing FILE (or --revoke ID / --revoke-session FILE)")
    if viewer is not None and "{id}" not in viewer:
        raise click.UsageError(f"--viewer {viewer!r}: the URL needs {{id}} for the gist id")
    if redactor is None:
        if _interactive():
            click.confirm(
                "Share the page WITHOUT redaction? Any secret in the session is uploaded",
                abort=True,
            )
        else:
            click.echo("warning: --no-redact: the page is uploaded without redaction", err=True)
    try:
        result = share(
            file,
            log,
            redactor=redactor,
            selection=selection,
            description=description,
            viewer=viewer,
            seconds=page_timeout,
        )
    except PiexportError as exc:
        raise _share_failure(exc) from exc
    record = result.record
    _redaction_line(redactor, record.secrets)
    click.echo(terminal_safe(record.url))
    if record.viewer_url:
        click.echo(terminal_safe(record.viewer_url))
    click.echo(
        f"recorded in {log.path}; take it back with: piexport share --revoke {record.gist_id}",
        err=True,
    )
    _report(result.session, strict=False)


@cli.command("shares")
@format_option("table", "json", help="A table, or every record as JSON.")
def shares_command(fmt: str) -> None:
    """List the pages `piexport share` uploaded, oldest first, and which were revoked."""
    from .share.log import ShareLog

    log = ShareLog.default()
    try:
        records = log.records()
    except PiexportError as exc:
        raise Failed(str(exc)) from exc
    for problem in log.problems:
        click.echo(terminal_safe(problem), err=True)
    if fmt == "json":
        click.echo(output_json([r.as_json() for r in records]))
        return
    if not records:
        click.echo(f"no shares recorded in {log.path}", err=True)
        return
    rows: list[tuple[str, ...]] = [("SHARED", "GIST", "STATUS", "SECRETS", "SESSION", "URL")]
    for r in records:
        status = f"revoked {r.revoked_at}" if r.revoked_at else "live"
        secrets = str(sum(r.secrets.values())) if r.redacted else "off"
        cells = (r.shared_at, r.gist_id, status, secrets, Path(r.session).name, r.url)
        rows.append(tuple(terminal_safe(cell) for cell in cells))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        padded = [cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)]
        click.echo("  ".join([*padded, row[-1]]))


@cli.command("usage")
@click.argument("root", required=False, type=click.Path(path_type=Path))
@click.option(
    "--by",
    type=click.Choice(["day", "week", "month", "project", "model", "session", "tool", "kind"]),
    default="day",
    show_default=True,
    help="One row per day, ISO week, month, project (cwd), provider/model, session, tool, or "
    "kind of usage (turns, cache warming, summaries, a tool's own model work).",
)
@click.option("--since", metavar="DATE", help="Only messages on or after this day (YYYY-MM-DD).")
@click.option("--until", metavar="DATE", help="Only messages on or before this day (YYYY-MM-DD).")
@click.option("--project", metavar="GLOB", help="Only projects whose cwd matches this glob.")
@click.option("--tz", "tz_name", metavar="ZONE", help="Days in this IANA zone (default: UTC).")
@format_option("table", "json", "csv", help="An aligned table, or JSON/CSV for scripts.")
@redact_options
def usage_command(
    root: Path | None,
    by: str,
    since: str | None,
    until: str | None,
    project: str | None,
    tz_name: str | None,
    fmt: str,
    redactor: Redactor | None = None,
) -> None:
    """Tokens, cost, messages and tool calls of every session, by period, project, model or tool."""
    from .read.discover import default_sessions_root, discover
    from .report.usage import (
        format_csv,
        format_notes,
        format_table,
        load_sessions,
        parse_day,
        usage_report,
        zone,
    )

    where = (root or default_sessions_root()).expanduser()
    try:
        tz, first, last = zone(tz_name), parse_day(since), parse_day(until)
        if not where.exists():
            raise InputError(f"{where}: no such file or folder")
        problems: list[str] = []
        report = usage_report(
            load_sessions(discover(where), problems),
            by,
            tz=tz,
            since=first,
            until=last,
            project=project,
        )
    except InputError as exc:
        raise Failure(_said(str(exc), redactor)) from exc
    derive = _derive(redactor)
    for row in report.rows:  # a cwd, a model, a tool: the only session text a row holds
        row.key = derive(row.key)
    if fmt == "json":
        _emit(output_json(report.as_json()), redactor, "usage", kind="json")
    elif fmt == "csv":
        _emit(format_csv(report), redactor, "usage", kind="csv", nl=False)
    else:  # a key cut on the left to fit: each line is read again
        table = format_table(report, terminal_safe)
        _emit("\n".join(derive(line) for line in table.split("\n")), redactor, "usage")
        click.echo(format_notes(report.by, report.total.figures.known_estimate is not None))
    for p in problems:
        click.echo(_said(p, redactor), err=True)
    if problems:
        raise Failed(
            f"{len(problems)} session file(s) could not be read; the figures leave them out"
        )


@cli.command("files")
@session_file
@format_option("text", "json", help="A list for people, or JSON with every change.")
@redact_options
@strict_option
def files_command(file: str, fmt: str, redactor: Redactor | None, strict: bool) -> None:
    """Every file the session read, edited or wrote, on every branch (current one first)."""
    from .report.files import files_json, files_text

    _print_report(
        file,
        strict,
        files_json if fmt == "json" else None,
        lambda s: files_text(s).splitlines(),
        redactor,
        "files",
    )

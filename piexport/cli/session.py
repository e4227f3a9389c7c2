"""Commands over one session file: ``render`` (a page, Markdown, JSON), ``summary`` (for CI)
and the printed reports ``context``, ``tree``, ``info``, ``branches``, ``compare``, ``files``.
Each maps its options to one call into ``export.outputs``; ``printing`` prints the result."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import PiexportError
from ..export.shown import shown
from ..read.selection import Selection
from ..report.summary import FAIL_CONDITIONS, failures
from .errors import RunFailed, failure
from .options import (
    colour,
    format_option,
    highlight_option,
    page_timeout_option,
    redact_options,
    selection_options,
    session_argument,
    session_file,
    strict_option,
)
from .printing import (
    load,
    open_in_browser,
    output_file,
    print_session,
    print_shown,
    progress_bar,
    redaction_line,
    report,
    said,
    say,
    source,
)

if TYPE_CHECKING:
    from ..redact.engine import Redactor


@click.command("render")
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(allow_dash=True, path_type=Path),
    help="File to write, or a folder to write it in (default: the session's name with "
    ".html/.md/.json, here; - for stdout).",
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
@session_file
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
    from ..export.outputs import export_output
    from ..page.render import RenderOptions

    target = _render_target(file, out, fmt)
    # pages written side by side: a fork links to its parent's page by file name; the
    # transcript's groups of entries, counted as they are rendered, on a terminal
    bar = progress_bar("rendering")
    options = RenderOptions(link_parent_by_name=True, workers=jobs or 0, progress=bar)
    stream, name = source(file)
    export = functools.partial(
        export_output, name=name, redactor=redactor, selection=selection, seconds=page_timeout
    )
    try:
        result = export(stream, target, fmt, colour(options, highlight_chars))
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc
    if result.text is not None:
        sys.stdout.write(result.text)
    redaction_line(redactor, result.redacted)
    if target is not None:
        say(f"wrote {target}")
        if open_page:
            open_in_browser(target)
    report(result.session, strict)


def _render_target(file: str, out: Path | None, fmt: str) -> Path | None:
    """The file ``render`` writes (None: stdout, ``-o -``): ``-o`` as given, or the page
    inside it when it is a folder, else the session's name with the format's extension,
    here. A path under a file is one line, exit 2."""
    default = ("session" if file == "-" else Path(file).stem) + "." + fmt
    out = Path(default) if out is None else out
    return None if str(out) == "-" else output_file(out, default)


@click.command("summary")
@format_option("md", "json", help="Markdown for a CI job page, or the stable JSON figures.")
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
@session_file
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
    from ..export.outputs import summary_output

    make = functools.partial(summary_output, fmt=fmt, leaf_id=leaf_id, link=link)
    session = print_session(file, redactor, strict, "summary", make)
    found = failures(session, fail_on, leaf_id)
    if found:
        raise RunFailed(f"{session.path}: the session shows {', '.join(found)} (--fail-on)")


@click.command("context")
@click.option("--leaf", "leaf_id", metavar="ID", help="Build the context for this leaf.")
@format_option("json", help="JSON (the only format: accepted for the shared vocabulary).")
@redact_options
@strict_option
@session_file
def context_command(
    file: str, leaf_id: str | None, fmt: str, redactor: Redactor | None, strict: bool
) -> None:
    """Print what the model saw (pi's buildSessionContext) as JSON."""
    from ..export.outputs import context_output

    print_session(file, redactor, strict, "context", lambda s: context_output(s, leaf_id))


@click.command("tree")
@click.option(
    "--ids/--no-ids",
    default=None,
    help="Show each entry's id (default: when the terminal is at least 100 columns wide, "
    "or output is not a terminal).",
)
@format_option("text", "json", help="The tree as pi shows it, or its structure as JSON.")
@redact_options
@strict_option
@session_file
def tree_command(
    file: str, ids: bool | None, fmt: str, redactor: Redactor | None, strict: bool
) -> None:
    """Print the entry tree the way pi's /tree shows it (• marks the current path); on a
    terminal, lines are cut to its width."""
    import shutil

    from ..export.outputs import tree_output

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    make = functools.partial(tree_output, ids=ids, width=width, fmt=fmt)
    print_session(file, redactor, strict, "tree", make)


@click.command("info")
@format_option("text", "json", help="Lines for people, or the facts as JSON.")
@click.option("--json", "as_json", is_flag=True, help="Deprecated: --format json.")
@redact_options
@strict_option
@session_file
def info_command(
    file: str, fmt: str, as_json: bool, redactor: Redactor | None, strict: bool
) -> None:
    """Print the header, name, counts by entry type and role, leaves, labels and problems."""
    from ..export.outputs import info_output

    if as_json:
        say("piexport: info --json is deprecated and goes in a later release; use --format json")
        fmt = "json"
    make = functools.partial(info_output, as_json=fmt == "json")
    print_session(file, redactor, strict, "info", make, quiet=fmt != "json")


@click.command("branches")
@format_option("text", "json", help="A block per leaf, or the stable JSON.")
@redact_options
@strict_option
@session_file
def branches_command(file: str, fmt: str, redactor: Redactor | None, strict: bool) -> None:
    """Print every branch (leaf) with its figures from where it forks off the current one."""
    from ..export.outputs import branches_output

    print_session(file, redactor, strict, "branches", lambda s: branches_output(s, fmt))


@click.command("compare")
@format_option("md", "json", help="Markdown for a pull request or CI report, or the stable JSON.")
@redact_options
@strict_option
@session_argument("leaf_a", "leaf_b")
def compare_command(
    file: str, leaf_a: str, leaf_b: str, fmt: str, redactor: Redactor | None, strict: bool
) -> None:
    """Compare two branches (leaf ids or labels): turns aligned, figures, files, diffs."""
    from ..export.outputs import compare_output, find_leaves

    loaded = load(file, redactor, redact=False)
    try:  # labels as the user wrote them, before redaction
        a, b = find_leaves(loaded.session, (leaf_a, leaf_b))
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc
    make = functools.partial(compare_output, leaf_a=a, leaf_b=b, fmt=fmt)
    print_shown(shown(loaded.session, redactor), redactor, strict, "compare", make)


@click.command("files")
@format_option("text", "json", help="A list for people, or JSON with every change.")
@redact_options
@strict_option
@session_file
def files_command(file: str, fmt: str, redactor: Redactor | None, strict: bool) -> None:
    """Every file the session read, edited or wrote, on every branch (current one first)."""
    from ..export.outputs import files_output

    print_session(file, redactor, strict, "files", lambda s: files_output(s, fmt))


COMMANDS = (
    render_command,
    summary_command,
    context_command,
    tree_command,
    info_command,
    branches_command,
    compare_command,
    files_command,
)

"""What the commands print, and how: a session loaded as shown, an output printed through
the gate, the secrets replaced, the file's problems. Messages for a terminal are made safe
(and redacted when the command redacts) here."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from ..errors import PiexportError
from ..export.gate import Gate
from ..export.outputs import Printed
from ..export.shown import Shown, load_shown
from ..read.model import Session
from ..read.selection import SelectionError
from ..text.cut import PLAIN, Derive
from ..text.textsafe import terminal_safe
from .errors import RunFailed, UsageProblem, failure

if TYPE_CHECKING:
    from ..redact.engine import Redactor


def say(line: str) -> None:
    """A line for the person running the command (stderr): progress, notes, problems."""
    click.echo(line, err=True)


def terminal_width() -> int:
    """The width tables are made for: ``COLUMNS`` when set, else the terminal's, else 80
    (a pipe)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def progress_bar(label: str, at_least: int = 0) -> Callable[[int, int], None]:
    """A progress bar on stderr as counted work is done (``progress(done, total)``), when
    stderr is a terminal and there are at least ``at_least`` parts of work; nothing in a
    pipe or a CI log. Only what the bar shows depends on time (its ETA), never the work."""
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if total < at_least or not sys.stderr.isatty():
            return
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=sys.stderr)
            bar.__enter__()
        bar.update(done - bar.pos)
        if done >= total:
            bar.__exit__(None, None, None)

    return progress


def open_in_browser(page: Path) -> None:
    """Open a written page in the user's browser, as ``serve --open`` does."""
    import webbrowser

    webbrowser.open(page.resolve().as_uri())


def said(text: str, redactor: Redactor | None) -> str:
    """A message as the command prints it: one line for a terminal, redacted when asked."""
    shown = terminal_safe(text)
    return shown if redactor is None else redactor.redact_text(shown, count=False)


def source(path: str) -> tuple[Path | IO[bytes], str | None]:
    """The file a command reads (``-``: stdin) and the name it goes by."""
    return (sys.stdin.buffer, "<stdin>") if path == "-" else (Path(path), None)


def session_path(arg: str | None, redactor: Redactor | None) -> str:
    """The file a command over one session reads: ``arg`` as given when it is a path (or
    ``-``), else the session in pi's sessions folder whose id starts with it; None: the
    latest session (``--latest``). None found, or several: one line naming them (exit 2)."""
    import os

    from ..read.discover import default_sessions_root
    from ..read.lookup import by_id, latest, looks_like_path

    if arg is not None and (looks_like_path(arg) or Path(arg).exists()):
        return arg
    root, here = default_sessions_root(), os.getcwd()
    try:
        found = latest(root, here) if arg is None else by_id(root, arg, here)
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc
    if arg is None:
        say(said(f"piexport: the latest session: {found}", redactor))
    return str(found)


def usable_session_file(path: Path, redactor: Redactor | None) -> None:
    """A file given where a session is wanted that cannot be read or holds no pi session:
    one line naming it (exit 2), before any work is done with it."""
    from ..read.loader import check_session_file

    try:
        check_session_file(path)
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc


def output_file(out: Path, name: str) -> Path:
    """The file ``-o`` names: ``out`` itself, or ``name`` inside it when it is a folder.
    A path that cannot be a file (under a regular file, or a file where a folder is needed)
    is unusable input: one line naming it (exit 2)."""
    if out.is_dir():
        return out / name
    _usable_parent(out)
    return out


def output_folder(out: Path) -> Path:
    """The folder ``-o`` names, made if it is not there; one that cannot be (a file, or
    under one, or not ours to write) is unusable input: one line naming it (exit 2)."""
    if out.exists() and not out.is_dir():
        raise UsageProblem(f"{out}: is a file, not a folder (give a folder for the output)")
    _usable_parent(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageProblem(f"{out}: cannot make the folder: {exc.strerror or exc}") from exc
    return out


def _usable_parent(out: Path) -> None:
    """Raise when a folder above ``out`` is a file (nothing can be written under it)."""
    for parent in out.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageProblem(f"{out}: cannot write there: {parent} is a file, not a folder")
            return


def load(path: str, redactor: Redactor | None = None, *, redact: bool = True) -> Shown:
    """The session in ``path`` (``-``: stdin) as shown: redacted with ``redactor`` unless
    ``redact`` is False. A file that cannot be read is a one-line error (its path redacted,
    as everything the command prints)."""
    stream, name = source(path)
    try:
        return load_shown(stream, redactor if redact else None, name=name)
    except PiexportError as exc:
        raise failure(exc, said(str(exc), redactor)) from exc


def emit(printed: Printed, gate: Gate, where: str, session: Session | None = None) -> None:
    """Print an output once the gate has read it as its reader reads it; a refusal prints
    nothing, names the rules and exits 1."""
    try:
        gate.check(printed.text, where, printed.kind, session)
    except PiexportError as exc:  # RedactionError
        raise RunFailed(str(exc)) from exc
    click.echo(printed.text, nl=printed.nl)


def print_session(
    file: str,
    redactor: Redactor | None,
    strict: bool,
    what: str,
    make: Callable[[Session], Printed],
    *,
    quiet: bool = False,
) -> Session:
    """Load one session (redacted with ``redactor``) and print the output ``make`` makes of
    it (see :func:`print_shown`); returns the session as shown."""
    return print_shown(load(file, redactor), redactor, strict, what, make, quiet=quiet)


def print_shown(
    shown: Shown,
    redactor: Redactor | None,
    strict: bool,
    what: str,
    make: Callable[[Session], Printed],
    *,
    quiet: bool = False,
) -> Session:
    """Print the output ``make`` makes of a session as shown, through the gate (``what``
    names it in a refusal); then the secrets replaced and the file's problems (``quiet``:
    not them; ``strict``: a warning fails the run)."""
    session = shown.session
    try:
        printed = make(session)
    except SelectionError as exc:  # a leaf it does not have
        raise failure(exc) from exc
    emit(printed, Gate(redactor), what, session)
    redaction_line(redactor, shown.redacted)
    report(session, strict, quiet)
    return session


def report(session: Session, strict: bool, quiet: bool = False) -> None:
    """Diagnostics to stderr; with --strict, any warning makes the run fail (exit 1)."""
    if not quiet:
        for d in session.diagnostics:
            say(session.derive(terminal_safe(str(d))))
    warnings = [d for d in session.diagnostics if d.level != "info"]
    if strict and warnings:
        raise RunFailed(f"{session.path}: {len(warnings)} warning(s) and --strict")


def redaction_line(redactor: Redactor | None, counts: Mapping[str, int]) -> None:
    """When redacting, the secrets replaced per rule (stderr)."""
    if redactor is not None:
        from ..redact.engine import redaction_report

        say(redaction_report(counts))


def derive_for(redactor: Redactor | None) -> Derive:
    """What makes the text a command prints from several sessions (a redacted session
    carries its own: ``session.derive``)."""
    return PLAIN if redactor is None else Derive(redactor)

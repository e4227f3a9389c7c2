"""Every output of one session besides a page written by :func:`pipeline.export_session`:
Markdown and JSON (``render --format md|json``), a page for stdout, the CI summary and the
printed reports (``context``, ``tree``, ``info``, ``branches``, ``files``, ``compare``);
and the usage of many (``usage``).

Each is made from the session as shown (:mod:`.shown`: loaded, selected, redacted) and is
read by the :class:`~.gate.Gate` as its reader reads it (its ``kind``) before it is written
or printed. Importing this module loads no renderer: each output loads what it needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..read.jsonutil import output_json
from ..read.model import Session
from ..read.selection import Selection, SelectionError, sharing_notice
from ..text.textsafe import terminal_safe
from .gate import Gate
from .shown import load_shown

if TYPE_CHECKING:
    from ..page.render import RenderOptions
    from ..redact.engine import Redactor
    from ..report.listing import Listing
    from ..report.usage import UsageReport
    from ..text.cut import Derive

__all__ = [
    "FORMAT_KINDS",
    "TREE_IDS_WIDTH",
    "Exported",
    "Printed",
    "branches_output",
    "compare_output",
    "context_output",
    "export_output",
    "files_output",
    "find_leaves",
    "info_output",
    "listing_output",
    "session_text",
    "summary_output",
    "tree_output",
    "usage_output",
]


@dataclass(frozen=True, slots=True)
class Printed:
    """An output for a terminal or a pipe: its text, how the gate reads it (``kind``:
    ``"json"``, ``"markdown"``, ``"csv"``, ``"text"``) and whether a newline is printed
    after it."""

    text: str
    kind: str = "text"
    nl: bool = True

    @classmethod
    def json(cls, value: Any) -> Printed:
        return cls(output_json(value), "json")

    @classmethod
    def lines(cls, lines: Iterable[str], session: Session) -> Printed:
        """Lines for a terminal: control characters out, and each line read again as one
        text with the session's ``derive`` (what removing them joined, a composed line)."""
        return cls(
            "".join(session.derive(terminal_safe(line)) + "\n" for line in lines), "lines", nl=False
        )


FORMAT_KINDS = {"html": "html", "md": "markdown", "json": "json"}
"""How the gate reads each format of ``render``."""


def session_text(
    session: Session, fmt: str, options: RenderOptions | None = None, sharing: Sequence[str] = ()
) -> Printed:
    """A session as one text: its page (``"html"``, made in memory: for stdout), the
    conversation as Markdown (``"md"``) or the model as JSON (``"json"``)."""
    if fmt == "html":
        from ..page.render import render_session

        text = render_session(session, options, sharing=sharing)
    elif fmt == "md":
        from ..report.formats import session_markdown

        text = session_markdown(session)
    else:
        from ..report.formats import session_json

        text = session_json(session)
    return Printed(text, FORMAT_KINDS[fmt], nl=False)


@dataclass(frozen=True, slots=True)
class Exported:
    """What :func:`export_output` made: the session as shown (with its diagnostics), the
    secrets replaced per rule, and the text when it goes to stdout."""

    session: Session
    redacted: dict[str, int] = field(default_factory=dict)
    text: str | None = None
    """The output, when no file was given (else None: it is written)."""


def export_output(
    source: Path | IO[bytes],
    out: Path | None,
    fmt: str = "html",
    options: RenderOptions | None = None,
    *,
    name: str | None = None,
    redactor: Redactor | None = None,
    selection: Selection | None = None,
    seconds: float | None = None,
) -> Exported:
    """One session file (or a stream, called ``name``) as a page, Markdown or JSON (``fmt``,
    see :data:`FORMAT_KINDS`), selected and redacted as asked, through the gate: written
    atomically to ``out``, or returned (``out`` None: for stdout).

    A page for a file is :func:`pipeline.export_session`'s (streamed, checked as written,
    its plain fallback after ``seconds``). Raises ``InputError`` (no usable entries),
    ``SelectionError`` (an unknown leaf), ``RedactionError`` (the gate refused: nothing
    written) or ``OutputError``."""
    if fmt == "html" and out is not None:
        from .pipeline import export_session

        page = export_session(
            source,
            out,
            options,
            name=name,
            redactor=redactor,
            selection=selection,
            seconds=seconds,
        )
        return Exported(page.session, page.redacted)
    shown = load_shown(source, redactor, selection, name=name)
    notice = sharing_notice(selection, shown.redacted if redactor is not None else None)
    printed = session_text(shown.session, fmt, options, notice)
    where = out if out is not None else Path("-")
    Gate(redactor).check(printed.text, where, printed.kind, shown.session)
    if out is None:
        return Exported(shown.session, shown.redacted, printed.text)
    from ..output import write_atomic

    write_atomic(out, printed.text)
    return Exported(shown.session, shown.redacted)


def _leaf(session: Session, leaf_id: str | None) -> None:
    if leaf_id is not None and leaf_id not in session.by_id:
        raise SelectionError(f"{session.path}: no entry with id {leaf_id!r}")


def context_output(session: Session, leaf_id: str | None = None) -> Printed:
    """What the model saw (pi's buildSessionContext) as JSON; ``SelectionError`` for a
    leaf the session does not have."""
    from ..read.context import build_session_context

    _leaf(session, leaf_id)
    return Printed.json(build_session_context(session, leaf_id))


def summary_output(
    session: Session, fmt: str, leaf_id: str | None = None, link: str | None = None
) -> Printed:
    """A run's summary for CI: Markdown for a job page (``link``: to its HTML page), or the
    stable JSON figures (``fmt`` ``"json"``); ``SelectionError`` for an unknown leaf."""
    from ..report.summary import summary_json, summary_markdown

    _leaf(session, leaf_id)
    if fmt == "json":
        return Printed.json(summary_json(session, leaf_id))
    return Printed(summary_markdown(session, leaf_id, link), "markdown")


TREE_IDS_WIDTH = 100
"""A terminal at least this wide shows entry ids in ``tree`` unless told otherwise."""


def tree_output(
    session: Session, ids: bool | None = None, width: int | None = None, fmt: str = "text"
) -> Printed:
    """The entry tree as pi's /tree shows it, lines cut to ``width`` (a terminal's; None:
    not a terminal). Ids are shown when asked, or by default when there is room. ``fmt``
    ``"json"``: its structure (``render --format json``'s ``tree``, with the labels)."""
    from ..report.outline import render_tree_text

    if fmt == "json":
        tree = session.tree
        return Printed.json(
            {
                "roots": tree.roots,
                "leaf": tree.leaf_id,
                "path": tree.path,
                "leaves": tree.leaves,
                "parent": tree.parent,
                "labels": session.labels,
            }
        )

    if ids is None:
        ids = width is None or width >= TREE_IDS_WIDTH
    return Printed(render_tree_text(session, ids=ids, width=width), nl=False)


def info_output(session: Session, as_json: bool = False) -> Printed:
    """The facts of a session file (``report.facts``) as lines, or as JSON."""
    from ..report.facts import fact_lines, session_facts

    facts = session_facts(session)
    return Printed.json(facts) if as_json else Printed.lines(fact_lines(facts), session)


def branches_output(session: Session, fmt: str = "text") -> Printed:
    """Every branch with its figures, as a block per leaf or as JSON."""
    from ..report.branches import branches_json, branches_text

    if fmt == "json":
        return Printed.json(branches_json(session))
    return Printed.lines(branches_text(session).rstrip("\n").split("\n"), session)


def files_output(session: Session, fmt: str = "text") -> Printed:
    """Every file the session read, edited or wrote, as a list or as JSON."""
    from ..report.files import files_json, files_text

    if fmt == "json":
        return Printed.json(files_json(session))
    return Printed.lines(files_text(session).splitlines(), session)


def find_leaves(session: Session, wanted: Sequence[str]) -> list[str]:
    """The leaves named by id or label (as the user wrote them: look them up before the
    session is redacted); ``SelectionError`` for one the session does not have."""
    from ..report.branches import find_leaf

    found = []
    for name in wanted:
        leaf = find_leaf(session, name)
        if leaf is None:
            raise SelectionError(f"{session.path}: no entry with id or label {name!r}")
        found.append(leaf)
    return found


def compare_output(session: Session, leaf_a: str, leaf_b: str, fmt: str = "md") -> Printed:
    """Two branches compared (turns aligned, figures, files, diffs) as Markdown or JSON."""
    from ..report.compare import compare, compare_markdown

    result = compare(session, leaf_a, leaf_b)
    if fmt == "json":
        return Printed.json(result.as_json())
    return Printed(compare_markdown(session, result), "markdown", nl=False)


def usage_output(
    report: UsageReport, fmt: str, derive: Derive, width: int | None = None
) -> Printed:
    """Usage as an aligned table (``"text"``, ``width`` cells wide), JSON or CSV. A row's
    key (a cwd, a model, a tool: the only session text a row holds) is made with
    ``derive``, and so is each line of the table (a key cut to fit)."""
    from ..report.usage import format_csv, format_table

    for row in report.rows:
        row.key = derive(row.key)
        for sub in row.breakdown or ():
            sub.key = derive(sub.key)
    if fmt == "json":
        return Printed.json(report.as_json())
    if fmt == "csv":
        return Printed(format_csv(report), "csv", nl=False)
    table = format_table(report, terminal_safe, width)
    return Printed("\n".join(derive(line) for line in table.split("\n")), "lines")


def listing_output(listing: Listing, fmt: str, derive: Derive, width: int = 80) -> Printed:
    """The sessions under a folder as a table ``width`` cells wide (``"text"``) or JSON.
    What a row holds of a session (its title, id and file names) is made with ``derive``,
    and so is each line of the table (a title cut to fit)."""
    from ..report.listing import format_listing

    for row in listing.rows:
        row.title, row.id, row.file = derive(row.title), derive(row.id), derive(row.file)
        row.project = derive(row.project)
    if fmt == "json":
        return Printed.json(listing.as_json())
    table = format_listing(listing, terminal_safe, width)
    return Printed("\n".join(derive(line) for line in table.split("\n")), "lines")

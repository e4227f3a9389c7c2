"""The sessions under a folder, one row each (``piexport list``): when each started, its
id (whose first characters stand for its file in the commands over one session), size,
cost, title and file. Figures are ``stats``' over the whole file, as the site's index shows
them."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from ..read.dates import date_ms
from ..read.discover import discover
from ..read.figures import iso_time
from ..read.model import JSON, Session
from ..text.columns import cells, cut_end, cut_start, pad_end
from ..text.numbers import money, size
from .stats import compute_figures
from .summary import session_span
from .usage import load_sessions, local_day_time, project_of

__all__ = ["ListedSession", "Listing", "format_listing", "list_sessions"]


@dataclass(slots=True)
class ListedSession:
    file: str
    """The file's path as found under the root."""
    id: str
    title: str
    project: str
    started: int | None
    last: int | None
    bytes: int
    messages: int
    cost: float | None
    cost_estimated: float | None

    def as_json(self) -> JSON:
        return {
            "file": self.file,
            "id": self.id,
            "title": self.title,
            "project": self.project,
            "started": iso_time(self.started),
            "lastActivity": iso_time(self.last),
            "bytes": self.bytes,
            "messages": self.messages,
            "cost": self.cost,
            "costEstimated": self.cost_estimated,
        }


@dataclass(slots=True)
class Listing:
    root: Path
    rows: list[ListedSession] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Files that could not be read (left out)."""

    def as_json(self) -> JSON:
        return {"root": str(self.root), "sessions": [r.as_json() for r in self.rows]}


def _row(session: Session) -> ListedSession:
    figures = compute_figures(session.entries, estimate=True)
    span = session_span(session, figures)
    path = Path(session.path)
    try:
        bytes_ = path.stat().st_size
    except OSError:
        bytes_ = 0
    sid = session.id or path.stem.rsplit("_", 1)[-1]
    return ListedSession(
        file=session.path,
        id=str(sid),
        title=session.title or "(no messages)",
        project=project_of(session),
        started=span.start,
        last=span.end,
        bytes=bytes_,
        messages=figures.message_count,
        cost=figures.known_cost,
        cost_estimated=figures.known_estimate,
    )


def list_sessions(
    root: Path,
    *,
    project: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> Listing:
    """Every session under ``root`` (a folder or one file) the choice keeps, oldest first:
    ``project`` a glob over its cwd (or its folder's name), ``since`` a day (UTC) or time
    it was active on or after, ``until`` one it started on or before. ``InputError`` for
    a date that is none."""
    first, last = date_ms(since), date_ms(until, end=True)
    for text, ms in ((since, first), (until, last)):
        if text and ms is None:
            raise InputError(f"not a date: {text!r} (use YYYY-MM-DD or an ISO time)")
    listing = Listing(root)
    for session in load_sessions(discover(root), listing.problems):
        row = _row(session)
        folder = Path(session.path).parent.name
        if project and not (
            fnmatch.fnmatch(row.project, project) or fnmatch.fnmatch(folder, project)
        ):
            continue
        if first is not None and (row.last is None or row.last < first):
            continue
        if last is not None and (row.started is None or row.started > last):
            continue
        listing.rows.append(row)
    listing.rows.sort(key=lambda r: (r.started is None, r.started or 0, r.file))
    return listing


HEAD = ("Started", "Id", "Size", "Cost", "Title", "File")
ID_CHARS = 8
"""An id is shown by its first characters: what ``render <id prefix>`` takes."""


def format_listing(listing: Listing, safe: Callable[[str], str] = str, width: int = 80) -> str:
    """A table ``width`` terminal cells wide: the start, id, size and cost whole; the title
    (cut at its end) and the file (cut at its start: its name is what tells it apart,
    shown relative to the root) share the rest."""
    rows = []
    for r in listing.rows:
        file = Path(r.file)
        try:
            shown = file.relative_to(listing.root).as_posix() if file != listing.root else file.name
        except ValueError:
            shown = r.file
        cost = money(r.cost) if r.cost is not None or r.cost_estimated is None else None
        cost = cost or f"~{money(r.cost_estimated)}"
        rows.append(
            [
                local_day_time(r.started),
                safe(r.id[:ID_CHARS]),
                size(r.bytes),
                cost,
                safe(r.title),
                safe(shown),
            ]
        )
    fixed = [max(len(h), *(cells(row[i]) for row in rows)) for i, h in enumerate(HEAD[:4])]
    room = max(20, width - sum(fixed) - len(HEAD) + 1)
    title_need = max([len(HEAD[4]), *(cells(row[4]) for row in rows)])
    file_need = max([len(HEAD[5]), *(cells(row[5]) for row in rows)])
    # the file takes what it needs up to half the room (more when titles are short)
    file_w = max(8, min(file_need, max(room // 2, room - title_need - 1)))
    title_w = max(10, min(title_need, room - file_w - 1))

    def line(row: list[str] | tuple[str, ...]) -> str:
        left = [pad_end(row[0], fixed[0]), pad_end(row[1], fixed[1])]
        nums = [row[2].rjust(fixed[2]), row[3].rjust(fixed[3])]
        text = [pad_end(cut_end(row[4], title_w), title_w), cut_start(row[5], file_w)]
        return " ".join([*left, *nums, *text]).rstrip()

    lines = [line(HEAD), "-" * min(width, sum(fixed) + title_w + file_w + len(HEAD) - 1)]
    lines += [line(row) for row in rows]
    return "\n".join(lines)

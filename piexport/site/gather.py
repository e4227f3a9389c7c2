"""Gather: the session files under the root that make up the site, each with its project and
page, from the first line of each file only (no session is loaded to list a folder)."""

from __future__ import annotations

import fnmatch
import hashlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from ..errors import InputError
from ..read.dates import date_ms
from ..read.discover import find_sessions
from ..read.model import JSON
from ..read.tree import timestamp_ms
from .gated import shown
from .names import page_name, project_key
from .records import Gathered, SiteSession

if TYPE_CHECKING:
    from ..redact.engine import Redactor

__all__ = ["Choice", "gather", "parse_date"]


@dataclass(frozen=True, slots=True)
class Choice:
    """Which sessions make up the site (``--project``, ``--since``, ``--until``)."""

    project: str | None = None
    """A glob over the project's cwd (or its sessions' folder name)."""
    since_ms: int | None = None
    """Only sessions whose file was written on or after this."""
    until_ms: int | None = None
    """Only sessions started on or before this."""

    @property
    def filtered(self) -> bool:
        """Whether the choice leaves any session out."""
        return bool(self.project) or self.since_ms is not None or self.until_ms is not None

    def would_choose(self, source: str, summary: JSON, mtime_ns: int) -> bool | None:
        """Whether a session whose file is gone was one the choice keeps, from what the
        manifest remembers of it (its path as shown, its row, its file's time); None when
        that cannot be told (its row was not kept)."""
        folder = Path(source).parent.name
        cwd = summary.get("cwd") if isinstance(summary.get("cwd"), str) else None
        if self.project and not fnmatch.fnmatch(folder, self.project):
            if cwd is None:
                return None
            if not fnmatch.fnmatch(cwd, self.project):
                return False
        if self.until_ms is not None:
            if "headerTime" not in summary:
                return None
            start = summary["headerTime"]
            if isinstance(start, int) and start > self.until_ms:
                return False
        return not (self.since_ms is not None and mtime_ns // 1_000_000 < self.since_ms)


def gather(
    root: Path, choice: Choice, redactor: Redactor | None, skip: tuple[Path, ...] = ()
) -> Gathered:
    """The sessions under ``root`` the choice keeps, each named as the site shows it: file
    and folder names can hold secrets too, so every name the site writes is redacted. The
    folders in ``skip`` (the site's own) are not looked into."""
    sessions: list[SiteSession] = []
    places: dict[str, str] = {}
    found = find_sessions(root, skip)
    left_out: set[str] = set()
    for source in found.files:
        header = _read_header(source)
        cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
        if cwd is not None and redactor is not None:  # the folder name is made from it
            cwd = redactor.redact_text(cwd, count=False)
        rel = shown(
            source.relative_to(root).as_posix() if source != root else source.name, redactor
        )
        if not _chosen(source, header, cwd, choice):
            left_out.add(rel)
            continue
        folder = shown(source.parent.name, redactor)
        key = project_key(cwd, folder)
        places.setdefault(key, cwd or folder)
        page = f"{key}/{page_name(Path(shown(source.name, redactor)))}"
        sessions.append(SiteSession(source, rel, page, header))
    _dedupe_pages(sessions)
    return Gathered(sessions, places, left_out, None if found.files else found.nothing_found())


def _chosen(source: Path, header: JSON, cwd: str | None, choice: Choice) -> bool:
    project = choice.project
    if (
        project
        and not fnmatch.fnmatch(cwd or source.parent.name, project)
        and not fnmatch.fnmatch(source.parent.name, project)
    ):
        return False
    stat = source.stat()
    start = timestamp_ms(header.get("timestamp"))
    if choice.until_ms is not None and start is not None and start > choice.until_ms:
        return False
    return not (choice.since_ms is not None and stat.st_mtime_ns // 1_000_000 < choice.since_ms)


def _read_header(path: Path) -> JSON:
    """The first line only: enough to group and filter without loading the session."""
    try:
        with path.open("rb") as f:
            line = f.readline(1 << 20)
        obj = orjson.loads(line.lstrip(b"\xef\xbb\xbf").strip())
        return obj if isinstance(obj, dict) and obj.get("type") == "session" else {}
    except (OSError, orjson.JSONDecodeError):
        return {}


def parse_date(text: str | None, end: bool = False) -> int | None:
    """``--since``/``--until``: a day (``end``: its last millisecond) or an ISO timestamp."""
    if not text:
        return None
    ms = date_ms(text, end)
    if ms is None:
        msg = f"not a date: {text!r} (use YYYY-MM-DD or an ISO timestamp)"
        raise InputError(msg)
    return ms


def _dedupe_pages(sessions: list[SiteSession]) -> None:
    """Two files that slug alike in one project get distinct pages."""
    seen: set[str] = set()
    for i, s in enumerate(sessions):
        page = s.page
        if page in seen:
            digest = hashlib.sha1(s.rel.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            page = page[: -len(".html")] + f"-{digest}.html"
            sessions[i] = replace(s, page=page)
        seen.add(page)

"""The records a site build passes from step to step (gather → plan → render → prune →
index), and the report it returns."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..read.lineage import Link
from ..read.model import JSON

if TYPE_CHECKING:  # the page layer loads in the workers, not to list a folder
    from ..page.render import RenderOptions, SiteNav
    from ..page.view import ChildRef
    from ..read.selection import Selection
    from ..redact.engine import Redactor

__all__ = [
    "BuildSettings",
    "Fork",
    "Gathered",
    "ParentLink",
    "SiteMap",
    "SiteReport",
    "SiteSession",
]


@dataclass(frozen=True, slots=True)
class BuildSettings:
    """What one build was asked for, as every step reads it."""

    root: Path
    out: Path
    options: RenderOptions
    redactor: Redactor | None
    """Every page, index, name and the manifest redacted and gated (``redact``)."""
    selection: Selection | None
    page_seconds: float | None
    """How long a page may take before it is written as plain text (None: by its size)."""
    fields: frozenset[str]
    """What the search index holds (``search.records.FIELDS``)."""
    search: bool
    growing_seconds: float | None
    """``--watch``: a file whose last line was written less than this ago is being written."""

    @property
    def search_href(self) -> str | None:
        """The search page, from the site's folder (None: the site has none)."""
        return "search.html" if self.search else None


@dataclass(frozen=True, slots=True)
class SiteSession:
    """One session file the site holds (gather)."""

    source: Path
    rel: str
    """Its path under the root, as the site shows it (redacted when redacting)."""
    page: str
    """Its page, relative to the site's folder: ``<project folder>/<name>.html``."""
    header: JSON
    """Its first line (empty when that is no session header)."""


@dataclass(frozen=True, slots=True)
class Gathered:
    """The sessions that make up the site, in the order they were found, and their projects."""

    sessions: list[SiteSession]
    places: dict[str, str]
    """Project folder → its cwd (or the sessions' folder), as shown."""
    left_out: set[str] = field(default_factory=set)
    """The files under the root the choice (``--project``, ``--since``, ``--until``) left
    out, as shown: their pages are not this build's to remove."""
    nothing_found: str | None = None
    """When no session file is under the root: where the walk looked."""


@dataclass(frozen=True, slots=True)
class ParentLink:
    """How a session came from another session of the site (``read.lineage``)."""

    page: str
    """The parent's page."""
    link: Link


@dataclass(frozen=True, slots=True)
class Fork:
    """A session forked from another (not a subagent): its file name as shown, its page."""

    name: str
    page: str


@dataclass(frozen=True, slots=True)
class SiteMap:
    """How the sessions of a site relate (plan): what their pages show of each other."""

    labels: dict[str, str]
    """Project folder → the label its pages show (``indexes.project_labels``)."""
    navs: dict[str, SiteNav]
    """Page → its trail, search and neighbouring sessions."""
    lineage: dict[str, ParentLink]
    """Child page → its parent."""
    forks: dict[str, list[Fork]]
    """Parent page → the sessions forked from it."""
    children: dict[str, tuple[ChildRef, ...]]
    """Parent page → the sessions started from it (hrefs relative to the site)."""
    by_name: dict[str, str]
    """Session file name → its page (a header names its parent by its path)."""


@dataclass(slots=True)
class SiteReport:
    """The outcome of one ``build_site`` run."""

    out: Path
    rendered: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """Problems in the sessions rendered by this run."""
    projects: int = 0
    sessions: int = 0
    redacted: Counter[str] = field(default_factory=Counter)
    """Secrets replaced per rule on the pages this run rendered (with a redactor)."""
    pending: list[str] = field(default_factory=list)
    """Sessions whose unterminated last line is still being written (``growing_seconds``)."""
    refused: list[str] = field(default_factory=list)
    """Pages the output gate refused (each with why): a plain page stands in each one's
    place, and the run fails (exit 1)."""
    outside: int = 0
    """Pages of sessions outside this build's choice, kept as they were."""
    nothing_found: str | None = None
    """No session file under the root: where the walk looked (one line)."""

    def summary_line(self) -> str:
        from ..report.branches import plural

        outside = f", {self.outside} outside the selection kept" if self.outside else ""
        refused = f", {len(self.refused)} refused by the redaction gate" if self.refused else ""
        return (
            f"{plural(self.sessions, 'session')} in {plural(self.projects, 'project')}: "
            f"{self.rendered} rendered, {self.unchanged} unchanged, {self.removed} removed"
            f"{outside}, {len(self.failed)} failed{refused}, "
            f"{plural(len(self.warnings), 'warning')} → {self.out}"
        )

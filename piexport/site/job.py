"""One site to build, as a command asks for it: the options ``site``, ``site --watch`` and
``serve`` hand to every build (a watch builds the same site again and again)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the renderer and the rules load only when a site is built
    from ..page.render import RenderOptions
    from ..read.selection import Selection
    from ..redact.engine import Redactor
    from .build import SiteReport

__all__ = ["SiteJob"]


@dataclass(frozen=True, slots=True)
class SiteJob:
    """Every session under ``root`` archived into ``out``: what :func:`build.build_site`
    is given each time it runs (see it for each option)."""

    root: Path
    out: Path
    options: RenderOptions | None = None
    jobs: int | None = None
    force: bool = False
    project: str | None = None
    since: str | None = None
    until: str | None = None
    redactor: Redactor | None = None
    selection: Selection | None = None
    page_seconds: float | None = None
    """Past this, a page is written as plain text (None: by the session's size)."""
    search_fields: frozenset[str] | None = None
    search: bool = True

    def build_options(self) -> dict[str, Any]:
        """The keywords of ``build_site`` (and of ``watch.watch_site``): all but the
        folders."""
        skip = ("root", "out")
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip}

    def build(self, progress: Callable[[int, int], None] | None = None) -> SiteReport:
        """Build the site once; ``progress(done, total)`` after each page."""
        from .build import build_site

        return build_site(self.root, self.out, progress=progress, **self.build_options())

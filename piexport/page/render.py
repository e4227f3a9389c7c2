"""Render pages from templates: one Jinja environment, autoescaped and strict.

Content only ever reaches the page through autoescaping or through our own escaping
filters (markdown, highlight, ansi: ``filters.py``); what templates call is in
``jinja_globals.py``. The CSP allows exactly the inline script and style this module
hashes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from ..read.figures import utc_text
from ..read.jsonutil import dumps
from ..read.model import JSON, Session
from ..report.files import files_touched
from ..report.summary import session_span
from ..text.ansi import palette_css
from ..text.cut import PLAIN
from ..text.textsafe import HIDDEN, SELECTORS
from ..version import __version__
from ..workers import default_workers
from .assets import asset_dir, csp_hash, read_static
from .blocks import PREVIEW_LINES, PageBlocks
from .branches import branch_panel
from .charts import context_chart, index_charts, project_chart
from .compiled import TemplateLoader
from .filters import FILTERS, finalize, page_derive
from .highlight import HighlightBudget, page_budget, style_css
from .jinja_globals import GLOBALS
from .parallel import MIN_GROUPS, PageBudgets, render_groups
from .prefetch import prefetch
from .scripts import TEMPLATES, page_script
from .timeline import timeline_view
from .view import SessionView, build_view, dom_ids

MAX_PAGE_TEXT_CHARS = 200_000_000
"""All tool output and file text on one page; past it, blocks show a notice instead."""
MAX_BLOCK_CHARS = 2_000_000
"""One tool output or file shown on a page is cut here, with a notice: pages must open."""
MAX_PAGE_IMAGE_BYTES = 50 * 1024 * 1024
"""Images past this total on one page become placeholders (each is capped at 5 MB too)."""
LIVE_CHARS = 600_000
"""Transcript HTML the browser builds at once; the rest waits, inert, until scrolled to."""
CHUNK_CHARS = 250_000
"""Size of one inert part of a big transcript: small enough to build in a few frames."""
NAV_LIVE_ROWS = 5_000
"""A session tree longer than this is built when the reader first opens it (a 20k-entry
tree is ~100k elements)."""
GROUP_ENTRIES = 20
"""Top-level events rendered in one template call (a fork's folded branches stay whole)."""
_NOSCRIPT_END = re.compile(r"</noscript", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """Choices that change the page; part of the site's fingerprint."""

    highlight_chars: int = 400_000
    """Code Pygments may colour per page (about a second) before the rest is plain text;
    a repeat of a block already coloured costs nothing."""
    live_chars: int = LIVE_CHARS
    """Transcript HTML built at page load; past it, parts wait inert (0: all wait)."""
    chunk_chars: int = CHUNK_CHARS
    nav_rows: int = NAV_LIVE_ROWS
    group_entries: int = GROUP_ENTRIES
    """A longer session tree is built when first opened."""
    link_parent_by_name: bool = False
    """Link a forked session's parent as ``./<parent file stem>.html``: right when pages
    are written side by side, as ``piexport render`` does."""
    live: bool = False
    """A page for ``piexport serve``: its CSP also allows fetching from its own origin, so
    the script can learn that the page changed and update it in place."""
    workers: int = field(default=0, repr=False, compare=False)
    """Processes that render a big page together once its highlighting is spent (0: one
    per core; a site, which renders pages side by side, uses 1). The page is the same."""
    progress: Callable[[int, int], None] | None = field(default=None, repr=False, compare=False)
    """Told ``(groups done, groups)`` as the transcript is rendered (``render`` shows a bar
    on a terminal). The page is the same."""


@dataclass(frozen=True, slots=True)
class SiteNav:
    """Where a page of a site sits (issue 28): the trail from the archive to it, the archive's
    search page, and for a session page the sessions before and after it in its project.
    Part of what a page is rendered from (the site re-renders a page when it changes)."""

    trail: tuple[tuple[str, str | None, str | None], ...]
    """(label, href or None for this page, text on hover)."""
    search_href: str | None = None
    prev: tuple[str, str] | None = None
    """(when it started, href) of the session before this one in the project."""
    next: tuple[str, str] | None = None


def sibling_href(path: str) -> str:
    """``./<stem>.html`` for a session file path from content: the base name only, quoted, so
    no scheme, folder or query can come through."""
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return "./" + quote(stem or "session", safe="") + ".html"


@cache
def make_env() -> jinja2.Environment:
    """The one Environment: autoescaped, and strict, so a typo in a template fails a test.

    Its templates come compiled with the package (``compiled.py``)."""
    return environment(TemplateLoader(asset_dir("templates")))


def environment(loader: jinja2.BaseLoader) -> jinja2.Environment:
    """The page environment over ``loader``: without the optimizer, which would call our
    filters on constants while compiling a template (the pages are the same)."""
    env = jinja2.Environment(
        loader=loader,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=finalize,
        optimized=False,
    )
    env.filters.update(FILTERS)
    env.globals.update(GLOBALS, version=__version__, PREVIEW_LINES=PREVIEW_LINES)
    return env


@cache
def _css(terminal: bool = False) -> str:
    """The page's style sheet; with the terminal palette's classes on a session page (the
    one page that shows terminal output: 24 kB the indexes do without)."""
    return read_static("viewer.css") + "\n" + (palette_css() if terminal else "") + style_css()


def _page_parts(
    template: str, live: bool = False, nav: SiteNav | None = None, **variables: Any
) -> Iterator[str]:
    css, js = _css(template == "session.html.j2"), page_script(TEMPLATES[template], live)
    # One Trusted Types policy, "piexport", exists: the script uses it only to build the
    # inert parts of a big transcript from the page's own <noscript> source (and, on a
    # served page, the same page fetched again from its own origin).
    csp = (
        f"default-src 'none'; script-src {csp_hash(js)}; style-src {csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'; "
        "require-trusted-types-for 'script'; trusted-types piexport"
    )
    if live:
        csp += "; connect-src 'self'"
    return (
        make_env()
        .get_template(template)
        .generate(csp=csp, live=live, nav=nav, css=Markup(css), js=Markup(js), **variables)
    )


def _page(template: str, **variables: Any) -> str:
    """A page of the site (an index, search): its text was made by the site's build."""
    page_derive.set(PLAIN)
    return "".join(_page_parts(template, **variables))


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of the transcript's top-level events, rendered; ``lazy`` ones go into the page
    as <noscript> source, which the browser keeps as one text node until the script builds
    it (and shows as ordinary HTML when scripting is off)."""

    html: Markup
    lazy: bool
    after: int
    """Characters of transcript before this one (the script sizes waiting parts by it)."""


def render_session(
    session: Session | SessionView,
    options: RenderOptions | None = None,
    *,
    sharing: Sequence[str] = (),
    nav: SiteNav | None = None,
) -> str:
    """The whole session page as a string; no I/O, same input → same bytes.

    ``sharing`` lists what was left out or redacted (``selection.sharing_notice``); the page
    says so under its title. ``nav``: where the page sits in a site (none on its own)."""
    return "".join(render_session_parts(session, options, sharing=sharing, nav=nav))


def _groups(events: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """Runs of events cut only at the top level, so a folded branch is never split."""
    depth, start, entries = 0, 0, 0
    for i, ev in enumerate(events):
        if ev.kind == "open":
            depth += 1
        elif ev.kind == "close":
            depth -= 1
        else:
            entries += 1
        if depth == 0 and entries >= size:
            yield events[start : i + 1]
            start, entries = i + 1, 0
    if start < len(events):
        yield events[start:]


def render_session_parts(
    session: Session | SessionView,
    options: RenderOptions | None = None,
    *,
    sharing: Sequence[str] = (),
    nav: SiteNav | None = None,
) -> Iterator[str]:
    """The session page in parts, for writing as it is made (see ``render_session``)."""
    options = options or RenderOptions()
    view = session if isinstance(session, SessionView) else build_view(session)
    _link_parent(view, options)
    budgets = PageBudgets(
        HighlightBudget(options.highlight_chars), MAX_PAGE_TEXT_CHARS, MAX_PAGE_IMAGE_BYTES
    )
    blocks = PageBlocks(view.session.derive, budgets, MAX_BLOCK_CHARS)
    variables = {
        "v": view,
        "s": view.session,
        "blocks": blocks,
        "file_stats": view.file_figures,
        "path_stats": view.path_figures,
    }
    panels = _session_panels(view)
    page_budget.set(budgets.highlight)  # code fences in markdown count against the page too
    page_derive.set(view.session.derive)  # what templates print from session text
    # started before the page's header is written: workers may begin at once
    rendered = _transcript(view, options, variables, budgets)
    page = _session_page(view, options, {**panels, **variables}, rendered, sharing, nav)
    return _Parts(page, rendered)


def _link_parent(view: SessionView, options: RenderOptions) -> None:
    """A forked session's parent linked as the page beside it, when the options say so."""
    header = view.session.header
    if (
        view.parent_href is None
        and options.link_parent_by_name
        and header
        and header.parent_session
    ):
        view.parent_href = sibling_href(header.parent_session)


def _session_panels(view: SessionView) -> dict[str, Any]:
    """What the page shows beside its transcript: the context chart and the Files panel
    (issue 16), and the session's span (issue 28)."""
    return {
        "context_chart": context_chart(view),
        "timeline": timeline_view(view),
        "files": files_touched(view.session),
        "span": session_span(view.session, view.file_figures),
    }


def _transcript(
    view: SessionView, options: RenderOptions, variables: dict[str, Any], budgets: PageBudgets
) -> Generator[str, None, None]:
    """The transcript's groups of events rendered in order, spending the page's budgets; a
    big page's by worker processes too, which start now (``parallel.render_groups``)."""
    part = make_env().get_template("transcript.html.j2")
    groups = list(_groups(view.events, options.group_entries))
    workers = options.workers or default_workers()
    if len(groups) >= MIN_GROUPS:  # a small page is not worth starting processes for
        prefetch(view, options.highlight_chars, workers)
    rendered = render_groups(
        groups, lambda group: part.render(events=group, **variables), budgets, workers
    )
    if options.progress is None:
        return rendered
    return _Counted(rendered, len(groups), options.progress)


class _Counted(Generator[str, None, None]):
    """The transcript's groups as ``render_groups`` gives them, each counted to
    ``progress`` as it comes; closing it closes them (their worker processes end)."""

    def __init__(
        self, inner: Generator[str, None, None], total: int, progress: Callable[[int, int], None]
    ) -> None:
        self._inner, self._total, self._progress, self._done = inner, total, progress, 0

    def send(self, value: None) -> str:
        html = self._inner.send(value)
        self._done += 1
        self._progress(self._done, self._total)
        return html

    def throw(self, *args: Any) -> str:
        return self._inner.throw(*args)

    def close(self) -> None:
        self._inner.close()


def _chunks(rendered: Iterator[str], options: RenderOptions) -> Iterator[Chunk]:
    """The transcript, rendered a group at a time; past ``live_chars`` in inert parts."""
    made, pending = 0, []
    for html in rendered:
        pending.append(html)
        made += len(html)
        size = sum(map(len, pending))
        if made <= options.live_chars or size >= options.chunk_chars:
            yield _chunk(pending, made > options.live_chars, made - size)
            pending = []
    if pending:
        yield _chunk(pending, made > options.live_chars, made - sum(map(len, pending)))


def _session_page(
    view: SessionView,
    options: RenderOptions,
    variables: dict[str, Any],
    rendered: Generator[str, None, None],
    sharing: Sequence[str],
    nav: SiteNav | None,
) -> Iterator[str]:
    """The page around its transcript, in parts."""
    try:
        yield from _page_parts(
            "session.html.j2",
            live=options.live,
            nav=_dated_trail(nav, variables["span"].start),
            chunks=_chunks(rendered, options),
            nav_lazy=len(view.outline) > options.nav_rows,
            sharing=list(sharing),
            branch_panel=branch_panel(view),
            **variables,
        )
    finally:
        # closing the page (an error or a time limit midway) stops the workers at once:
        # left to the garbage collector, forked workers outlive the page, holding copies
        # of the parent's pipes
        rendered.close()


def _dated_trail(nav: SiteNav | None, start: int | None) -> SiteNav | None:
    """The trail's last crumb (this session) dated as the header's "Started" is: from the
    entries (``session_span``), not from the file's header, which a copy writes after
    every entry and a fork after the history it copied (issue 38, item 8)."""
    if nav is None or not nav.trail or nav.trail[-1][1] is not None:
        return nav
    label = nav.trail[-1][0]
    if not label.startswith("session"):
        return nav
    when = utc_text(start, "%Y-%m-%d %H:%M") if start is not None else None
    crumb = (f"session of {when}" if when else "session", None, nav.trail[-1][2])
    return replace(nav, trail=(*nav.trail[:-1], crumb))


class _Parts(Iterator[str]):
    """A page's parts; ``close()`` ends its worker processes even when the page was never
    started (a generator closed before it ran skips its ``finally``)."""

    def __init__(self, parts: Iterator[str], rendered: Generator[str, None, None]) -> None:
        self._parts, self._rendered = parts, rendered

    def __next__(self) -> str:
        return next(self._parts)

    def close(self) -> None:
        try:
            close = getattr(self._parts, "close", None)
            if close is not None:
                close()
        finally:
            self._rendered.close()


@dataclass(frozen=True, slots=True)
class PlainEntry:
    anchor: str
    line: int
    type: str
    role: str | None
    id: str


def render_plain_parts(
    session: Session, title: str, reason: str, nav: SiteNav | None = None
) -> Iterator[str]:
    """The page written when the full one could not be made in time: every entry as the
    JSON it was written as, escaped, with no markdown or colour (linear in the file)."""
    page_derive.set(session.derive)

    def entries() -> Iterator[tuple[PlainEntry, str]]:
        doms = dom_ids(session)
        for e in session.entries:
            message = e.raw.get("message")
            role = message.get("role") if isinstance(message, dict) else None
            try:
                text = dumps(e.raw)
            except (TypeError, ValueError, RecursionError):
                text = session.derive.block(repr(e.raw), MAX_BLOCK_CHARS)
            if len(text) > MAX_BLOCK_CHARS:  # a cut: a new end, read again
                more = f"\n[{len(text) - MAX_BLOCK_CHARS} more characters]"
                text = session.derive.block(text, MAX_BLOCK_CHARS) + more
            yield PlainEntry(doms[e.id], e.line, e.type, str(role) if role else None, e.id), text

    return _page_parts(
        "plain.html.j2", nav=nav, s=session, title=title, reason=reason, entries=entries()
    )


def _chunk(parts: list[str], lazy: bool, after: int) -> Chunk:
    html = "".join(parts)
    # our markup never holds a </noscript (content is escaped); if it ever did, build it now
    return Chunk(Markup(html), lazy and not _NOSCRIPT_END.search(html), after)


def render_project_index(
    project: JSON, options: RenderOptions | None = None, nav: SiteNav | None = None
) -> str:
    return _page(
        "project.html.j2",
        live=_live(options),
        nav=nav,
        p=project,
        charts=index_charts(project["sessions"]),
    )


def _live(options: RenderOptions | None) -> bool:
    return options is not None and options.live


RECENT_SESSIONS = 50
"""Sessions the root index lists (the most recent); ``sessions.html`` lists every one."""


def _recent(projects: Sequence[JSON], limit: int | None = None) -> list[JSON]:
    """Every session of every project, newest activity first, with its project beside it."""
    rows = [
        {**r, "project": p, "href": f"{p['key']}/{r['href']}"}
        for p in projects
        for r in p["sessions"]
    ]
    rows.sort(key=lambda r: (r.get("last") or 0, r["href"]), reverse=True)
    return rows if limit is None else rows[:limit]


def _totals(projects: Sequence[JSON]) -> JSON:
    return {
        "sessions": sum(len(p["sessions"]) for p in projects),
        "tokens": sum(p["tokens"] for p in projects),
        "cost": sum(p["cost"] for p in projects),
        "costEstimated": sum(p.get("costEstimated") or 0 for p in projects) or None,
        "estimatedSessions": sum(
            1 for p in projects for r in p["sessions"] if r.get("costEstimated")
        ),
        "first": min((p["first"] for p in projects if p["first"] is not None), default=None),
        "last": max((p["last"] for p in projects if p["last"] is not None), default=None),
    }


def render_root_index(
    projects: Sequence[JSON],
    options: RenderOptions | None = None,
    nav: SiteNav | None = None,
    all_href: str | None = None,
) -> str:
    """The archive's front page: the most recent sessions across projects, then the
    projects with their figures, then the charts."""
    return _page(
        "index.html.j2",
        live=_live(options),
        nav=nav,
        projects=projects,
        recent=_recent(projects, RECENT_SESSIONS),
        all_href=all_href,
        totals=_totals(projects),
        charts=_root_charts(projects),
    )


def render_all_sessions(
    projects: Sequence[JSON], options: RenderOptions | None = None, nav: SiteNav | None = None
) -> str:
    """``sessions.html``: every session of the site in one sortable table."""
    return _page(
        "sessions.html.j2",
        live=_live(options),
        nav=nav,
        recent=_recent(projects),
        totals=_totals(projects),
        projects=projects,
    )


def render_search_page(
    fields: Sequence[str], search: Mapping[str, Any], nav: SiteNav | None = None
) -> str:
    """``search.html``: the page's own script (the theme toggle and the search) is inline and
    hashed; the index files it loads are classic scripts from the site's own folder
    (``'self'``), which file:// allows where fetch, modules and WebAssembly are blocked.
    ``search``: the limits its script applies, from ``search.script.script_constants()``."""
    from ..version import INDEX_VERSION

    page_derive.set(PLAIN)
    css, js = _css(), page_script("search", extra=search)
    csp = (
        f"default-src 'none'; script-src {csp_hash(js)} 'self'; style-src {csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'; "
        "require-trusted-types-for 'script'; trusted-types piexport piexport-search"
    )
    return "".join(
        make_env()
        .get_template("search.html.j2")
        .generate(
            csp=csp,
            nav=nav,
            css=Markup(css),
            js=Markup(js),
            fields=list(fields),
            hidden=_code_ranges(HIDDEN - SELECTORS - {"\r"}),
            selectors=_code_ranges(SELECTORS),
            index_version=INDEX_VERSION,
        )
    )


def _code_ranges(chars: Iterable[str]) -> str:
    """``202a-202e 2066-2069 …``: the characters search.js marks in snippets, from textsafe's
    tables (one source for pages, the CLI and the search page)."""
    runs: list[list[int]] = []
    for c in sorted(map(ord, chars)):
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    return " ".join(f"{a:x}" if a == b else f"{a:x}-{b:x}" for a, b in runs)


def _root_charts(projects: Sequence[JSON]) -> list[Any]:
    """Cost, tokens and sessions over time, projects by cost, tools (``page/charts.py``)."""
    made = index_charts([s for p in projects for s in p["sessions"]])
    by_project = project_chart(projects)
    if by_project is not None:
        tools_last = bool(made) and made[-1].id == "tools"
        made.insert(len(made) - 1 if tools_last else len(made), by_project)
    return made

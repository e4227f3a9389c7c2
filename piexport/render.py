"""Render pages from templates: one Jinja environment, autoescaped and strict.

Content only ever reaches the page through autoescaping or through our own escaping
filters (markdown, highlight, ansi); the CSP allows exactly the inline script and style
this module hashes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cache
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

import jinja2
import orjson
from markupsafe import Markup, escape

from . import __version__
from .ansi import ansi_to_html
from .assets import Image, asset_dir, check_image, csp_hash, read_static
from .highlight import (
    HighlightBudget,
    highlight_block,
    highlight_code,
    lexer_by_name,
    lexer_for_path,
    style_css,
)
from .markdown import render_markdown
from .model import JSON, Session, content_text
from .outline import tool_call_summary
from .textsafe import reveal_controls
from .tree import timestamp_ms
from .view import (
    SessionView,
    build_view,
    diff_rows,
    dom_id,
    grep_groups,
    split_exit,
    split_notice,
)

PREVIEW_LINES = 20
"""Longer outputs and files show this many lines and expand in place."""
MAX_PAGE_TEXT_CHARS = 200_000_000
"""All tool output and file text on one page; past it, blocks show a notice instead."""
MAX_BLOCK_CHARS = 2_000_000
"""One tool output or file shown on a page is cut here, with a notice: pages must open."""
MAX_PAGE_IMAGE_BYTES = 50 * 1024 * 1024
"""Images past this total on one page become placeholders (each is capped at 5 MB too)."""


def _md(text: Any) -> Markup:
    return Markup(render_markdown(text if isinstance(text, str) else str(text)))


def _ansi(text: Any) -> Markup:
    return Markup(ansi_to_html(text if isinstance(text, str) else str(text)))


def _plain(text: Any) -> Markup:
    return Markup(reveal_controls(str(escape(text if isinstance(text, str) else str(text)))))


def _json(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    except TypeError:
        return repr(value)


def _when(value: Any) -> str:
    ms = timestamp_ms(value)
    if ms is None:
        return str(value) if value else "—"
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _duration(seconds: Any) -> str:
    if not isinstance(seconds, (int, float)):
        return "—"
    s = int(seconds)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return f"{h}h {m:02d}m" if h else (f"{m}m {s:02d}s" if m else f"{s}s")


def _tokens(n: Any) -> str:
    if not isinstance(n, (int, float)):
        return "—"
    return (
        f"{n / 1_000_000:.2f}M"
        if n >= 1_000_000
        else (f"{n / 1000:.1f}k" if n >= 1000 else str(int(n)))
    )


def _cost(v: Any) -> str:
    return (
        f"${v:.4f}"
        if isinstance(v, (int, float)) and v < 1
        else (f"${v:.2f}" if isinstance(v, (int, float)) else "—")
    )


def _lines(text: str) -> int:
    return text.count("\n") + 1 if text else 0


def _head(text: str, n: int = PREVIEW_LINES) -> str:
    return "\n".join(text.split("\n")[:n])


def _tail(text: str, n: int = PREVIEW_LINES) -> str:
    return "\n".join(text.split("\n")[-n:])


FILTERS: dict[str, Callable[..., Any]] = {
    "markdown": _md,
    "ansi": _ansi,
    "plain": _plain,
    "json": _json,
    "when": _when,
    "duration": _duration,
    "tokens": _tokens,
    "cost": _cost,
    "lines": _lines,
    "head": _head,
    "tail": _tail,
    "dom_id": dom_id,
    "text_of": content_text,
}


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """Choices that change the page; part of the site's fingerprint."""

    highlight_seconds: float = 3.0
    """Time Pygments may spend per page before the rest is plain escaped text."""
    link_parent_by_name: bool = False
    """Link a forked session's parent as ``./<parent file stem>.html``: right when pages
    are written side by side, as ``piexport render`` does."""


def sibling_href(path: str) -> str:
    """``./<stem>.html`` for a session file path from content: the base name only, quoted, so
    no scheme, folder or query can come through."""
    name = PureWindowsPath(path).name if "\\" in path else PurePosixPath(path).name
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    return "./" + quote(stem or "session", safe="") + ".html"


@cache
def make_env() -> jinja2.Environment:
    """The one Environment: autoescaped, and strict, so a typo in a template fails a test."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(asset_dir("templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(FILTERS)
    env.globals.update(
        diff_rows=diff_rows,
        split_notice=split_notice,
        split_exit=split_exit,
        grep_groups=grep_groups,
        tool_call_summary=tool_call_summary,
        version=__version__,
    )
    return env


@cache
def _assets() -> tuple[str, str]:
    css = read_static("viewer.css") + "\n" + style_css()
    js = read_static("viewer.js")
    return css, js


def _page(template: str, **variables: Any) -> str:
    css, js = _assets()
    csp = (
        f"default-src 'none'; script-src {csp_hash(js)}; style-src {csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'; "
        "require-trusted-types-for 'script'; trusted-types 'none'"
    )
    return (
        make_env()
        .get_template(template)
        .render(csp=csp, css=Markup(css), js=Markup(js), **variables)
    )


def numbered(lines: Sequence[str], start: Any = 1, limit: int | None = None) -> Markup:
    """Code lines from ``code_lines`` (already escaped and highlighted) beside their numbers,
    counted from ``start`` (a read's offset); built here, not in a template loop, because
    files are long."""
    first = start if isinstance(start, int) and not isinstance(start, bool) else 1
    shown = lines[:limit] if limit is not None else lines
    gutter = "".join(f"{first + i}\n" for i in range(len(shown)))
    code = "".join(f"{line}\n" for line in shown)
    return Markup(
        f'<div class="code-with-lines"><pre class="gutter" aria-hidden="true">{gutter}</pre>'
        f'<pre class="hl"><code>{code}</code></pre></div>'
    )


def cut_notice(missing: int) -> Markup:
    """Says how much of a block the page left out (a number, never content)."""
    if missing <= 0:
        return Markup("")
    return Markup(
        f'<p class="notice cut">{int(missing)} more characters are not shown on this page '
        "(the session file has them all).</p>"
    )


def render_session(
    session: Session | SessionView,
    options: RenderOptions | None = None,
    *,
    sharing: Sequence[str] = (),
) -> str:
    """The whole session page as a string; no I/O, same input → same bytes.

    ``sharing`` lists what was left out or redacted (``selection.sharing_notice``); the page
    says so under its title."""
    options = options or RenderOptions()
    view = session if isinstance(session, SessionView) else build_view(session)
    header = view.session.header
    if (
        view.parent_href is None
        and options.link_parent_by_name
        and header
        and header.parent_session
    ):
        view.parent_href = sibling_href(header.parent_session)
    budget = HighlightBudget(options.highlight_seconds)

    text_left = [MAX_PAGE_TEXT_CHARS]

    def cap(text: Any) -> str:
        """The part of one block this page shows: within the block and the page budgets."""
        full = text if isinstance(text, str) else str(text)
        shown = full[: max(0, min(MAX_BLOCK_CHARS, text_left[0]))]
        text_left[0] -= len(shown)
        return shown

    def code(text: Any, lang: str = "", path: str | None = None) -> Markup:
        full = text if isinstance(text, str) else str(text)
        shown = cap(full)
        html = highlight_block(shown, lang, path=path, budget=budget)
        return Markup(html) + cut_notice(len(full) - len(shown))

    def code_lines(text: Any, lang: str = "", path: str | None = None) -> tuple[list[str], int]:
        """Highlighted lines (for line numbers and previews) and how many characters were cut.

        Pygments closes its spans at every line end, so each line is whole HTML."""
        full = text if isinstance(text, str) else str(text)
        shown = cap(full)
        lexer = lexer_for_path(path) if path else lexer_by_name(lang)
        html = highlight_code(shown, lexer, budget)
        # as many lines as the text has (a final newline ends a line, it does not start one);
        # lexers may add a newline of their own at the end
        count = shown.count("\n") + (0 if shown.endswith("\n") else 1)
        return html.split("\n")[: max(count, 1)], len(full) - len(shown)

    images_left = [MAX_PAGE_IMAGE_BYTES]

    def image(block: Any) -> Image:
        """Check one image, within what is left of the page's image budget."""
        img = check_image(block)
        if img.uri is not None:
            if img.size > images_left[0]:
                return Image(img.mime, img.size, None, "the page's image budget is used up")
            images_left[0] -= img.size
        return img

    return _page(
        "session.html.j2",
        v=view,
        s=view.session,
        code=code,
        code_lines=code_lines,
        numbered=numbered,
        cap=cap,
        cut_notice=cut_notice,
        image=image,
        file_stats=view.file_figures,
        path_stats=view.path_figures,
        sharing=list(sharing),
    )


def render_project_index(project: JSON, options: Any = None) -> str:
    return _page("project.html.j2", p=project)


def render_root_index(projects: Sequence[JSON], options: Any = None) -> str:
    return _page(
        "index.html.j2",
        projects=projects,
        totals={
            "sessions": sum(len(p["sessions"]) for p in projects),
            "tokens": sum(p["tokens"] for p in projects),
            "cost": sum(p["cost"] for p in projects),
        },
    )

"""Render pages from templates: one Jinja environment, autoescaped and strict.

Content only ever reaches the page through autoescaping or through our own escaping
filters (markdown, highlight, ansi); the CSP allows exactly the inline script and style
this module hashes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

import jinja2
from jinja2.nodes import EvalContext
from markupsafe import Markup

from ..kinds import kind_of, other_fields
from ..kinds.tools import tool_call_target
from ..read.figures import utc_text
from ..read.jsonutil import dumps, dumps_shown, finite_number
from ..read.model import JSON, Entry, Session, SkillBlock, content_text, skill_block
from ..read.system import current_system, describe_update
from ..read.tooloutput import diff_rows, grep_groups, split_exit, split_notice
from ..read.tree import timestamp_ms
from ..report.branches import duration, figures_line, span_differs
from ..report.files import files_touched
from ..report.prices import estimate_message
from ..report.stats import failure
from ..report.summary import session_span
from ..text.ansi import ansi_to_html, escape_text, palette_css
from ..text.cut import PLAIN, Derive
from ..text.numbers import money, tokens
from ..text.textsafe import HIDDEN, SELECTORS, plain_controls, reveal_controls
from ..version import __version__
from ..workers import default_workers
from .assets import asset_dir, csp_hash, read_static
from .blocks import PREVIEW_LINES, PageBlocks, head, line_count, tail
from .branches import branch_panel
from .charts import context_chart, index_charts, project_chart
from .compiled import TemplateLoader
from .highlight import HighlightBudget, page_budget, style_css
from .markdown import render_markdown
from .parallel import MIN_GROUPS, PageBudgets, render_groups
from .prefetch import prefetch
from .scripts import TEMPLATES, page_script
from .view import SessionView, build_view, dom_id, dom_ids, header_fields

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


def _md(text: Any) -> Markup:
    return Markup(render_markdown(text if isinstance(text, str) else str(text)))


def _ansi(text: Any) -> Markup:
    return Markup(ansi_to_html(text if isinstance(text, str) else str(text)))


page_derive: ContextVar[Derive] = ContextVar("page_derive", default=PLAIN)
"""The derive of the session whose page is being made (``text.cut.Derive``): whatever a
template prints as text passes it, so text a template cuts, joins or puts together from
session text is redacted as shown when the session was. Set by each page's render."""


def _plain(text: Any) -> Markup:
    shown = page_derive.get()(text if isinstance(text, str) else str(text))
    return Markup(reveal_controls(escape_text(shown)))


def composed(*parts: Any) -> Markup:
    """One printed line put together from several texts (the page's words, session text, an
    id): each part a text, or ``(tag, text)`` / ``(tag, text, attributes)`` for a part in its
    own inline element (``code``, ``a``, a muted ``span``). The line is read as its reader
    reads it, as one text, so it is redacted as one (issue 35: ``INVALID_API_KEY`` beside
    ``req_01: the key was rejected``, a target beside "(not in the file)", are a
    ``KEY: value`` neither part is): when that finds what the parts alone did not, the
    line is shown as that one redacted text, without its inline elements. The output gate
    reads exactly this text, so it never finds in it what the redactor did not read."""
    derive = page_derive.get()
    pieces: list[tuple[str | None, Mapping[str, Any], str]] = []
    for part in parts:
        if isinstance(part, tuple | list):
            tag, text, *more = part
            attrs: Mapping[str, Any] = more[0] if more else {}
        else:
            tag, text, attrs = None, part, {}
        if text is None or text == "":
            continue
        pieces.append((tag, attrs, derive(text if isinstance(text, str) else str(text))))
    whole = "".join(text for _, _, text in pieces)
    shown = derive(whole)
    if shown != whole:
        return Markup(reveal_controls(escape_text(shown)))
    out: list[str] = []
    for tag, attrs, text in pieces:
        body = reveal_controls(escape_text(text))
        if tag is None:
            out.append(body)
        else:
            at = "".join(f' {k}="{escape_text(derive(str(v)))}"' for k, v in attrs.items())
            out.append(f"<{tag}{at}>{body}</{tag}>")
    return Markup("".join(out))


def diagnostics_line(ds: Sequence[Any]) -> Markup:
    """``Diagnostics (2): retry — INVALID_API_KEY: req_01…: the key was rejected; …`` (pi
    1.5's ``diagnostics`` of a response, the first three), composed as one line."""
    parts: list[str] = [f"Diagnostics ({len(ds)}): "]
    shown = list(ds[:3])
    for i, d in enumerate(shown):
        if isinstance(d, Mapping):
            parts.append(str(d.get("type")))
            error = d.get("error")
            if isinstance(error, Mapping):
                parts.append(" — " + str(error.get("name") or ""))
                if error.get("message"):
                    parts.append(": " + _truncate(str(error.get("message")), 80))
        if i < len(shown) - 1:
            parts.append("; ")
    if len(ds) > 3:
        parts.append("; …")
    return composed(*parts)


@jinja2.pass_eval_context
def _finalize(_ctx: EvalContext, value: Any) -> Any:
    """Every ``{{ … }}`` ends here: a string that reached a template without one of our
    filters (the ``<title>``, an index cell, an attribute) is made with the page's derive
    and still shows its bidi controls and invisible characters, as plain marks. Our
    filters' Markup is final already.

    It takes the evaluation context (unused) so that Jinja never calls it while compiling a
    template (on a constant ``{{ "…" }}``): compiled code must not depend on our Python
    (see ``compiled.py``)."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return plain_controls(page_derive.get()(value))
    return value


def _truncate(
    text: Any, length: int = 255, killwords: bool = False, end: str = "...", leeway: int = 5
) -> str:
    """Jinja's ``truncate``, never inside a redaction token, made with the page's derive."""
    s = text if isinstance(text, str) else str(text)
    if killwords:
        return page_derive.get().cut(s, length, end) if len(s) > length + leeway else s
    return page_derive.get().words(s, length, end, leeway)


def _json(value: Any) -> str:
    """JSON on a page (tool-call and nested-call arguments, raw entries): indented a few
    levels, the rest on its line, so its size stays linear in the value's (``dumps_shown``)."""
    return dumps_shown(value)


def _when(value: Any) -> str:
    shown = utc_text(timestamp_ms(value))  # None too for a time no calendar holds
    if shown is None:
        return str(value) if value else "—"
    return shown


def _day_time(value: Any) -> str:
    """``2025-03-03 08:41`` (UTC): when, in an index cell ("—" for a time no calendar holds)."""
    return utc_text(timestamp_ms(value), "%Y-%m-%d %H:%M") or "—"


def _day(value: Any) -> str:
    return utc_text(timestamp_ms(value), "%Y-%m-%d") or "—"


def _as_written(value: Any) -> str:
    """A number no figure can use (``1e999``, ``NaN``, past 64 bits) as the file wrote it;
    anything that is not a number as a dash."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return "—"


def _duration(seconds: Any) -> str:
    n = finite_number(seconds)
    return _as_written(seconds) if n is None else duration(n)


def _ms(value: Any) -> str:
    """A duration in milliseconds, as a reader says it: ``240 ms``, ``1.8 s``, ``2m 05s``."""
    n = finite_number(value)
    if n is None or n < 0:
        return _as_written(value)
    if n < 1000:
        return f"{int(n)} ms"
    if n < 60_000:
        return f"{n / 1000:.1f} s"
    return duration(n / 1000)


def _tokens(value: Any) -> str:
    n = finite_number(value)
    if n is None:
        return _as_written(value)
    return tokens(n)


def _cost(value: Any) -> str:
    """Dollars; "—" when there is no cost (a model with no price reports 0)."""
    v = finite_number(value)
    if v is None:
        shown = _as_written(value)
        return shown if shown == "—" else "$" + shown
    return money(v or None)


def cost_est(cost: Any, estimated: Any = None) -> Markup:
    """A reported cost and, beside it and marked, the estimate for messages that reported
    none (``report.prices``): ``$0.50 + ~$0.0054 est.``, ``~$0.0054 est.`` or ``—``."""
    shown = _cost(cost)
    est = finite_number(estimated)
    if est is None or est <= 0:
        return Markup(escape_text(shown))
    mark = (
        '<span class="est" title="Estimated from a price table (genai-prices) for the '
        'messages whose provider reported no cost; not included in the reported cost">'
        f"{'+ ' if shown != '—' else ''}~{escape_text(_cost(est))} est.</span>"
    )
    return Markup((escape_text(shown) + " " if shown != "—" else "") + mark)


def _skill_of(text: Any) -> SkillBlock | None:
    """The skill a user message's text starts with (``read.model.skill_block``), or None."""
    return skill_block(text) if isinstance(text, str) else None


def active_cell(active: Any, span: Any) -> Markup:
    """An index row's time: active time (idle gaps left out, ``report.stats.active_ms``)
    and, under it when longer, the span from the first entry to the last; "—" for none."""
    a, s = finite_number(active), finite_number(span)
    if s is None:
        return Markup("—")
    if a is None or not span_differs(a, s):
        return Markup(escape_text(duration(a if a is not None else s)))
    return Markup(
        f'{escape_text(duration(a))}<span class="span-time">{escape_text(duration(s))} span</span>'
    )


FILTERS: dict[str, Callable[..., Any]] = {
    "markdown": _md,
    "ansi": _ansi,
    "plain": _plain,
    "truncate": _truncate,
    "json": _json,
    "when": _when,
    "day_time": _day_time,
    "day": _day,
    "duration": _duration,
    "tokens": _tokens,
    "ms": _ms,
    "cost": _cost,
    "lines": line_count,
    "head": head,
    "tail": tail,
    "dom_id": dom_id,
    "text_of": content_text,
}


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


@jinja2.pass_context
def _macro_named(context: jinja2.runtime.Context, name: str) -> Any:
    """A macro of the template that asks, by name: an entry kind's (``Kind.macro``)."""
    return context.resolve(name)


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
        finalize=_finalize,
        optimized=False,
    )
    env.filters.update(FILTERS)
    env.globals.update(
        composed=composed,
        diagnostics_line=diagnostics_line,
        diff_rows=diff_rows,
        split_notice=split_notice,
        split_exit=split_exit,
        grep_groups=grep_groups,
        tool_call_target=tool_call_target,
        entry_open=entry_open,
        grep_list=grep_list,
        path_list=path_list,
        usage_line=usage_line,
        usage_brief=usage_brief,
        has_usage=has_usage,
        usage_kind=usage_kind,
        usage_kind_name=usage_kind_name,
        header_fields=header_fields,
        replacement_preview=replacement_preview,
        system_of=current_system,
        describe_update=describe_update,
        own_removed_sections=removed_sections,
        figures_line=figures_line,
        active_cell=active_cell,
        failure_of=failure,
        skill_of=_skill_of,
        other_fields=other_fields,
        kind_of=kind_of,
        macro_named=_macro_named,
        cost_est=cost_est,
        version=__version__,
        PREVIEW_LINES=PREVIEW_LINES,
    )
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


def entry_open(e: Entry, v: SessionView, s: Session, kind: str, role_label: str) -> Markup:
    """An entry's opening tag and header line (role, label, compaction mark, time, link):
    every entry has one, so it is built here rather than in a macro."""
    eid = e.id
    dom = v.dom_of(eid)
    dim = " off-context" if eid in v.dimmed else ""
    failed = failure(e)
    fail = f' data-failure="{failed}"' if failed else ""
    head = [
        f'<article class="entry {escape_text(kind)}{dim}" id="{dom}" '
        f'data-entry-id="{escape_text(eid)}" data-parent="{v.parent_dom[eid]}"{fail}>\n'
        f'  <header class="entry-head">\n    <span class="role">{_plain(role_label)}</span>\n'
    ]
    if eid in s.labels:
        head.append(f'    <span class="badge label" title="label">{_plain(s.labels[eid])}</span>\n')
    c = v.out_of_context.get(eid)
    run = v.context_runs.get(eid) if c is not None else None
    if c is not None and run is not None:  # once per run (issue 38): the rest are framed dashed
        more = f" · {run} entries from here" if run > 1 else ""
        head.append(
            f'    <a class="badge muted" href="#{v.dom_of(c)}" title="Summarised by this '
            "compaction: the model did not see it afterwards (nor the entries after it "
            'framed with dashes)">not in context after compaction '
            f"{v.compaction_no[c]}{more}</a>\n"
        )
    head.append(
        f'    <span class="spacer"></span>\n    <time>{_plain(_when(e.timestamp))}</time>\n'
        f'    <a class="deeplink" href="#{dom}" title="Link to this entry" '
        'aria-label="Link to this entry">#</a>\n  </header>'
    )
    return Markup("".join(head))


def grep_list(
    groups: Sequence[tuple[str, Sequence[tuple[str, str, str]]]], preview: bool
) -> Markup:
    """grep results grouped by file; a preview stops after PREVIEW_LINES lines."""
    left = PREVIEW_LINES if preview else -1
    out = ['<div class="grep">\n']
    for path, rows in groups:
        if left == 0:
            break
        out.append(
            f'  <div class="grep-file"><code>{_plain(path)}</code></div>\n'
            '  <table class="grep-lines">'
        )
        for kind, n, text in rows:
            if left == 0:
                break
            left -= 1
            out.append(
                f'<tr class="{escape_text(kind)}"><td class="n">{escape_text(str(n))}</td>'
                f"<td><code>{_plain(text)}</code></td></tr>"
            )
        out.append("</table>\n")
    out.append("</div>\n")
    return Markup("".join(out))


def path_list(items: Sequence[str], dirs: bool, preview: bool) -> Markup:
    """find/ls results, one path a row; folders (ending in /) marked when listing."""
    shown = items[:PREVIEW_LINES] if preview else items
    rows = "".join(
        ('<li class="dir">' if dirs and item.endswith("/") else "<li>")
        + f"<code>{_plain(item)}</code></li>"
        for item in shown
    )
    return Markup(f'<ul class="paths{" columns" if dirs else ""}">{rows}</ul>\n')


_ENDED_OK = (None, "stop", "toolUse", "error", "aborted", "length", "deferred")


def has_usage(u: Any) -> bool:
    """A usage object that counted something (tokens or a cost)."""
    if not isinstance(u, dict):
        return False
    cost = u.get("cost")
    counts = [u.get(k) for k in ("input", "output", "cacheRead", "cacheWrite")]
    counts.append(cost.get("total") if isinstance(cost, dict) else None)
    return any(finite_number(n) for n in counts)


def usage_brief(u: Any, estimated: float | None = None) -> Markup:
    """`` · in 1.2k · out 180 · cache read 50.0k · $0.0150``: one usage object's figures;
    ``estimated``: the estimate of a message that reported no cost, marked, in its place."""
    if not isinstance(u, dict) or not u:
        return Markup("")
    out = [f" · in {_tokens(u.get('input'))} · out {_tokens(u.get('output'))}"]
    if u.get("cacheRead"):
        out.append(f" · cache read {_tokens(u.get('cacheRead'))}")
    if u.get("cacheWrite"):
        out.append(f" · cache write {_tokens(u.get('cacheWrite'))}")
    if u.get("cacheWrite1h"):
        out.append(f" · cache write 1h {_tokens(u.get('cacheWrite1h'))}")
    if u.get("reasoning"):
        out.append(f" · reasoning {_tokens(u.get('reasoning'))}")
    cost = u.get("cost")
    if estimated is not None:
        out.append(f" · {cost_est(None, estimated)}")
    elif isinstance(cost, dict):
        out.append(f" · {_cost(cost.get('total'))}")
    return Markup("".join(out))


def usage_line(msg: JSON) -> Markup:
    """The model (and the one that answered, when a router chose another), the thinking level
    asked for, tokens, cost and time under an assistant message."""
    model = _jinja_str(msg.get("model") or "?")
    out = [f'<div class="usage">{_plain(_jinja_str(msg.get("provider") or ""))}/{_plain(model)}']
    answered = msg.get("responseModel")
    if isinstance(answered, str) and answered and answered != model:
        out.append(
            f' <span title="The model the provider reports answering">→ {_plain(answered)}</span>'
        )
    level = msg.get("thinkingLevel")
    if isinstance(level, str) and level:
        out.append(f" · thinking {_plain(level)}")
    effort = msg.get("providerThinkingLevel")
    if isinstance(effort, str) and effort and effort != level:
        out.append(f" (provider effort {_plain(effort)})")
    out.append(usage_brief(msg.get("usage"), estimate_message(msg)))
    if isinstance(msg.get("durationMs"), int | float) and not isinstance(
        msg.get("durationMs"), bool
    ):
        out.append(f" · took {_ms(msg.get('durationMs'))}")
    stop = msg.get("stopReason")
    if stop not in _ENDED_OK:
        out.append(f" · stop: {_plain(_jinja_str(stop))}")
    out.append("</div>")
    return Markup("".join(out))


USAGE_KIND_NAMES = {"cache_warm": "cache warming"}


def usage_kind_name(kind: str) -> str:
    """A kind of usage in words (``stats.Figures.by_kind`` keys, usage entry kinds)."""
    return USAGE_KIND_NAMES.get(kind, kind)


def usage_kind(kind: Any) -> Markup:
    """A usage entry's line head: what it paid for, in words where there are some."""
    if isinstance(kind, str) and kind in USAGE_KIND_NAMES:
        return Markup(USAGE_KIND_NAMES[kind].capitalize())
    return Markup("Usage: ") + _plain(_jinja_str(kind))


def replacement_preview(edit: Entry) -> str:
    """The text a context edit puts in place of its target, on one line, cut short (made
    with the page's derive)."""
    rep = edit.raw.get("replacement")
    derive = page_derive.get()
    text = content_text(rep.get("content"), " ", derive) if isinstance(rep, dict) else ""
    return derive.line(text, 200) or "(no text)"


def removed_sections(msg: Any) -> list[str]:
    """The names of the prompt sections a system message removes (``null``)."""
    sections = msg.get("sections") if isinstance(msg, dict) else None
    if not isinstance(sections, dict):
        return []
    return [str(name) for name, value in sections.items() if value is None]


def _jinja_str(value: Any) -> str:
    """str() as a template shows a value (None → "None", True → "True")."""
    return value if isinstance(value, str) else str(value)


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
    return render_groups(
        groups, lambda group: part.render(events=group, **variables), budgets, workers
    )


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
            nav=nav,
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

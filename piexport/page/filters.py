"""The page's Jinja filters, and what every ``{{ … }}`` passes (``finalize``).

Session text reaches a page only through autoescaping or these filters, each made with the
page's derive (``page_derive``): text a template cuts, joins or puts together from session
text is redacted as shown when the session was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import jinja2
from jinja2.nodes import EvalContext
from markupsafe import Markup

from ..read.figures import utc_text
from ..read.jsonutil import dumps_shown, finite_number
from ..read.model import content_text
from ..read.tree import timestamp_ms
from ..report.branches import duration
from ..text.ansi import ansi_to_html, escape_text
from ..text.cut import PLAIN, Derive
from ..text.numbers import money, tokens
from ..text.textsafe import plain_controls, reveal_controls
from .blocks import head, line_count, tail
from .markdown import render_markdown
from .view import dom_id


def markdown_html(text: Any) -> Markup:
    return Markup(render_markdown(text if isinstance(text, str) else str(text)))


def ansi_html(text: Any) -> Markup:
    return Markup(ansi_to_html(text if isinstance(text, str) else str(text)))


page_derive: ContextVar[Derive] = ContextVar("page_derive", default=PLAIN)
"""The derive of the session whose page is being made (``text.cut.Derive``): whatever a
template prints as text passes it, so text a template cuts, joins or puts together from
session text is redacted as shown when the session was. Set by each page's render."""


def plain(text: Any) -> Markup:
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
                    parts.append(": " + truncate(str(error.get("message")), 80))
        if i < len(shown) - 1:
            parts.append("; ")
    if len(ds) > 3:
        parts.append("; …")
    return composed(*parts)


@jinja2.pass_eval_context
def finalize(_ctx: EvalContext, value: Any) -> Any:
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


def truncate(
    text: Any, length: int = 255, killwords: bool = False, end: str = "...", leeway: int = 5
) -> str:
    """Jinja's ``truncate``, never inside a redaction token, made with the page's derive."""
    s = text if isinstance(text, str) else str(text)
    if killwords:
        return page_derive.get().cut(s, length, end) if len(s) > length + leeway else s
    return page_derive.get().words(s, length, end, leeway)


def json_text(value: Any) -> str:
    """JSON on a page (tool-call and nested-call arguments, raw entries): indented a few
    levels, the rest on its line, so its size stays linear in the value's (``dumps_shown``)."""
    return dumps_shown(value)


def when(value: Any) -> str:
    shown = utc_text(timestamp_ms(value))  # None too for a time no calendar holds
    if shown is None:
        return str(value) if value else "—"
    return shown


def day_time(value: Any) -> str:
    """``2025-03-03 08:41`` (UTC): when, in an index cell ("—" for a time no calendar holds)."""
    return utc_text(timestamp_ms(value), "%Y-%m-%d %H:%M") or "—"


def day(value: Any) -> str:
    return utc_text(timestamp_ms(value), "%Y-%m-%d") or "—"


def as_written(value: Any) -> str:
    """A number no figure can use (``1e999``, ``NaN``, past 64 bits) as the file wrote it;
    anything that is not a number as a dash."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return "—"


def duration_text(seconds: Any) -> str:
    n = finite_number(seconds)
    return as_written(seconds) if n is None else duration(n)


def ms(value: Any) -> str:
    """A duration in milliseconds, as a reader says it: ``240 ms``, ``1.8 s``, ``2m 05s``."""
    n = finite_number(value)
    if n is None or n < 0:
        return as_written(value)
    if n < 1000:
        return f"{int(n)} ms"
    if n < 60_000:
        return f"{n / 1000:.1f} s"
    return duration(n / 1000)


def tokens_text(value: Any) -> str:
    n = finite_number(value)
    if n is None:
        return as_written(value)
    return tokens(n)


def cost_text(value: Any) -> str:
    """Dollars; "—" when there is no cost (a model with no price reports 0)."""
    v = finite_number(value)
    if v is None:
        shown = as_written(value)
        return shown if shown == "—" else "$" + shown
    return money(v or None)


FILTERS: dict[str, Callable[..., Any]] = {
    "markdown": markdown_html,
    "ansi": ansi_html,
    "plain": plain,
    "truncate": truncate,
    "json": json_text,
    "when": when,
    "day_time": day_time,
    "day": day,
    "duration": duration_text,
    "tokens": tokens_text,
    "ms": ms,
    "cost": cost_text,
    "lines": line_count,
    "head": head,
    "tail": tail,
    "dom_id": dom_id,
    "text_of": content_text,
}

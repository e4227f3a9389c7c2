"""Markdown for model and user text: no raw HTML, safe links only, no remote images.

markdown-it-py's ``js-default`` preset turns raw HTML off; on top of that every link is
checked against a scheme allow-list, images that are not inline data become links, and
text nested past markdown-it's limit (which would vanish) is shown as plain text instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import escape

from ..deadline import bounded
from ..text.textsafe import plain_controls, reveal_controls
from .highlight import highlight_block, page_budget

MAX_MARKDOWN = 1_000_000
"""Bigger texts are shown as plain text: markdown cost grows fast on hostile input."""
_SAFE_HREF = re.compile(r"^(https?://|mailto:|#)", re.IGNORECASE)
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$")
_WORD = re.compile(r"[^\W\d_\u115f\u1160\u3164\uffa0]+")
"""Runs of letters (list numbers and emphasis marks do not survive); Hangul fillers, which
draw as a blank and are shown as marks, end a word as they do on the page."""
MAX_BRACKETS = 5000
"""More "[" than this make markdown-it's link scanner slow (50,000 take seconds)."""
_NESTING = 20
_DEEP = re.compile(rf"^[ \t]*(?:(?:>|[-*+]|\d{{1,9}}[.)])[ \t]*){{{_NESTING - 4},}}", re.MULTILINE)
"""Lines that open many containers at once go straight to the fallback. Linear: a marker
must follow each run of blanks, so the engine never has two ways to split a line."""
_NOT_PLAIN = re.compile(
    r"[\\`*_\[\]<&~|\x00-\x08\x0b-\x1f\x7f]"  # inline syntax, entities, controls, CR
    r"|[^\S \n]"  # other whitespace: tabs, and Unicode spaces markdown-it strips
    r"|^(?:[ \t\-+#>=]|\d+[.)])"  # indented code, lists, headings, quotes, setext lines
    r"|[ \t]$",  # hard breaks
    re.MULTILINE,
)
"""Anything that could make markdown-it do more than paragraphs: text without it is
rendered by :func:`_plain_paragraphs`, exactly as markdown-it would (a property test checks)."""
_BLANK_LINES = re.compile(r"\n{2,}")
_MAY_LOSE = re.compile(r"[\[&|]")
_FENCE_INFO = re.compile(r"^[ \t]*(?:`{3,}|~{3,})([^\n]*)", re.MULTILINE)
"""What can make markdown-it drop words short of deep nesting: link reference definitions
(``[r]: url`` shows nothing), entities (``&copy;``), table rows with more cells than the
header (``_MAY_LOSE``), and the words after the language in a code fence's info string
(``_FENCE_INFO``: the info is split in Python, so a line of 100,000 backticks is one match,
not a backtracking search)."""
_DELIMITER_CHARS = frozenset("|:- \t")
_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]{1,999}\]:[^\n]*", re.MULTILINE)
MAX_EXPANSION = 20
"""Rendered markdown may be this many times its text (plus a little): past that — tables
that fill thousands of empty cells, one long link definition used thousands of times — it
is shown as plain text, so a page grows linearly with its session."""


def _fence(code: str, lang: str, _attrs: str) -> str:
    return highlight_block(code, lang.split()[0] if lang.strip() else "", budget=page_budget.get())


_md = MarkdownIt("js-default", {"highlight": _fence, "linkify": False, "typographer": False})
_md.enable(["table", "strikethrough"])


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    title = token.attrGet("title")
    if title:  # a tooltip is text the reader sees: no hidden characters in it either
        token.attrSet("title", plain_controls(str(title)))
    if not _SAFE_HREF.match(href):
        token.attrs.pop("href", None)
        token.tag = "span"
        token.attrSet("class", "nolink")
        if token.info != "auto":  # an autolink's text is its target already
            token.meta["target"] = href
        return self.renderToken(tokens, idx, options, env)
    token.attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, idx, options, env)


def _link_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # find the matching opener: a demoted link closes as </span>
    depth = 0
    for j in range(idx - 1, -1, -1):
        t = tokens[j]
        if t.type == "link_close":
            depth += 1
        elif t.type == "link_open":
            if depth == 0:
                if t.tag != "span":
                    return "</a>"
                # the target of a link we do not make live stays readable, as text
                target = t.meta.get("target")
                if not target:
                    return "</span>"
                return f'</span> <span class="nolink-target">({_shown(target)})</span>'
            depth -= 1
    return "</a>"


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env)
    if _DATA_IMAGE.match(src):
        return f'<img src="{escape(src)}" alt="{escape(plain_controls(alt))}">'
    if src.lower().startswith(("http://", "https://")):
        return (
            f'<a href="{escape(src)}" rel="noopener noreferrer nofollow" class="remote-image">'
            f"[image: {_shown(alt or src)}]</a>"
        )
    where = f"{alt} ({src})" if alt and src else (alt or src)
    return f'<span class="nolink">[image: {_shown(where)}]</span>'


def _shown(text: str) -> str:
    """Text for an element's content: escaped, hidden characters made visible."""
    return reveal_controls(str(escape(text)))


def _text(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    return reveal_controls(escapeHtml(tokens[idx].content))


def _code_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    body = reveal_controls(escapeHtml(token.content))
    return f"<code{self.renderAttrs(token)}>{body}</code>"


def _cell_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    """Table alignment as a class: the CSP allows no style attributes."""
    token = tokens[idx]
    style = str(token.attrGet("style") or "")
    token.attrs.pop("style", None)
    for align in ("left", "center", "right"):
        if style == f"text-align:{align}":
            token.attrSet("class", f"align-{align}")
    return self.renderToken(tokens, idx, options, env)


_md.add_render_rule("th_open", _cell_open)
_md.add_render_rule("td_open", _cell_open)
_md.add_render_rule("link_open", _link_open)
_md.add_render_rule("link_close", _link_close)
_md.add_render_rule("image", _image)
# Bidi controls and invisible characters in text are shown as marks (textsafe); code
# blocks get the same from highlight_block.
_md.add_render_rule("text", _text)
_md.add_render_rule("code_inline", _code_inline)
# markdown-it refuses javascript:/vbscript:/file:/data: itself; we allow a little more
# through to our own check, which is stricter, so the link text is never lost.
_md.validateLink = lambda url: True  # type: ignore[method-assign]


def render_markdown(text: str) -> str:
    """Markdown → an HTML fragment that cannot run script, load anything, or lose text."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_MARKDOWN:
        return _fallback(text)
    if not _NOT_PLAIN.search(text):  # most thinking and user text: paragraphs and no more
        return _plain_paragraphs(text)
    if _DEEP.search(text) or text.count("[") > MAX_BRACKETS or _expands(text):
        return _fallback(text)
    # markdown-it is pure Python over hostile text: every shape found slow is screened out
    # above, by counting; for a shape not yet found, a hang guard far above any ordinary need
    done = bounded(markdown_seconds(len(text)), _render_once, text, what=_stop_line(text))
    if done is None:  # the guard stopped it: said on the page and in the run's warnings
        return f'<p class="md-stopped">[{STOPPED}]</p>' + _fallback(text)
    html = done[0]
    if html is None or len(html) > MAX_EXPANSION * len(text) + 10_000:
        return _fallback(text)
    return html


STOPPED = "shown as text: the Markdown renderer was stopped"
"""Written on the page where a text the hang guard stopped is."""


def markdown_seconds(chars: int) -> float:
    """The hang guard for one text, in CPU seconds: ten, and one per 1,000 characters.
    markdown-it renders well over 1 MB a second of prose, and 200 KB of the densest syntax:
    this is hundreds of times what ordinary text needs (and more than the code blocks in it
    may take, each under its own guard), so only a superlinear path reaches it."""
    return 10.0 + chars / 1_000


def _stop_line(text: str) -> str:
    return f"text of {len(text):,} characters: {STOPPED}"


def _render_once(text: str) -> tuple[str | None]:
    """:func:`_render`, in a tuple: None from the guard is then told from None from here."""
    return (_render(text),)


def _render(text: str) -> str | None:
    env: EnvType = {}
    tokens = _md.parse(text, env)
    html = str(_md.renderer.render(tokens, _md.options, env))
    # markdown-it silently drops the rest of a text once its containers nest maxNesting
    # deep, and a few constructs drop words of their own (see _MAY_LOSE). Then, if any word
    # of the input is missing from the output, show the text as it was instead.
    deep = max((t.level for t in tokens), default=0) >= _md.options.maxNesting - 2
    if (deep or _may_lose(text)) and not set(_WORD.findall(text)) <= set(_WORD.findall(html)):
        return None
    return html


def _may_lose(text: str) -> bool:
    if _MAY_LOSE.search(text):
        return True
    return any(len(m.group(1).split()) > 1 for m in _FENCE_INFO.finditer(text))


def _expands(text: str) -> bool:
    """Whether markdown-it would build far more than the text holds: table rows it fills
    with empty cells up to the header's width, or a long link definition used many times.
    Checked before parsing: markdown-it's own cap is 65,536 made-up cells per table."""
    cells = 0
    if "|" in text and "-" in text:
        lines = text.split("\n")
        width = 0
        for i, line in enumerate(lines):
            if width and line.strip():
                cells += width  # a body row, filled to the header's width
            elif width:
                width = 0  # a blank line ends the table
            elif i and "-" in line and _DELIMITER_CHARS.issuperset(line):
                width = lines[i - 1].count("|") + 1
    if "]:" in text:
        longest = max((len(m.group(0)) for m in _DEFINITION.finditer(text)), default=0)
        cells += longest * text.count("[")
    return cells > MAX_EXPANSION * len(text) + 10_000


def _plain_paragraphs(text: str) -> str:
    """What markdown-it makes of text with no markdown syntax (see ``_NOT_PLAIN``): a
    paragraph per run of lines, escaped the way markdown-it escapes (no ``'``)."""
    out = []
    for para in _BLANK_LINES.split(text.strip("\n")):
        if para:
            escaped = para.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            out.append("<p>" + reveal_controls(escaped.replace('"', "&quot;")) + "</p>\n")
    return "".join(out)


def _fallback(text: str) -> str:
    return f'<pre class="md-fallback">{_shown(text)}</pre>'


def render_markdown_any(value: Any) -> str:
    return render_markdown(value if isinstance(value, str) else str(value))

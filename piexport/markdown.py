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
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import escape

from .highlight import highlight_block, page_budget

MAX_MARKDOWN = 1_000_000
"""Bigger texts are shown as plain text: markdown cost grows fast on hostile input."""
_SAFE_HREF = re.compile(r"^(https?://|mailto:|#)", re.IGNORECASE)
_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$")
_WORD = re.compile(r"[^\W\d_]\w*")  # words with a letter: list numbers do not survive
MAX_BRACKETS = 5000
"""More "[" than this make markdown-it's link scanner slow (50,000 take seconds)."""
_NESTING = 20  # markdown-it's maxNesting for js-default is 20 ("> " * 150 would vanish)
_DEEP = re.compile(rf"^(?:[ \t]*(?:>|[-*+]|\d+[.)])[ \t]*){{{_NESTING - 4},}}", re.MULTILINE)


def _fence(code: str, lang: str, _attrs: str) -> str:
    return highlight_block(code, lang.split()[0] if lang.strip() else "", budget=page_budget.get())


_md = MarkdownIt("js-default", {"highlight": _fence, "linkify": False, "typographer": False})
_md.enable(["table", "strikethrough"])


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    if not _SAFE_HREF.match(href):
        token.attrs.pop("href", None)
        token.tag = "span"
        token.attrSet("class", "nolink")
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
                return "</span>" if t.tag == "span" else "</a>"
            depth -= 1
    return "</a>"


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    src = str(token.attrGet("src") or "")
    alt = self.renderInlineAsText(token.children or [], options, env)
    if _DATA_IMAGE.match(src):
        return f'<img src="{escape(src)}" alt="{escape(alt)}">'
    if src.lower().startswith(("http://", "https://")):
        return (
            f'<a href="{escape(src)}" rel="noopener noreferrer nofollow" class="remote-image">'
            f"[image: {escape(alt or src)}]</a>"
        )
    return f'<span class="nolink">[image: {escape(alt or src)}]</span>'


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
# markdown-it refuses javascript:/vbscript:/file:/data: itself; we allow a little more
# through to our own check, which is stricter, so the link text is never lost.
_md.validateLink = lambda url: True  # type: ignore[method-assign]


def render_markdown(text: str) -> str:
    """Markdown → an HTML fragment that cannot run script, load anything, or lose text."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_MARKDOWN or _DEEP.search(text) or text.count("[") > MAX_BRACKETS:
        return _fallback(text)
    html = str(_md.render(text))
    # markdown-it silently drops text nested past maxNesting: if any word of the input is
    # missing from the output, show the text as it was instead.
    if not set(_WORD.findall(text)) <= set(_WORD.findall(html)):
        return _fallback(text)
    return html


def _fallback(text: str) -> str:
    return f'<pre class="md-fallback">{escape(text)}</pre>'


def render_markdown_any(value: Any) -> str:
    return render_markdown(value if isinstance(value, str) else str(value))

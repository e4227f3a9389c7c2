"""Syntax highlighting with Pygments, within a size cap and a time budget per page.

Lexers are picked by name or file name, never guessed. Past the caps, code is escaped plain
text: a page must never hang on a pathological block.
"""

from __future__ import annotations

import hashlib
import time
from contextvars import ContextVar
from functools import lru_cache

from markupsafe import escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from .textsafe import reveal_controls

MAX_HIGHLIGHT = 200_000
"""Blocks larger than this (characters) are not highlighted."""
_FORMATTER = HtmlFormatter(nowrap=True)


class HighlightBudget:
    """How much highlighting one page may do; after that, plain escaped text.

    Counted in characters, so the same session gives the same page on any machine; the
    seconds are a safety net for a lexer that crawls on some input, set well above what
    the characters take (about a second) so that a busy machine does not change the page."""

    def __init__(self, chars: int = 400_000, seconds: float = 6.0) -> None:
        self.chars = chars
        self.seconds = seconds
        self.seen: set[tuple[bytes, str]] = set()
        """Blocks this page has coloured already: a repeat is free."""

    @property
    def left(self) -> bool:
        return self.chars > 0 and self.seconds > 0

    def spend(self, chars: int, seconds: float) -> None:
        self.chars -= chars
        self.seconds -= seconds


page_budget: ContextVar[HighlightBudget | None] = ContextVar("page_budget", default=None)
"""The budget of the page being rendered, for highlighting reached through markdown (its
fence callback has no other way to get it)."""


@lru_cache(maxsize=512)
def lexer_by_name(name: str) -> Lexer | None:
    if not name or len(name) > 40:
        return None
    try:
        return get_lexer_by_name(name.lower(), stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=2048)
def lexer_for_path(path: str) -> Lexer | None:
    name = path.replace("\\", "/").rsplit("/", 1)[-1][:200]
    try:
        return get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


_cache: dict[tuple[bytes, str], str] = {}
"""Highlighted blocks by content: agents read the same file again and again, and a site's
pages share files. Saves the work only: each page's budget is charged as if it were new."""


def highlight_code(code: str, lexer: Lexer | None, budget: HighlightBudget | None = None) -> str:
    """Escaped, highlighted HTML for code (no wrapper); plain when over a cap."""
    if lexer is None or len(code) > MAX_HIGHLIGHT or (budget is not None and not budget.left):
        return reveal_controls(str(escape(code)))
    key = (
        hashlib.blake2b(code.encode("utf-8", "surrogatepass"), digest_size=16).digest(),
        lexer.name,
    )
    # The page is charged once per block whether or not this process has coloured it
    # before (for another page of a site, say): what a page shows depends on the page alone.
    charge = 0
    if budget is not None and key not in budget.seen:
        budget.seen.add(key)
        charge = len(code)
    hit = _cache.get(key)
    if hit is not None:
        if budget is not None:
            budget.spend(charge, 0.0)
        return hit
    start = time.perf_counter()
    out = reveal_controls(str(highlight(code, lexer, _FORMATTER)))
    if budget is not None:
        budget.spend(charge, time.perf_counter() - start)
    if len(_cache) < 4096:
        _cache[key] = out
    return out


def highlight_block(
    code: str, lang: str = "", *, path: str | None = None, budget: HighlightBudget | None = None
) -> str:
    """A ``<pre>`` block; the language comes from a name or a file path, never a guess."""
    lexer = lexer_for_path(path) if path else lexer_by_name(lang)
    body = highlight_code(code, lexer, budget)
    from .redact import shorten  # here: redact imports parallel, which imports this module

    tag = f' data-lang="{escape(shorten(lang, 40, ""))}"' if lang else ""
    return f'<pre class="hl"{tag}><code>{body}</code></pre>\n'


def style_css() -> str:
    """Pygments colours for the light theme and, under ``.dark``, the dark one."""
    light = str(HtmlFormatter(style="default").get_style_defs(".hl"))
    dark = str(HtmlFormatter(style="monokai").get_style_defs(":root.dark .hl"))
    return light + "\n" + dark

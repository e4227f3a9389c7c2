"""Syntax highlighting with Pygments, within a size cap and a time budget per page.

Lexers are picked by name or file name, never guessed. Past the caps, code is escaped plain
text: a page must never hang on a pathological block. Some of Pygments' lexers backtrack for
minutes on a few kilobytes (a systemd unit with a long run of spaces, Easytrieve with tabs),
so each block is coloured under a hard time limit (:mod:`deadline`, or a child process that
is killed where no timer can stop the work) and shown plain when it runs out.
"""

from __future__ import annotations

import atexit
import fnmatch
import hashlib
import re
import time
from collections.abc import Callable
from contextvars import ContextVar
from functools import cache, lru_cache
from typing import Any

from markupsafe import escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class
from pygments.lexers._mapping import LEXERS

from ..deadline import bounded, can_stop
from ..text.cut import shorten
from ..text.textsafe import reveal_controls
from . import colourcache
from .lexing import faster

MAX_HIGHLIGHT = 200_000
"""Blocks larger than this (characters) are not highlighted."""
_FORMATTER = HtmlFormatter(nowrap=True)


def block_seconds(chars: int) -> float:
    """How long one block may take to colour: ten times what Pygments' slowest common
    lexers need (about 250 KB/s), and half a second more than that, so that only a lexer
    gone superlinear ever reaches it (ordinary blocks take milliseconds)."""
    return 0.5 + chars / 25_000


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
    found = lexer_class_by_name(name.lower())
    return faster(found(stripnl=False, ensurenl=False)) if found is not None else None


@lru_cache(maxsize=2048)
def lexer_for_path(path: str) -> Lexer | None:
    name = path.replace("\\", "/").rsplit("/", 1)[-1][:200]
    found = lexer_class_for_filename(name)
    return faster(found(stripnl=False, ensurenl=False)) if found is not None else None


# Pygments' own lookups (get_lexer_by_name, get_lexer_for_filename) walk all of its ~600
# lexers each time, and the file-name one compiles each of their ~930 glob patterns to a
# regex on first use (most of a small page's lookups). These give the same lexer from an
# index of the same table, built once per process, and import only the lexers a page uses.
#
# Only Pygments' own lexers: not those other installed packages add as plugins. Session text
# is hostile and bench/lexers.py fuzzes Pygments' lexers for it; a plugin is whatever code
# happens to be installed, and finding plugins means importing importlib.metadata and reading
# every installed distribution's entry points in each process (a tenth of a small page's
# work). A page now depends on piexport's and Pygments' versions alone.

_Pattern = tuple[int, str, str]
"""(position in Pygments' order of lexers and their patterns, lexer name, glob)."""


@cache
def _by_alias() -> dict[str, str]:
    """Each alias's lexer: the first in Pygments' table that lists it, as it looks."""
    index: dict[str, str] = {}
    for _module, name, aliases, _files, _mimes in LEXERS.values():
        for alias in aliases:
            index.setdefault(alias, name)
    return index


@cache
def _by_filename() -> tuple[dict[str, list[_Pattern]], dict[str, list[_Pattern]], list[_Pattern]]:
    """Pygments' file name patterns: exact names, ``*.suffix`` by suffix, and the rest."""
    exact: dict[str, list[_Pattern]] = {}
    suffix: dict[str, list[_Pattern]] = {}
    other: list[_Pattern] = []
    order = 0
    for _module, name, _aliases, globs, _mimes in LEXERS.values():
        for glob in globs:
            entry = (order, name, glob)
            order += 1
            if not _WILD.search(glob):
                exact.setdefault(glob, []).append(entry)
            elif glob.startswith("*.") and not _WILD.search(glob, 2):
                suffix.setdefault(glob[2:], []).append(entry)
            else:
                other.append(entry)
    return exact, suffix, other


_WILD = re.compile(r"[*?[]")
"""What makes a glob more than a literal name (fnmatch's only special characters)."""


@cache
def _glob(pattern: str) -> Callable[[str], Any]:
    return re.compile(fnmatch.translate(pattern)).match


def lexer_class_by_name(alias: str) -> type[Lexer] | None:
    """``pygments.lexers.get_lexer_by_name``'s choice among Pygments' own lexers."""
    name = _by_alias().get(alias)
    return find_lexer_class(name) if name is not None else None


def lexer_class_for_filename(filename: str) -> type[Lexer] | None:
    """``pygments.lexers.find_lexer_class_for_filename``'s choice among Pygments' own lexers
    (without code to look at): every lexer with a pattern the name matches, in Pygments'
    order; the highest priority wins, a pattern without ``*`` counting half a point more."""
    exact, suffix, other = _by_filename()
    found = list(exact.get(filename, ()))
    dot = filename.find(".")
    while dot != -1:  # ``*.x.y`` matches a name that ends in ``.x.y``, whatever is before
        found += suffix.get(filename[dot + 1 :], ())
        dot = filename.find(".", dot + 1)
    found += [entry for entry in other if _glob(entry[2])(filename)]
    found.sort()
    matches: list[tuple[type[Lexer], str]] = [(find_lexer_class(n), g) for _, n, g in found]
    if not matches:
        return None
    matches.sort(key=lambda m: (m[0].priority + (0 if "*" in m[1] else 0.5), m[0].__name__))
    return matches[-1][0]


_cache: dict[tuple[bytes, str], str] = {}
"""Highlighted blocks by content: agents read the same file again and again, and a site's
pages share files. Saves the work only: each page's budget is charged as if it were new."""


def highlight_code(code: str, lexer: Lexer | None, budget: HighlightBudget | None = None) -> str:
    """Escaped, highlighted HTML for code (no wrapper); plain when over a cap."""
    if lexer is None or len(code) > MAX_HIGHLIGHT or (budget is not None and not budget.left):
        return reveal_controls(str(escape(code)))
    key = _key(code, lexer)
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
    coloured = colourcache.load(code, lexer.name)  # by an earlier run or another process
    if coloured is not None:
        if budget is not None:
            budget.spend(charge, 0.0)
    else:
        start = time.perf_counter()
        coloured = _colour(code, lexer, block_seconds(len(code)))
        if budget is not None:
            budget.spend(charge, time.perf_counter() - start)
        if coloured is None:  # ran out of time: plain, and not cached (another page may differ)
            return reveal_controls(str(escape(code)))
        colourcache.store(code, lexer.name, coloured)
    out = reveal_controls(coloured)
    if len(_cache) < 4096:
        _cache[key] = out
    return out


def _key(code: str, lexer: Lexer) -> tuple[bytes, str]:
    return (
        hashlib.blake2b(code.encode("utf-8", "surrogatepass"), digest_size=16).digest(),
        lexer.name,
    )


def is_cached(code: str, lexer: Lexer) -> bool:
    """Whether this process holds the block coloured already."""
    return _key(code, lexer) in _cache


def colour_only(code: str, lexer: Lexer) -> str | None:
    """Pygments' HTML for a block, from the disk cache or coloured (and then stored), under
    the block's time limit; None when it runs out. Charges no budget: for colouring ahead."""
    coloured = colourcache.load(code, lexer.name)
    if coloured is None:
        coloured = _colour(code, lexer, block_seconds(len(code)))
        if coloured is not None:
            colourcache.store(code, lexer.name, coloured)
    return coloured


def remember(code: str, lexer: Lexer, coloured: str) -> None:
    """Keep a block coloured elsewhere (by ``colour_only`` in a worker) as if coloured here."""
    if len(_cache) < 4096:
        _cache[_key(code, lexer)] = reveal_controls(coloured)


def _highlight(code: str, lexer: Lexer) -> str:
    return str(highlight(code, lexer, _FORMATTER))


_warm: set[type[Lexer]] = set()
"""Lexers that have coloured a block in this process: their rules (and those of the lexers
they call, like CSS inside HTML) are compiled, which on first use can take longer than a
small block's limit on a busy machine."""


def _colour(code: str, lexer: Lexer, seconds: float) -> str | None:
    """Pygments' HTML for code, or None when it takes longer than ``seconds`` (twice, the
    first time a lexer runs: compiling its rules is not the block's time)."""
    if not can_stop():
        return _colour_in_child(code, lexer, seconds)
    out = bounded(seconds, _highlight, code, lexer)
    if out is None and type(lexer) not in _warm:
        out = bounded(seconds, _highlight, code, lexer)
    _warm.add(type(lexer))
    return out


_pool: Any = None
"""A one-process pool for colouring where no timer can stop a block (not the main thread,
or no ``SIGALRM``): a block that runs out of time is stopped by ending the process."""


def _colour_in_child(code: str, lexer: Lexer, seconds: float) -> str | None:
    global _pool
    import multiprocessing  # here: most pages never need it

    if _pool is None:
        _pool = multiprocessing.get_context("spawn").Pool(1)  # no fork from a thread
        atexit.register(_pool.terminate)
        # start-up (a fresh interpreter importing Pygments) is not the block's time
        _pool.apply(_highlight_with, (type(lexer), ""))
    # a lexer instance does not pickle whole (its token tables are built lazily): its class does
    pending = _pool.apply_async(_highlight_with, (type(lexer), code))
    try:
        return str(pending.get(seconds))
    except multiprocessing.TimeoutError:
        _pool.terminate()
        _pool = None
        return None
    except Exception:  # the lexer failed in the child: plain text, as for any other failure
        return None


def _highlight_with(lexer_class: type[Lexer], code: str) -> str:
    return _highlight(code, lexer_class(stripnl=False, ensurenl=False))


def highlight_block(
    code: str, lang: str = "", *, path: str | None = None, budget: HighlightBudget | None = None
) -> str:
    """A ``<pre>`` block; the language comes from a name or a file path, never a guess."""
    lexer = lexer_for_path(path) if path else lexer_by_name(lang)
    body = highlight_code(code, lexer, budget)
    tag = f' data-lang="{escape(shorten(lang, 40, ""))}"' if lang else ""
    return f'<pre class="hl"{tag}><code>{body}</code></pre>\n'


def style_css() -> str:
    """Pygments colours for the light theme and, under ``.dark``, the dark one."""
    light = str(HtmlFormatter(style="default").get_style_defs(".hl"))
    dark = str(HtmlFormatter(style="monokai").get_style_defs(":root.dark .hl"))
    return light + "\n" + dark

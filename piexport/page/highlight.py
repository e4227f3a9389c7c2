"""Syntax highlighting with Pygments, within counted caps per block and per page.

Lexers are picked by name or file name, never guessed. Past the caps, code is escaped plain
text: a page must never hang on a pathological block. What is coloured is decided by counting
alone (characters per block and per page, runs of blanks and of one character), so the same
session gives the same page on any machine. Some of Pygments' lexers backtrack for minutes on
a few kilobytes (a systemd unit with a long run of spaces, Easytrieve with tabs, C++ with
thousands of blank lines): every shape found so far is a long run, and a block with one is
shown plain (:func:`colourable`). For a shape not yet found, each block is coloured under a
hang guard (:mod:`deadline`, or a child process that is ended where no timer can stop the
work) far above what any ordinary block needs; when it fires, the block says so on the page,
the page's run warns, and the rest of that page is shown plain.
"""

from __future__ import annotations

import atexit
import fnmatch
import hashlib
import re
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

from ..deadline import bounded, can_stop, record_stop
from ..text.cut import shorten
from ..text.textsafe import reveal_controls
from ..workers import spawn_pool
from . import colourcache
from .lexing import faster

MAX_HIGHLIGHT = 200_000
"""Blocks larger than this (characters) are not highlighted."""
MAX_BLANK_RUN = 256
"""Blocks with this many blank characters in a row (spaces, tabs, newlines, in any mix) are
not highlighted: the lexers bench/lexers.py found superlinear slow down on such runs (the
systemd lexer is cubic in a run of spaces: 60 ms at 250, minutes at 4,000)."""
MAX_CHAR_RUN = 1_000
"""Nor are blocks with a run of this many of one character (quotes, brackets, stars)."""
_FORMATTER = HtmlFormatter(nowrap=True)
_BLANK_RUN = re.compile(rf"(?<!\s)\s{{{MAX_BLANK_RUN}}}")
"""Tried only where a run of blanks begins, so a search is linear in the block."""
_CHAR_RUN = re.compile(r"(.)\1{31}", re.DOTALL)
"""Runs of 32 of one character, found one after another: a longer run is several in a row."""
STOPPED = "not coloured: the colourer was stopped"
"""Written on the page where a block the hang guard stopped is (it never stops an ordinary
block; see :func:`block_seconds`)."""
_STOPPED_NOTE = f'<span class="hl-stopped">[{STOPPED}]</span> '


def block_seconds(chars: int) -> float:
    """The hang guard for one block, in CPU seconds: five, and a second per 2,000 characters.
    Pygments' slowest common lexers colour 250 KB a second (Python: 700 KB), so this is over a
    hundred times what an ordinary block takes: a machine 50 times slower still colours it
    the same. Only a lexer gone superlinear ever reaches it."""
    return 5.0 + chars / 2_000


def colourable(code: str) -> bool:
    """Whether a block may be coloured: no longer than :data:`MAX_HIGHLIGHT`, no run of
    :data:`MAX_BLANK_RUN` blanks, none of :data:`MAX_CHAR_RUN` of one character. Counted
    (linear in the block), never timed."""
    if len(code) > MAX_HIGHLIGHT or _BLANK_RUN.search(code):
        return False
    run, char, end = 0, "", -1
    for m in _CHAR_RUN.finditer(code):
        if m.start() == end and m.group(1) == char:
            run += 32
        else:
            run, char = 32, m.group(1)
        end = m.end()
        if run >= MAX_CHAR_RUN:
            return False
    return True


class HighlightBudget:
    """How much highlighting one page may do; after that, plain escaped text.

    Counted in characters, so the same session gives the same page on any machine. Should
    the hang guard stop a block (:data:`STOPPED`), the rest of the page is plain too: a
    hostile page pays for one stopped block, not for each of its blocks."""

    def __init__(self, chars: int = 400_000) -> None:
        self.chars = chars
        self.stopped = False
        self.seen: set[tuple[bytes, str]] = set()
        """Blocks this page has coloured already: a repeat is free."""

    @property
    def left(self) -> bool:
        return self.chars > 0 and not self.stopped

    def spend(self, chars: int) -> None:
        self.chars -= chars


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
    if lexer is None or (budget is not None and not budget.left) or not colourable(code):
        return reveal_controls(str(escape(code)))
    key = _key(code, lexer)
    # The page is charged once per block whether or not this process has coloured it
    # before (for another page of a site, say): what a page shows depends on the page alone.
    if budget is not None and key not in budget.seen:
        budget.seen.add(key)
        budget.spend(len(code))
    hit = _cache.get(key)
    if hit is not None:
        return hit
    coloured = colourcache.load(code, lexer.name)  # by an earlier run or another process
    if coloured is None:
        coloured = _colour(code, lexer)
        if coloured is None:  # the hang guard stopped it: said on the page, and not cached
            if budget is not None:
                budget.stopped = True
            return _STOPPED_NOTE + reveal_controls(str(escape(code)))
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
    the hang guard; None when it is not colourable or the guard stops it (the page's own
    process then tries it again, and reports the stop). Charges no budget: for colouring
    ahead."""
    if not colourable(code):
        return None
    coloured = colourcache.load(code, lexer.name)
    if coloured is None:
        coloured = _colour(code, lexer, report=False)
        if coloured is not None:
            colourcache.store(code, lexer.name, coloured)
    return coloured


def remember(code: str, lexer: Lexer, coloured: str) -> None:
    """Keep a block coloured elsewhere (by ``colour_only`` in a worker) as if coloured here."""
    if len(_cache) < 4096:
        _cache[_key(code, lexer)] = reveal_controls(coloured)


def _highlight(code: str, lexer: Lexer) -> str:
    return str(highlight(code, lexer, _FORMATTER))


def _colour(code: str, lexer: Lexer, report: bool = True) -> str | None:
    """Pygments' HTML for code, or None when the hang guard stops it (:func:`block_seconds`
    of CPU time; recorded for the page's run unless ``report`` is false)."""
    seconds = block_seconds(len(code))
    what = f"{lexer.name} block of {len(code):,} characters: {STOPPED}"
    if not can_stop():
        out = _colour_in_child(code, lexer, seconds)
        if out is None and report:
            record_stop(what)
        return out
    return bounded(seconds, _highlight, code, lexer, what=what if report else "")


_pool: Any = None
"""A one-process pool for colouring where no timer can stop a block here (not the main
thread, or no ``SIGPROF``): the child bounds the block by its own CPU time where it can, and
a block that still runs far past that is stopped by ending the process."""


def _colour_in_child(code: str, lexer: Lexer, seconds: float) -> str | None:
    global _pool
    import multiprocessing  # here: most pages never need it

    if _pool is None:
        _pool = spawn_pool()  # no fork from a thread
        atexit.register(_pool.terminate)
    # a lexer instance does not pickle whole (its token tables are built lazily): its class does
    pending = _pool.apply_async(_highlight_bounded, (type(lexer), code, seconds))
    try:
        # the child's own CPU bound decides; this wait is for a child that cannot time
        # itself (no SIGPROF) or never gets to run: generous, as a loaded machine needs
        out = pending.get(60 + 20 * seconds)
    except multiprocessing.TimeoutError:
        _pool.terminate()
        _pool = None
        return None
    except Exception:  # the lexer failed in the child: plain text, as for any other failure
        return str(escape(code))
    return None if out is None else str(out)


def _highlight_bounded(lexer_class: type[Lexer], code: str, seconds: float) -> str | None:
    return bounded(seconds, _highlight_with, lexer_class, code)


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

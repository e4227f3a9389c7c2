"""Colour a page's biggest blocks in worker processes before the page is rendered.

The page's own process colours its blocks in order until the page's budget is spent (see
:mod:`parallel`), so on a big page it colours for most of its time while the workers that
render the rest have long finished. Before that, the files the session read and wrote (nearly
all of what a page colours) are coloured here by forked workers, in the order the page shows
them and only as far as the budget could reach; the results go into ``highlight``'s cache of
coloured blocks. The page is then rendered exactly as before: a block found in the cache is
charged to the budget as if coloured there, so the page is the same byte for byte, whatever
was or was not coloured ahead (a block guessed wrong is only work lost).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pygments.lexer import Lexer

from ..read.model import content_text
from ..read.tooloutput import split_notice
from ..workers import forked_map
from .highlight import colour_only, colourable, is_cached, lexer_for_path, remember
from .view import SessionView

MIN_CHARS = 1_000
"""Smaller blocks are coloured faster in the page's process than sent back from a worker."""


def _blocks(view: SessionView) -> list[tuple[str, str]]:
    """(code, path) of each file the page shows as a file (read results, written files), in
    the order of the file's entries, with the text the page's template gives the colouring."""
    out: list[tuple[str, str]] = []
    for e in view.session.entries:
        for block in e.tool_calls():
            args = block.get("arguments")
            args = args if isinstance(args, Mapping) else {}
            name, path = block.get("name"), str(args.get("path"))
            if name == "write":
                out.append((str(args.get("content", "")), path))
                continue
            result = view.result_for(e.id, block.get("id")) if name == "read" else None
            msg = result.message if result is not None else None
            if msg is None or msg.get("isError") is True:
                continue
            parts = msg.get("content")
            if isinstance(parts, list) and any(
                isinstance(p, Mapping) and p.get("type") == "image" for p in parts
            ):
                continue
            out.append((split_notice(content_text(parts))[0], path))
    return out


def predicted(view: SessionView, chars: int) -> list[tuple[str, Lexer]]:
    """The blocks worth colouring ahead: big enough, colourable (``highlight``), with a lexer,
    not coloured yet, and within the first ``chars`` characters the page may colour."""
    chosen: list[tuple[str, Lexer]] = []
    seen: set[tuple[str, str]] = set()
    for code, path in _blocks(view):
        if chars <= 0:
            break
        lexer = lexer_for_path(path)
        if lexer is None or (code, lexer.name) in seen or not colourable(code):
            continue
        seen.add((code, lexer.name))
        chars -= len(code)
        if len(code) >= MIN_CHARS and not is_cached(code, lexer):
            chosen.append((code, lexer))
    return chosen


def prefetch(view: SessionView, chars: int, workers: int) -> int:
    """Colour ahead, in ``workers`` forked processes; returns how many blocks were coloured."""
    if workers <= 1 or chars <= 0:
        return 0
    blocks = predicted(view, chars)
    if len(blocks) < 2:
        return 0

    def colour(i: int) -> Any:
        code, lexer = blocks[i]
        return colour_only(code, lexer)

    done = 0
    for (code, lexer), html in zip(blocks, forked_map(colour, len(blocks), workers), strict=True):
        if html is not None:
            remember(code, lexer, html)
            done += 1
    return done

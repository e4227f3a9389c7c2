"""Each page's script, assembled from the parts in ``static/js/`` it uses.

A page stays one self-contained file: its script is inline, and the CSP lets exactly that
script run (``render.py`` hashes what this returns). The parts are plain, commented
JavaScript; a page type gets those it uses (an index page has no branch comparison, the
search page no transcript code), always in the order of ``PARTS``, inside one function, after
``PIEXPORT``: the constants the parts take from Python (a JSON object), so no table is
written twice. The parts meet through the hooks ``core.js`` declares.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Any

from ..text.fold import NOSPACE_RANGES
from .assets import read_static

PARTS = (
    "core",  # the hooks the parts meet through: buttons, clicks, keys, links to places
    "dom",  # small shared helpers: el(), openAncestors(), param()
    "theme",
    "fold",  # case and accent folding (as text/fold.py), shared by landing, find and search
    "trusted",  # the one Trusted Types policy, "piexport"
    "lazy",  # a big transcript's waiting parts, built on demand
    "branches",
    "landing",  # a search result's words marked in its entry
    "follow",  # the session tree follows the reading position
    "filters",  # the view filters (prompts only, errors only, no tool output)
    "anchors",  # a link to a place in the page: opened and scrolled to
    "compare",  # two branches side by side
    "find",  # the session page's own search box
    "site-search",  # the archive's search box in a site's trail
    "copy",
    "keys",  # the keyboard help popover, ? and Esc
    "keyboard",  # j/k, e/c and the expand/collapse buttons
    "print",
    "tables",  # filter and sort the index pages' tables
    "live",  # a page served by piexport serve follows its file
    "live-session",
    "live-index",
    "search",  # the archive's search page
)
"""Every part, in the order a page's script holds them."""

PAGES: dict[str, frozenset[str]] = {
    "session": frozenset(
        {
            *("core", "dom", "theme", "fold", "trusted", "lazy", "branches", "landing"),
            *("follow", "filters", "anchors", "compare", "find", "site-search", "copy"),
            *("keys", "keyboard", "print"),
        }
    ),
    "index": frozenset({"core", "dom", "theme", "anchors", "site-search", "print", "tables"}),
    "plain": frozenset({"core", "dom", "theme", "anchors", "site-search", "print"}),
    "search": frozenset({"core", "dom", "theme", "fold", "anchors", "print", "search"}),
}
"""The parts of each type of page's script."""

LIVE: dict[str, frozenset[str]] = {
    "session": frozenset({"trusted", "live", "live-session"}),
    "index": frozenset({"trusted", "live", "live-index"}),
}
"""What a page served by ``piexport serve`` adds (the other types are never served live)."""

TEMPLATES = {
    "session.html.j2": "session",
    "index.html.j2": "index",
    "project.html.j2": "index",
    "sessions.html.j2": "index",
    "plain.html.j2": "plain",
    "search.html.j2": "search",
}
"""The type of page each page template makes."""


def page_parts(kind: str, live: bool = False) -> list[str]:
    """The parts of a ``kind`` page's script, in order."""
    chosen = PAGES[kind] | (LIVE[kind] if live else frozenset())
    return [p for p in PARTS if p in chosen]


def constants(parts: list[str], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What the parts read from ``PIEXPORT``: the fold part, the scripts written without
    spaces; the search part, search's limits (given by the caller: search/ is above page/)."""
    out: dict[str, Any] = {}
    if "fold" in parts:
        out["nospace"] = [list(r) for r in NOSPACE_RANGES]
    out.update(extra or {})
    return out


def page_script(kind: str, live: bool = False, extra: Mapping[str, Any] | None = None) -> str:
    """The inline script of a ``kind`` page (see ``PAGES``); ``extra``: more constants (the
    search page's, from ``search.script.script_constants``)."""
    parts = page_parts(kind, live)
    data = constants(parts, extra)
    # JSON in a script: nothing in it may close the element or start a comment
    prelude = json.dumps(data, sort_keys=True, separators=(",", ":")) if data else ""
    prelude = prelude.replace("<", "\\u003c").replace(">", "\\u003e")
    return _assemble(tuple(parts), prelude)


@cache
def _assemble(parts: tuple[str, ...], prelude: str) -> str:
    head = (
        f"// piexport page script: static/js/{{{','.join(parts)}}}.js, assembled by "
        'piexport/page/scripts.py\n(function () {\n"use strict";\n'
    )
    if prelude:
        head += f"var PIEXPORT = {prelude};\n"
    body = "\n".join(read_static(f"js/{p}.js") for p in parts)
    return head + "\n" + body + "})();\n"

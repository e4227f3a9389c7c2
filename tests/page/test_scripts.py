"""Each page type's script: the parts of static/js/ it uses and no others, the constants it
shares with Python taken from Python, and the CSP hash of exactly the script embedded."""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path

import pytest

from piexport import load_session
from piexport.page.assets import asset_dir, csp_hash, read_static
from piexport.page.render import (
    RenderOptions,
    render_all_sessions,
    render_plain_parts,
    render_session,
)
from piexport.page.scripts import LIVE, PAGES, PARTS, TEMPLATES, page_parts, page_script
from piexport.search import index, query, tokens
from piexport.search.script import script_constants
from piexport.site.build import build_site
from piexport.text.fold import NOSPACE_RANGES

from tests.support.sessions import SAMPLES, sample_files

# A few lines only one part holds: what says that part is (or is not) in a script.
MARKS = {
    "core": "var ACTIONS = {}, CLICKS = [], KEYS = {}, REVEAL = null;",
    "dom": "function el(tag, cls, text) {",
    "theme": 'window.localStorage.getItem("piexport-theme")',
    "fold": "function foldMap(s) {",
    "trusted": 'window.trustedTypes.createPolicy("piexport",',
    "lazy": "function materializeHolding(id) {",
    "branches": "function applyChoice(box) {",
    "landing": "function markWords(entry, words, anywhere) {",
    "follow": "function entryAtTop() {",
    "filters": "function setView(view, remember) {",
    "anchors": "function reveal(hash, words) {",
    "compare": "(function compareView() {",
    "find": "function findInParts(q) {",
    "site-search": 'document.querySelectorAll("div.site-search")',
    "copy": "function copyFrom(button) {",
    "keys": "function showKeys() {",
    "keyboard": "function step(dir) {",
    "print": 'window.addEventListener("afterprint"',
    "tables": "function runFilter(box) {",
    "live": "(function live() {",
    "live-session": "function firstOnScreen() {",
    "live-index": 'var parts = [".index-header > h1", ".index-header > p"];',
    "search": "window.piexportSearch = {",
}


def test_every_part_is_a_file_and_has_its_mark() -> None:
    files = {p.stem for p in (asset_dir("static") / "js").glob("*.js")}
    assert files == set(PARTS) == set(MARKS)
    for part, mark in MARKS.items():
        for other in PARTS:
            assert (mark in read_static(f"js/{other}.js")) == (other == part), (part, other)


def _script(html: str) -> str:
    """The page's one script that runs (the compare view's JSON island does not)."""
    found = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(found) == 1
    return str(found[0])


def _csp(html: str) -> str:
    m = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', html)
    assert m is not None
    return html_lib.unescape(m.group(1))


def _has_parts(js: str, kind: str, live: bool = False) -> None:
    parts = page_parts(kind, live)
    for part in PARTS:
        assert (MARKS[part] in js) == (part in parts), (kind, live, part)
    body = js[js.index("\n\n") + 2 :]
    assert body == "\n".join(read_static(f"js/{p}.js") for p in parts) + "})();\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(SAMPLES, out, jobs=1)
    return out


def _pages(site: Path) -> dict[str, list[Path]]:
    return {
        "index": [site / "index.html", *site.glob("*/index.html")],
        "session": [p for p in site.glob("*/*.html") if p.name != "index.html"],
        "search": [site / "search.html"],
    }


def test_each_page_of_a_site_holds_its_parts_and_the_hash_of_its_script(site: Path) -> None:
    for kind, paths in _pages(site).items():
        assert paths, kind
        for path in paths:
            html = path.read_text(encoding="utf-8")
            js = _script(html)
            extra = script_constants() if kind == "search" else None
            assert js == page_script(kind, extra=extra), path
            _has_parts(js, kind)
            assert f"script-src {csp_hash(js)}" in _csp(html), path


def test_an_index_page_has_no_session_code(site: Path) -> None:
    js = _script((site / "index.html").read_text(encoding="utf-8"))
    for absent in ("compareView", "markWords", "materialize", "innerHTML", "createPolicy"):
        assert absent not in js, absent
    js = _script((site / "search.html").read_text(encoding="utf-8"))
    for absent in ("compareView", "runFilter", "materialize", "innerHTML"):
        assert absent not in js, absent


def test_a_plain_page_holds_its_parts_and_the_hash_of_its_script() -> None:
    session = load_session(sample_files()[0])
    html = "".join(render_plain_parts(session, "title", "Too slow."))
    js = _script(html)
    assert js == page_script("plain")
    _has_parts(js, "plain")
    assert f"script-src {csp_hash(js)};" in _csp(html)


@pytest.mark.parametrize("live", [False, True])
def test_a_session_page_served_live_adds_the_live_parts(live: bool) -> None:
    html = render_session(load_session(sample_files()[0]), RenderOptions(live=live))
    js = _script(html)
    assert js == page_script("session", live)
    _has_parts(js, "session", live)
    assert f"script-src {csp_hash(js)};" in _csp(html)
    assert ("; connect-src 'self'" in _csp(html)) == live


@pytest.mark.parametrize("live", [False, True])
def test_the_list_of_every_session_served_live_adds_the_live_parts(live: bool) -> None:
    html = render_all_sessions([], RenderOptions(live=live))
    js = _script(html)
    assert js == page_script("index", live)
    _has_parts(js, "index", live)
    assert f"script-src {csp_hash(js)};" in _csp(html)


def test_only_sessions_and_indexes_are_served_live() -> None:
    assert set(LIVE) == {"session", "index"}
    assert set(TEMPLATES.values()) == set(PAGES)


def _prelude(js: str) -> dict[str, object]:
    m = re.search(r"^var PIEXPORT = (.*);$", js, re.M)
    assert m is not None
    found = json.loads(m.group(1))
    assert isinstance(found, dict)
    return found


def test_the_scripts_constants_are_pythons() -> None:
    session = _prelude(page_script("session"))
    assert session == {"nospace": [list(r) for r in NOSPACE_RANGES]}
    search = _prelude(page_script("search", extra=script_constants()))
    assert search == {
        "nospace": [list(r) for r in NOSPACE_RANGES],
        "filters": list(query.FILTERS),
        "maxQueryChars": query.MAX_QUERY_CHARS,
        "maxItems": query.MAX_ITEMS,
        "maxTerms": query.MAX_TERMS,
        "space": query.SPACE,
        "maxWord": tokens.MAX_WORD,
        "snippetWidth": query.SNIPPET_WIDTH,
        "spanCap": query.SPAN_CAP,
        "maxShards": index.MAX_SHARDS,
        "maxDocBytes": index.MAX_DOC_BYTES,
    }
    # and the parts do not write them again
    for part in ("fold", "search", "landing"):
        text = read_static(f"js/{part}.js")
        for typed in (
            "\\u4e00-\\u9fff",
            "= 1000",
            "= 65536",
            "32 * 1024 * 1024",
            '"project", "model"',
        ):
            assert typed not in text, (part, typed)
    assert "var PIEXPORT" not in page_script("index")  # no constants: none written


def test_a_nospace_range_is_what_search_splits_into_pairs() -> None:
    for lo, hi in NOSPACE_RANGES:
        for ch in (chr(lo), chr(hi)):
            assert list(tokens.runs(ch * 3)) == [(ch * 3, True)]
            assert tokens.run_terms(ch * 3, True) == [ch * 2, ch * 2]
    assert list(tokens.runs("a" * 3)) == [("aaa", False)]


def test_one_el_and_one_fold_in_every_script() -> None:
    for kind in PAGES:
        extra = script_constants() if kind == "search" else None
        for live in (False, True) if kind in LIVE else (False,):
            js = page_script(kind, live, extra)
            assert js.count("function el(") == 1, kind
            assert js.count("function foldChar(") == ("fold" in page_parts(kind, live)), kind
            assert "function folded(" not in js
    assert "toLowerCase" not in read_static("js/find.js")  # it folds, as search does

"""search.html on a link from anyone and on a site folder from someone else (issue 27).

A ``?q=`` of 10,000 or 70,000 words, or a 3,000-word phrase against a 1.8 MB record, must
not freeze the tab. What a hostile query controls is how much the page reads: the page counts
the characters and postings its matching reads for a query (``data-search-work`` on
<html>), and that count must stay within a few readings of the archive's text, whatever the
query (the old page read the 1.8 MB record once per word of the phrase: thousands of
readings). Counted, not timed, so a busy machine cannot decide it; the time the tab goes
without a heartbeat is a figure in ``bench/hostile_timing.py``. A damaged index is named in
the status line, never "No matches.".
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.site.build import build_site

from tests.support.hostile_search import (
    BIG_TEXT,
    DAMAGE,
    QUERIES,
    big_record_session,
    damaged_copy,
)
from tests.support.sessions import SAMPLES

pytestmark = pytest.mark.browser
READINGS = 4
"""How many times over the archive's text a query may read: one to fold a record, one per
phrase that must hold, with room for the words checked beside them."""


def text_chars(site: Path) -> int:
    """The characters of every record text the site's search ships."""
    from piexport.search.index import read_script, unpack_docs

    return sum(
        len(row[3])
        for d in sorted((site / "search" / "d").glob("*.js"))
        for row in unpack_docs(read_script(d)[1][1])
    )


def work(page: Page) -> int:
    return int(page.evaluate("document.documentElement.dataset.searchWork"))


@pytest.fixture(scope="module")
def big_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big-src")
    big_record_session(root / "--p--")
    out = tmp_path_factory.mktemp("big-site")
    build_site(root, out, jobs=1)
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples-site") / "site"
    build_site(SAMPLES, out, jobs=1)
    return out


def searched(page: Page, site: Path, query: str) -> None:
    """Open ``search.html?q=query`` and wait until the query is drawn."""
    page.goto((site / "search.html").as_uri() + "?q=" + quote(query))
    expect(page.locator("html")).to_have_attribute("data-search-done", "1")


@pytest.mark.parametrize(
    "name",
    ["ten-thousand-words", "long-phrase", "many-filters", "many-exclusions", "chinese-run"],
)
def test_a_link_never_freezes_the_tab(browser: Browser, big_site: Path, name: str) -> None:
    page = browser.new_page()
    searched(page, big_site, QUERIES[name])
    status = page.locator("#search-status")
    expect(status).to_contain_text("left out")  # and it says what it left out
    expect(status).not_to_contain_text("Search failed")
    read = work(page)
    page.close()
    assert read <= READINGS * text_chars(big_site) + len(QUERIES[name]), read


def test_a_link_of_seventy_thousand_words_is_cut_in_the_box_and_the_address(
    browser: Browser, big_site: Path
) -> None:
    """Its 350 KB address alone costs the browser about a second, whatever the page does
    (measured with a page whose query is one word and an unused 350 KB parameter): what the
    page does is read 1,000 characters of it, and show and keep only those."""
    page = browser.new_page()
    searched(page, big_site, QUERIES["seventy-thousand-words"])
    expect(page.locator("#search-status")).to_contain_text("characters after them are left out")
    assert len(page.locator("#search-box").input_value()) <= 1000
    page.locator("#search-box").press("Enter")
    expect(page.locator("html")).to_have_attribute("data-search-done", "2")
    assert len(page.url) < 5000  # the address keeps what is searched
    page.close()


def test_the_long_phrase_finds_what_the_cli_finds(browser: Browser, big_site: Path) -> None:
    from piexport.search.local import run_search
    from piexport.search.query import parse

    groups, _ = run_search(parse(QUERIES["long-phrase"]), site=big_site)
    page = browser.new_page()
    searched(page, big_site, QUERIES["long-phrase"])
    expect(page.locator(".hit")).to_have_count(sum(len(g) for g in groups))
    expect(page.locator(".hit-snippet mark").first).to_contain_text("ab ab ab")
    assert work(page) >= len(BIG_TEXT)  # the count counts: the record was read, once
    page.close()


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_index_is_named_on_the_page(
    browser: Browser, site: Path, tmp_path: Path, kind: str
) -> None:
    copy = tmp_path / "copy"
    said = damaged_copy(site, copy, kind, "coupon")
    page = browser.new_page()
    page.goto((copy / "search.html").as_uri() + "?q=coupon")
    status = page.locator("#search-status")
    expect(status).to_contain_text("is damaged")
    expect(status).to_contain_text(said)
    expect(status).to_contain_text("build the site again")
    expect(status).not_to_have_text("No matches.")
    page.close()

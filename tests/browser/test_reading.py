"""Issue 28 in the browser: reading a long session page (the tree follows, a skip link leads
past it, searches land on the match, view filters, copy buttons, the keyboard help)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.page.export import export_session

from ..conftest import sample_files
from .test_contrast import bench_session
from .test_viewer import HAS_JS, MODES, Watch, wait_true

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=list(MODES))
def long_page(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("reading")
    src = folder / "long.jsonl"
    src.write_bytes(bench_session(150))
    out = folder / "long.html"
    export_session(src, out, MODES[request.param])
    return out


@pytest.fixture(scope="module")
def shop_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = next(p for p in sample_files() if "01955b2a" in p.name)
    out = tmp_path_factory.mktemp("reading-shop") / "shop.html"
    export_session(src, out)
    return out


def open_tree(page: Page) -> None:
    expect(page.locator("html")).to_have_class(HAS_JS)
    if not page.locator("nav.outline details").evaluate("d => d.open"):
        page.locator("nav.outline summary").click()
    expect(page.locator("nav.outline ol.rows")).to_be_visible()


def test_the_tree_follows_the_reading_position(browser: Browser, long_page: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto(long_page.as_uri())
    open_tree(page)
    page.mouse.move(900, 400)  # over the conversation: the wheel scrolls the page
    page.evaluate("window.__focus = document.activeElement")
    rows = []
    for _ in range(3):
        page.mouse.wheel(0, 4000)
        # the marked row is the entry a few lines under the toolbar, and in sight in the tree
        wait_true(
            page,
            """() => {
              const row = document.querySelector('nav.outline a.reading');
              if (!row || row.getAttribute('aria-current') !== 'location') return false;
              const el = document.getElementById(row.getAttribute('href').slice(1));
              const line = document.querySelector('.toolbar').getBoundingClientRect().bottom + 48;
              const r = el.getBoundingClientRect();
              const nav = document.querySelector('nav.outline').getBoundingClientRect();
              const shown = row.getBoundingClientRect();
              return r.top <= line && r.bottom >= line
                && shown.top >= nav.top && shown.bottom <= nav.bottom;
            }""",
        )
        rows.append(page.locator("nav.outline a.reading").get_attribute("href"))
        # following moves neither the page nor the focus
        before = page.evaluate("window.scrollY")
        page.evaluate(
            "new Promise(done => { window.dispatchEvent(new Event('scroll'));"
            " requestAnimationFrame(() => requestAnimationFrame(done)); })"
        )
        assert page.evaluate("window.scrollY") == before
        assert page.evaluate("document.activeElement === window.__focus")
    assert len(set(rows)) == 3
    watch.assert_clean()
    page.close()


def test_a_skip_link_leads_past_the_tree(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto(shop_page.as_uri())
    open_tree(page)
    tree_links = page.locator("nav.outline a").count()
    assert tree_links > 20
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('a.skip')"):
            break
    else:
        raise AssertionError("no skip link within 60 tabs")
    skip = page.locator("a.skip")
    expect(skip).to_be_visible()  # shown while it has the focus
    expect(skip).to_be_in_viewport()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    # the next stop is in the conversation, not the first of the tree's links
    wait_true(page, "document.activeElement.closest('main#transcript') !== null")
    watch.assert_clean()
    page.close()

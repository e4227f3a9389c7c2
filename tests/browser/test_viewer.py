"""Real-browser checks: Playwright driving Debian's Chromium on file:// pages, no network."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from piexport.export import export_session
from piexport.site import build_site
from piexport.view import dom_id

from ..conftest import SAMPLES, sample_files

pytestmark = pytest.mark.browser


class Watch:
    """Counts what must stay zero: console errors, page errors, dialogs, requests off the page."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

        def route(r):  # type: ignore[no-untyped-def]
            url = r.request.url
            if url.startswith(("file:", "data:")):
                r.continue_()
            else:
                self.requests.append(url)
                r.abort()

        page.route("**/*", route)

    def assert_clean(self) -> None:
        assert self.errors == [] and self.requests == [] and self.dialogs == []


@pytest.fixture(scope="module")
def shop_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = next(p for p in sample_files() if "01955b2a" in p.name)
    out = tmp_path_factory.mktemp("pages") / "shop.html"
    export_session(src, out)
    return out


def test_every_sample_page_loads_clean(browser: Browser, tmp_path: Path) -> None:
    for src in sample_files():
        out = tmp_path / (src.stem + ".html")
        export_session(src, out)
        page = browser.new_page()
        watch = Watch(page)
        page.goto(out.as_uri())
        assert page.evaluate(
            "document.documentElement.classList.contains('has-js')"
        )  # our script ran under the CSP
        page.click('button[data-action="expand"]')
        watch.assert_clean()
        page.close()


def test_navigator_opens_an_entry_on_another_branch(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page()
    watch = Watch(page)
    page.goto(shop_page.as_uri())
    # "Yes, add a regression test." lives on a collapsed branch
    target = page.locator("main article.user", has_text="Yes, add a regression test.")
    assert not target.is_visible()
    page.locator("nav.outline a", has_text="user: Yes, add a regression test.").click()
    assert target.is_visible()
    watch.assert_clean()


def test_deep_link_to_another_branch_opens_it(browser: Browser, shop_page: Path) -> None:
    from piexport import load_session

    src = next(p for p in sample_files() if "01955b2a" in p.name)
    session = load_session(src)
    off_path = next(
        e for e in session.entries if e.id not in session.tree.path and e.role == "user"
    )
    page = browser.new_page()
    watch = Watch(page)
    page.goto(shop_page.as_uri() + "#" + dom_id(off_path.id))
    el = page.locator("#" + dom_id(off_path.id))
    assert el.is_visible()
    assert page.evaluate(
        "(el) => el.getBoundingClientRect().top < window.innerHeight", el.element_handle()
    )
    watch.assert_clean()


def test_collapse_and_expand_all(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page()
    page.goto(shop_page.as_uri())
    page.click('button[data-action="expand"]')
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => d.open)")
    page.click('button[data-action="collapse"]')
    assert page.evaluate("[...document.querySelectorAll('main details')].every(d => !d.open)")


def test_without_javascript_branches_open_with_details(browser: Browser, shop_page: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(shop_page.as_uri())
    target = page.locator("main article.user", has_text="Yes, add a regression test.")
    assert not target.is_visible()
    # open branches the plain-HTML way, by clicking their summaries, until it shows
    for _ in range(3):
        for summary in page.locator("details.branch:not([open]) > summary").all():
            if not target.is_visible() and summary.is_visible():
                summary.click()
    assert target.is_visible()
    context.close()


def test_site_index_sort_filter_and_follow(browser: Browser, tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    out = tmp_path / "site"
    build_site(root, out, jobs=1)
    page = browser.new_page()
    watch = Watch(page)
    page.goto((out / "index.html").as_uri())
    page.locator("a", has_text="/home/alice/src/shop").click()
    rows = page.locator("table.sessions tbody tr")
    assert rows.count() == 2
    page.fill("#filter", "badge")
    assert page.locator("table.sessions tbody tr:not([hidden])").count() == 1
    page.fill("#filter", "")
    page.locator("th", has_text="Messages").click()
    first = rows.first.locator("td").nth(4).inner_text()
    page.locator("th", has_text="Messages").click()
    assert rows.first.locator("td").nth(4).inner_text() != first
    page.locator("table.sessions a", has_text="Reject coupons").click()
    assert page.locator("h1").inner_text() == "Reject coupons larger than the cart"
    watch.assert_clean()


def test_search_finds_text_on_a_collapsed_branch(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page()
    watch = Watch(page)
    page.goto(shop_page.as_uri())
    page.keyboard.press("/")
    page.keyboard.type("regression test")
    page.keyboard.press("Enter")
    count = page.locator("#search-count").inner_text()
    assert count.startswith("1 / ") and int(count.split("/ ")[1]) >= 2
    hits = page.locator("main .hit")
    assert hits.count() >= 2
    for _ in range(hits.count()):
        page.keyboard.press("Enter")
    assert page.locator("main article.user", has_text="Yes, add a regression test.").is_visible()
    watch.assert_clean()

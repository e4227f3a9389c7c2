"""The archive in Chromium (issue 28): no page scrolls sideways on a 390 px phone, wide tables
say they scroll, the trail and the search box lead where they say, the front page's tables
sort and filter."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.site.build import build_site

from tests.support.sessions import HEADER, SAMPLES, msg

LONG_CWD = "/Users/lynch/.openclaw/workspace-with-a-very-long-name-that-runs-past-a-phone/src/app"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The samples, plus a project whose path is longer than a phone is wide."""
    tmp = tmp_path_factory.mktemp("archive")
    root = tmp / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    folder = root / "--Users-lynch-long--"
    folder.mkdir()
    header = {**HEADER, "cwd": LONG_CWD}
    first = msg("u1", None, "user", "# A title " + "that-goes-on-and-on-" * 8, 1)
    (folder / "2025-06-01T10-00-00-000Z_long.jsonl").write_bytes(
        orjson.dumps(header) + b"\n" + orjson.dumps(first) + b"\n"
    )
    out = tmp / "site"
    build_site(root, out, jobs=1)
    return out


def _pages(site: Path) -> list[Path]:
    pages = [site / "index.html", site / "search.html", *sorted(site.glob("*/index.html"))]
    return [*pages, next(site.glob("home-alice-src-shop-*/2025-03-03*.html"))]


def _phone(browser: Browser) -> Page:
    return browser.new_page(viewport={"width": 390, "height": 844})


def test_no_page_scrolls_sideways_on_a_phone(browser: Browser, site: Path) -> None:
    page = _phone(browser)
    for path in _pages(site):
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        page.wait_for_function("document.documentElement.scrollWidth <= window.innerWidth")
    page.close()


def test_wide_tables_say_they_scroll(browser: Browser, site: Path) -> None:
    page = _phone(browser)
    page.goto((site / "index.html").as_uri())
    wrap = page.locator("#recent .table-wrap")
    expect(wrap).to_be_visible()
    page.wait_for_function(
        "(() => { const w = document.querySelector('#recent .table-wrap');"
        " return w.scrollWidth > w.clientWidth"
        " && getComputedStyle(w, '::before').content.includes('Scroll sideways'); })()"
    )
    page.close()
    wide = browser.new_page(viewport={"width": 1280, "height": 900})
    wide.goto((site / "index.html").as_uri())
    wide.wait_for_function(
        "getComputedStyle(document.querySelector('#recent .table-wrap'), '::before').display"
        " === 'none'"
    )
    wide.close()


def test_the_trail_leads_to_the_project_the_archive_and_search(
    browser: Browser, site: Path
) -> None:
    page = browser.new_page()
    session = next(site.glob("home-alice-src-shop-*/2025-03-03*.html"))
    page.goto(session.as_uri())
    page.locator("nav.trail .crumbs a", has_text="shop").click()
    expect(page.locator("h1")).to_have_text("shop")
    page.go_back()
    page.locator("nav.trail a[rel=next]").click()
    expect(page.locator("h1")).to_have_text("Cart badge stays red after a valid coupon")
    page.locator("nav.trail .site-search input").fill("coupon")
    page.locator("nav.trail .site-search input").press("Enter")
    expect(page).to_have_url(f"{(site / 'search.html').as_uri()}?q=coupon")
    page.locator(".crumbs a", has_text="pi sessions").click()
    expect(page.locator("#recent-h")).to_have_text("Recent sessions")
    page.close()


def test_the_front_page_sorts_and_filters_its_tables(browser: Browser, site: Path) -> None:
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    rows = page.locator("#recent-table tbody tr")
    expect(rows).to_have_count(10)
    page.locator("#recent input[data-filter]").fill("build-bot")
    expect(page.locator("#recent-table tbody tr:not([hidden])")).to_have_count(3)
    expect(page.locator("#projects-table tbody tr:not([hidden])")).to_have_count(5)
    page.locator("#recent input[data-filter]").fill("")
    cost = page.locator("#recent-table th", has_text="Cost")
    cost.click()
    expect(cost).to_have_attribute("aria-sort", "descending")
    expect(rows.first.locator("td.project")).to_have_text("piexport-demo")  # $1.32, the most
    cost.press("Enter")  # a header sorts from the keyboard too
    expect(cost).to_have_attribute("aria-sort", "ascending")
    page.close()


def test_long_project_paths_get_short_labels(browser: Browser, site: Path) -> None:
    page = browser.new_page()
    page.goto((site / "index.html").as_uri())
    link = page.locator("#projects-table td.title > a", has_text="app")
    expect(link).to_have_attribute("title", LONG_CWD)
    expect(page.locator(".chart-projects .hbar-label", has_text="app")).to_have_count(1)
    page.close()

"""The session page's context chart and Files panel in Chromium: links jump to their entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from piexport.export.pipeline import RenderOptions, export_session

from tests.support.sessions import SAMPLES

pytestmark = pytest.mark.browser

DEMO = next(SAMPLES.glob("--home-alice-src-piexport-demo--/*.jsonl"))
SHOP = next(SAMPLES.glob("--home-alice-src-shop--/2025-03-03*.jsonl"))


@pytest.mark.parametrize("lazy", [False, True], ids=["live", "lazy"])
def test_context_bars_jump_to_their_turn(browser: Browser, tmp_path: Path, lazy: bool) -> None:
    out = tmp_path / "demo.html"
    options = RenderOptions(live_chars=0, chunk_chars=0) if lazy else RenderOptions()
    export_session(DEMO, out, options)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(out.as_uri())
    panel = page.locator("#context-chart")
    expect(panel).not_to_have_attribute("open", "")
    panel.locator("> summary").click()
    bars = panel.locator("svg a:has(rect)")
    expect(bars).to_have_count(12)
    last = bars.nth(11)
    href = last.get_attribute("href")
    assert href and href.startswith("#entry-")
    last.click()
    expect(page).to_have_url(re.compile(re.escape(href) + "$"))
    expect(page.locator(href)).to_be_in_viewport()
    # a table row's link goes to the same turn
    page.goto(out.as_uri())
    page.locator("#context-chart > summary").click()
    page.locator("#context-chart .chart-data summary").click()
    row = page.locator("#context-chart tbody tr").nth(3).locator("a")
    target = row.get_attribute("href")
    row.click()
    expect(page.locator(str(target))).to_be_in_viewport()
    page.close()


def test_files_panel_links_to_the_edit(browser: Browser, tmp_path: Path) -> None:
    out = tmp_path / "shop.html"
    export_session(SHOP, out)
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(out.as_uri())
    page.locator("#files > summary").click()
    item = page.locator("#files .file-item").first
    item.locator(":scope > summary").click()  # the net change has a summary of its own
    link = item.locator(".change-head a").first
    href = link.get_attribute("href")
    expect(item.locator("table.diff")).to_have_count(2)
    link.click()
    expect(page.locator(str(href))).to_be_in_viewport()
    page.close()

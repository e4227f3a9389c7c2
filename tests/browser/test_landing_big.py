"""Issue 38, item 1: on a big page an in-page link lands on the first click. The page's
waiting parts near the new position are built, and entries drawn for the first time, only
after the scroll; before the fix the browser's scroll anchoring let the target sink 700 to
5,000 px below the screen's top. Each kind of link (a tree row, a Prompts link, a Files link)
is clicked on a real-shaped session with many waiting parts, and the test waits for the
target's top to be in the upper half of the screen with everything near it built, the same
for 30 frames in a row (a state, not a time)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.export.pipeline import export_session

from tests.support.browser import HAS_JS, Watch
from tests.support.sessions import REPO

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = importlib.util.spec_from_file_location("make_sessions", REPO / "bench/make_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = tmp_path_factory.mktemp("landing-big")
    src = folder / "big.jsonl"
    src.write_bytes(module.make_real_session(3, target_bytes=2_000_000))
    out = folder / "big.html"
    export_session(src, out)
    return out


SETTLED = """([id, frames]) => {
  const el = document.getElementById(id);
  const bar = document.querySelector('.toolbar').getBoundingClientRect().bottom;
  const h = window.innerHeight;
  const near = [...document.querySelectorAll('#transcript section.chunk.pending')].some(s => {
    const r = s.getBoundingClientRect();
    return r.bottom > -1500 && r.top < h + 1500;
  });
  const top = el ? el.getBoundingClientRect().top : -1e9;
  const ok = !near && top >= bar - 2 && top <= h / 2;
  window.__landedFrames = ok ? (window.__landedFrames || 0) + 1 : 0;
  return window.__landedFrames >= frames;
}"""


def click_and_land(page: Page, link_selector: str, nth_fraction: float) -> None:
    links = page.locator(link_selector)
    count = links.count()
    assert count > 10
    link = links.nth(int(count * nth_fraction))
    href = link.get_attribute("href")
    assert href and href.startswith("#entry-")
    target = href[1:]
    before = page.evaluate("() => window.scrollY")
    page.evaluate("() => { window.__landedFrames = 0; }")
    link.click()
    page.wait_for_function(SETTLED, arg=[target, 30], polling="raf")
    assert page.evaluate("() => window.scrollY") != before
    expect(page.locator(f"nav.outline a.current[href='{href}']")).to_have_count(1)


SIZES = {"desktop": (1280, 800), "phone": (390, 844)}


@pytest.mark.parametrize(
    ("size", "fraction"), [("desktop", 0.3), ("desktop", 0.85), ("phone", 0.6)]
)
def test_in_page_links_land_on_the_first_click(
    browser: Browser, big_page: Path, size: str, fraction: float
) -> None:
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    watch = Watch(page)
    page.goto(big_page.as_uri())
    expect(page.locator("html")).to_have_class(HAS_JS)
    # waiting parts: the page is a big one
    assert page.locator("#transcript section.chunk.pending").count() > 5

    # a row of the session tree
    if not page.locator("nav.outline details").evaluate("d => d.open"):
        page.locator("nav.outline summary").click()
    click_and_land(page, "nav.outline ol.rows a[href^='#entry-']", fraction)

    # a link in the Prompts panel
    page.evaluate("() => window.scrollTo(0, 0)")
    page.locator("details.prompts-panel > summary").click()
    click_and_land(page, "details.prompts-panel ol.prompts a", fraction)

    # a link to a change in the Files panel
    page.evaluate("() => window.scrollTo(0, 0)")
    page.locator("details.files-panel > summary").click()
    page.evaluate(
        "() => document.querySelectorAll('details.files-panel details').forEach(d => d.open = true)"
    )
    click_and_land(page, "details.files-panel .change-head a", fraction)
    watch.assert_clean()
    page.close()

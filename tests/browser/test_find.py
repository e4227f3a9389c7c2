"""The session page's own search box folds case and accents as the archive's search does:
"cafe" finds Café (written whole or as e + a combining accent) and "café" finds CAFE, and the
highlight covers the characters found, accent included."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.export.pipeline import export_session

from tests.support.browser import MODES, Watch
from tests.support.sessions import MakeSession, msg

pytestmark = pytest.mark.browser

DECOMPOSED = "Cafe\u0301"


@pytest.fixture(params=list(MODES))
def cafe_page(request: pytest.FixtureRequest, make_session: MakeSession, tmp_path: Path) -> Path:
    path = make_session(
        [
            msg("u1", None, "user", "Where is the Café au lait?", 1),
            msg("a1", "u1", "assistant", [{"type": "text", "text": "THE CAFE IS OPEN"}], 2),
            msg("u2", "a1", "user", "Nothing to find here.", 3),
            msg("a2", "u2", "assistant", [{"type": "text", "text": f"{DECOMPOSED} noir."}], 4),
        ]
    )
    out = tmp_path / "cafe.html"
    export_session(path, out, MODES[request.param])
    return out


def _marked(page: Page) -> list[str]:
    """The text of every range the page highlights."""
    found = page.evaluate(
        "() => { const h = CSS.highlights.get('piexport-hit');"
        " return h ? [...h].map(r => r.toString()) : []; }"
    )
    assert isinstance(found, list)
    return [str(x) for x in found]


def _find(page: Page, typed: str) -> None:
    page.keyboard.press("/")
    page.keyboard.type(typed)
    page.keyboard.press("Enter")


def test_cafe_finds_cafe_with_its_accent_and_marks_it(browser: Browser, cafe_page: Path) -> None:
    page = browser.new_page()
    watch = Watch(page)
    page.goto(cafe_page.as_uri())
    _find(page, "cafe")
    counter = page.locator("#search-count")
    expect(counter).to_have_text("1 / 3")
    expect(page.locator("article.hit")).to_have_count(3)
    page.wait_for_function("() => CSS.highlights.has('piexport-hit')")
    assert _marked(page) == ["Café"]
    page.keyboard.press("Enter")
    expect(counter).to_have_text("2 / 3")
    page.wait_for_function("() => [...CSS.highlights.get('piexport-hit')][0].toString() === 'CAFE'")
    page.keyboard.press("Enter")
    expect(counter).to_have_text("3 / 3")
    page.wait_for_function(
        "w => [...CSS.highlights.get('piexport-hit')][0].toString() === w", arg=DECOMPOSED
    )
    assert _marked(page) == [DECOMPOSED]  # the combining accent with its letter
    watch.assert_clean()


def test_cafe_with_an_accent_finds_capitals_without(browser: Browser, cafe_page: Path) -> None:
    page = browser.new_page()
    watch = Watch(page)
    page.goto(cafe_page.as_uri())
    _find(page, "CAFÉ")
    expect(page.locator("#search-count")).to_have_text("1 / 3")
    hits = page.locator("article.hit")
    expect(hits).to_have_count(3)
    expect(hits.nth(1)).to_contain_text("THE CAFE IS OPEN")
    page.keyboard.press("Enter")
    expect(page.locator("#search-count")).to_have_text("2 / 3")
    page.wait_for_function("() => [...CSS.highlights.get('piexport-hit')][0].toString() === 'CAFE'")
    page.locator("#search").fill("caffè")  # a new query, found nowhere
    page.keyboard.press("Enter")
    expect(page.locator("#search-count")).to_have_text("no match")
    expect(hits).to_have_count(0)
    watch.assert_clean()

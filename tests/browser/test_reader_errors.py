"""Issue 38, item 3 in the browser: the errors-only view counts what the header counts for
the current branch, on a whole page and on one whose parts wait, and every failed row of the
tree carries a visible mark (not colour alone)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from piexport.export.pipeline import export_session

from tests.support.browser import HAS_JS, MODES, Watch
from tests.support.errors_session import FILE_ERRORS, PATH_ERRORS, errors_session

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module", params=list(MODES))
def errors_page(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("errors")
    out = folder / "errors.html"
    export_session(errors_session(folder), out, MODES[request.param])
    return out


def test_the_errors_view_counts_what_the_header_counts(browser: Browser, errors_page: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto(errors_page.as_uri())
    expect(page.locator("html")).to_have_class(HAS_JS)
    current = page.locator("header.session-header table.figures tbody tr").first
    expect(current.locator("td.errors")).to_have_text(str(PATH_ERRORS))
    page.select_option("#view", "errors")
    expect(page.locator("#view-count")).to_have_text(f"{PATH_ERRORS} errors shown")
    expect(page.locator("main [data-failure]:visible")).to_have_count(PATH_ERRORS)

    # the tree: every failed entry of the file marked with words, not colour alone
    if not page.locator("nav.outline details").evaluate("d => d.open"):
        page.locator("nav.outline summary").click()
    marks = page.locator("nav.outline li.failed .fail-mark")
    expect(marks).to_have_count(FILE_ERRORS)
    for text in marks.all_inner_texts():
        assert text.startswith("✗ ")
    watch.assert_clean()
    page.close()

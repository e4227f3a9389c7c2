"""The Branches panel and the compare view in Chromium: pick two, the URL, a phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from piexport.export.pipeline import export_session

from tests.support.branch_trees import fork_tree
from tests.support.browser import Watch, wait_true
from tests.support.sessions import HEADER, to_lines

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def fork_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("branches")
    src = root / "fork.jsonl"
    src.write_bytes(to_lines([HEADER, *fork_tree()]))
    out = root / "fork.html"
    export_session(src, out)
    return out


def test_pick_two_leaves_opens_the_compare_view_and_the_url(
    browser: Browser, fork_page: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    watch = Watch(page)
    page.goto(fork_page.as_uri())
    box = page.locator("#compare")
    expect(box).to_be_hidden()
    page.locator("#branches > summary").click()
    picks = page.locator("#branches input[data-pick]")
    expect(picks).to_have_count(3)
    picks.nth(0).check()
    expect(box).to_be_hidden()  # one pick is not a pair
    picks.nth(1).check()
    expect(page).to_have_url(f"{fork_page.as_uri()}#compare=x-end,y-end")
    expect(box).to_be_visible()
    expect(box.locator(".cmp-row.changed .cmp-a .turn-ask")).to_have_text("Use approach one")
    expect(box.locator(".cmp-row.changed .cmp-b .turn-ask")).to_have_text("Use approach two")
    expect(box.locator(".cmp-row.onlyB .cmp-b .turn-ask")).to_have_text("AND add docs")
    expect(box.locator(".compare-shared")).to_contain_text("Shared history: 4 entries")
    expect(box.locator(".cmp-diff .add")).to_have_text(["+TWO\n"])
    # side by side on a desktop: the two cells of a row share a line
    wait_true(
        page,
        """() => { const a = document.querySelector('.cmp-row.changed .cmp-a').getBoundingClientRect();
                   const b = document.querySelector('.cmp-row.changed .cmp-b').getBoundingClientRect();
                   return a.top === b.top && b.left >= a.right; }""",
    )
    # a third pick drops the oldest
    picks.nth(2).check()
    expect(page).to_have_url(f"{fork_page.as_uri()}#compare=y-end,z-end")
    expect(picks.nth(0)).not_to_be_checked()
    expect(box.locator(".cmp-title code")).to_have_text(["y-end", "z-end"])
    # a turn links to its entry, and the branch switches there
    box.locator(".cmp-row.changed .cmp-b .turn-ask, .cmp-row.same .cmp-b .turn-ask").first.click()
    expect(box).to_be_hidden()
    expect(page.locator("#branch-status")).to_be_visible()
    page.go_back()
    expect(box).to_be_visible()
    box.locator("button[data-close-compare]").click()
    expect(box).to_be_hidden()
    expect(page).to_have_url(f"{fork_page.as_uri()}#branches")
    watch.assert_clean()
    page.close()


def test_a_sent_compare_url_opens_stacked_on_a_phone(browser: Browser, fork_page: Path) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    watch = Watch(page)
    # the order asked for is kept: z-end is A although the page lists it last
    page.goto(fork_page.as_uri() + "#compare=z-end,x-end")
    box = page.locator("#compare")
    expect(box).to_be_visible()
    expect(box.locator(".cmp-title code")).to_have_text(["z-end", "x-end"])
    expect(box.locator(".cmp-row.same .cmp-a .turn-ask")).to_have_text("use approach ONE")
    expect(box.locator(".cmp-row.same .cmp-b .turn-ask")).to_have_text("Use approach one")
    expect(page.locator("#branches input[data-pick]:checked")).to_have_count(2)
    # stacked: B under A, and nothing wider than the screen
    wait_true(
        page,
        """() => { const a = document.querySelector('.cmp-row.same .cmp-a').getBoundingClientRect();
                   const b = document.querySelector('.cmp-row.same .cmp-b').getBoundingClientRect();
                   return b.top >= a.bottom && Math.abs(a.left - b.left) < 1
                     && document.documentElement.scrollWidth <= 390; }""",
    )
    watch.assert_clean()
    page.close()


def test_without_javascript_the_panel_lists_every_branch(browser: Browser, fork_page: Path) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(fork_page.as_uri())
    page.locator("#branches > summary").click()
    cards = page.locator("#branches .branch-card")
    expect(cards).to_have_count(3)
    expect(cards.nth(1)).to_contain_text("ended: aborted")
    expect(cards.nth(1)).to_contain_text("Tried approach two; docs half done.")
    expect(page.locator("#branches input[data-pick]").first).to_be_hidden()
    cards.nth(1).locator("a.branch-link").click()
    expect(page).to_have_url(f"{fork_page.as_uri()}#entry-y-end")
    context.close()

"""Issue 28 in the browser: reading a long session page (the tree follows, a skip link leads
past it, searches land on the match, view filters, copy buttons, the keyboard help)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.export.pipeline import export_session
from piexport.site.build import build_site

from tests.support.browser import HAS_JS, MODES, Watch, wait_true
from tests.support.sessions import HEADER, bench_session, msg, sample_files, to_lines, tool_result

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
    # every call that scrolls the window or scrolls an element into view, as the page makes it
    page.add_init_script(
        """window.__pageScrolls = [];
        for (const [obj, name] of [[window, 'scrollTo'], [window, 'scrollBy'], [window, 'scroll'],
                                   [Element.prototype, 'scrollIntoView']]) {
          const real = obj[name];
          obj[name] = function (...args) { window.__pageScrolls.push(name); return real.apply(this, args); };
        }"""
    )
    page.goto(long_page.as_uri())
    open_tree(page)
    page.evaluate("window.__pageScrolls = []")
    page.mouse.move(900, 400)  # over the conversation: the wheel scrolls the page
    page.evaluate("window.__focus = document.activeElement")
    rows = []
    for _ in range(3):
        page.mouse.wheel(0, 4000)
        # the marked row moves on to the entry a few lines under the toolbar, in sight in
        # the tree
        wait_true(
            page,
            """prev => {
              const row = document.querySelector('nav.outline a.reading');
              if (!row || row.getAttribute('aria-current') !== 'location') return false;
              if (row.getAttribute('href') === prev) return false;
              const el = document.getElementById(row.getAttribute('href').slice(1));
              const line = document.querySelector('.toolbar').getBoundingClientRect().bottom + 48;
              const r = el.getBoundingClientRect();
              const nav = document.querySelector('nav.outline').getBoundingClientRect();
              const shown = row.getBoundingClientRect();
              return r.top <= line && r.bottom >= line
                && shown.top >= nav.top && shown.bottom <= nav.bottom;
            }""",
            rows[-1] if rows else None,
        )
        rows.append(page.locator("nav.outline a.reading").get_attribute("href"))
        # following moves neither the page nor the focus: the page's script asked for no
        # scroll of the window (the tree scrolls itself by its scrollTop)
        page.evaluate(
            "new Promise(done => { window.dispatchEvent(new Event('scroll'));"
            " requestAnimationFrame(() => requestAnimationFrame(done)); })"
        )
        assert page.evaluate("window.__pageScrolls") == []
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
    wait_true(page, "() => document.activeElement.closest('main#transcript') !== null")
    watch.assert_clean()
    page.close()


READ_LINES = 777
MATCH_LINE = 500


def landing_records() -> list[dict[str, object]]:
    """A read of a 777-line file whose one line 500 holds ``waitForIdle``, after an answer
    that mentions nothing of it, and more turns after (so there is somewhere to move on to)."""
    lines = [f"line {k}: nothing to see" for k in range(1, READ_LINES + 1)]
    lines[MATCH_LINE - 1] = "  await page.waitForIdle(); // the line searched for"
    records: list[dict[str, object]] = [
        msg("u1", None, "user", "Where does the test wait?", 1),
        msg(
            "a1",
            "u1",
            "assistant",
            [
                {
                    "type": "toolCall",
                    "id": "c1",
                    "name": "read",
                    "arguments": {"path": f"{HEADER['cwd']}/test/page.ts"},
                }
            ],
            2,
            provider="p",
            model="m",
        ),
        tool_result("r1", "a1", "\n".join(lines), 3, "c1", "read"),
    ]
    parent = "r1"
    for k in range(2, 40):
        records.append(msg(f"u{k}", parent, "user", f"And then step {k}?", 2 * k + 2))
        records.append(
            msg(f"a{k}", f"u{k}", "assistant", [{"type": "text", "text": "Done. " * 40}], 2 * k + 3)
        )
        parent = f"a{k}"
    # a call too long to show with its result: a link to the result shows the result
    script = "\n".join(f"echo step {k}" for k in range(120))
    records.append(
        msg(
            "a90",
            parent,
            "assistant",
            [{"type": "toolCall", "id": "c90", "name": "bash", "arguments": {"command": script}}],
            200,
        )
    )
    records.append(tool_result("r90", "a90", "all steps done", 201, "c90", "bash"))
    return records


@pytest.fixture(scope="module", params=list(MODES))
def landing_site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("landing") / "sessions"
    folder = root / "--home-alice-src-demo--"
    folder.mkdir(parents=True)
    (folder / "2025-01-01T10-00-00-000Z_land.jsonl").write_bytes(
        to_lines([HEADER, *landing_records()])
    )
    out = root.parent / "site"
    options = MODES[request.param]
    build_site(root, out, jobs=1, options=options)
    return out


def highlighted(page: Page) -> list[str]:
    return page.evaluate(
        "() => { const h = CSS.highlights.get('piexport-hit');"
        " return h ? [...h].map(r => r.toString()) : []; }"
    )


def test_a_search_result_lands_on_the_match(browser: Browser, landing_site: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto((landing_site / "search.html").as_uri() + "?q=waitforidle")
    result = page.locator(".hit-link").first
    expect(result).to_be_visible()
    result.click()
    expect(page).to_have_url(re.compile(r"\?hl=waitforidle#entry-r1$"))
    target = page.locator("#entry-r1")
    fold = target.locator("details.fold")
    expect(fold).to_have_attribute("open", "")  # "Show all 777 lines" opened by itself
    wait_true(page, "() => CSS.highlights.has('piexport-hit')")
    assert highlighted(page) == ["waitForIdle"]
    # the match and the line naming the tool are in sight, clear of the sticky toolbar
    wait_true(
        page,
        """() => {
          const bar = document.querySelector('.toolbar').getBoundingClientRect().bottom;
          const r = [...CSS.highlights.get('piexport-hit')][0].getBoundingClientRect();
          return r.top >= bar && r.bottom <= window.innerHeight;
        }""",
    )
    # (777 lines do not fit on a screen with their tool's name: the match comes first)
    # moving on: Escape ends the highlight
    page.keyboard.press("Escape")
    wait_true(page, "() => !CSS.highlights.has('piexport-hit')")
    watch.assert_clean()
    page.close()


def test_a_link_lands_with_its_head_clear_of_the_toolbar(
    browser: Browser, landing_site: Path
) -> None:
    session = next(landing_site.glob("*/*land.html"))
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    # a word near the top of a tool result: its tool's name and the match both in sight
    page.goto(session.as_uri() + "?hl=line+3#entry-r1")
    wait_true(page, "() => CSS.highlights.has('piexport-hit')")
    wait_true(
        page,
        """() => {
          const bar = document.querySelector('.toolbar').getBoundingClientRect().bottom;
          const head = document.querySelector('#entry-r1').closest('.tool').querySelector('.tool-head');
          const r = head.getBoundingClientRect();
          return r.top >= bar && r.bottom <= window.innerHeight;
        }""",
    )
    # "line 3" is a phrase of two words here: every "line" and the "3" that starts a word
    assert set(highlighted(page)) == {"line", "3"}
    # scrolled out of sight: the highlight ends
    page.mouse.move(900, 400)
    page.mouse.wheel(0, 100_000)
    wait_true(page, "() => !CSS.highlights.has('piexport-hit')")
    watch.assert_clean()
    page.close()
    # a plain link to a result whose call is taller than the screen: the result is in sight
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(session.as_uri() + "#entry-r90")
    wait_true(
        page,
        """() => {
          const bar = document.querySelector('.toolbar').getBoundingClientRect().bottom;
          const r = document.querySelector('#entry-r90').getBoundingClientRect();
          return r.top >= bar && r.top < window.innerHeight - 40;
        }""",
    )
    page.close()
    # without JavaScript the entry is still reached
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 800}
    )
    page = context.new_page()
    page.goto(session.as_uri() + "?hl=waitforidle#entry-r1")
    expect(page.locator("#entry-r1")).to_be_in_viewport()
    context.close()


@pytest.fixture(scope="module", params=list(MODES))
def shop_modes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = next(p for p in sample_files() if "01955b2a" in p.name)
    out = tmp_path_factory.mktemp("filters") / "shop.html"
    export_session(src, out, MODES[request.param])
    return out


SHOWN = """sel => [...document.querySelectorAll(sel)].filter(e => e.checkVisibility()).length"""


def test_view_filters_are_kept_in_the_address(browser: Browser, shop_modes: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto(shop_modes.as_uri())
    expect(page.locator("html")).to_have_class(HAS_JS)
    everything = page.evaluate(SHOWN, "main article.entry")
    page.select_option("#view", "prompts")
    expect(page).to_have_url(re.compile(r"\?view=prompts$"))
    # only the user's messages, and not none: the two of the current branch in sight
    wait_true(
        page,
        "() => [...document.querySelectorAll('main article.entry')]"
        ".filter(e => e.checkVisibility()).every(e => e.classList.contains('user'))",
    )
    prompts = page.evaluate(SHOWN, "main article.entry.user")
    assert 0 < prompts < everything
    expect(page.locator("#view-count")).to_have_text(f"{prompts} shown")
    # kept on reload
    page.reload()
    expect(page.locator("#view")).to_have_value("prompts")
    wait_true(page, f"() => ({SHOWN})('main article.entry') === {prompts}")
    # errors only: each entry shown holds an error, and the failing call is shown
    page.select_option("#view", "errors")
    expect(page).to_have_url(re.compile(r"\?view=errors$"))
    failed = page.locator("main .tool.tool-error").first
    expect(failed).to_be_visible()
    assert page.evaluate(
        "() => [...document.querySelectorAll('main article.entry')].filter(e => e.checkVisibility())"
        ".every(e => e.querySelector('.tool-error, .stop.error, .stop.aborted, .error'))"
    )
    expect(page.locator("main .tool:not(.tool-error)").first).to_be_hidden()
    # no tool output: results say how they ended, their output is gone
    page.select_option("#view", "quiet")
    expect(page.locator("main .tool-result .result-head").first).to_be_visible()
    expect(page.locator("main .tool-result pre").first).to_be_hidden()
    expect(page.locator("main article.entry.assistant").first).to_be_visible()
    # everything again: the address forgets the view
    page.select_option("#view", "")
    expect(page).not_to_have_url(re.compile(r"view="))
    wait_true(page, f"() => ({SHOWN})('main article.entry') === {everything}")
    watch.assert_clean()
    page.close()


def test_a_filter_keeps_what_a_link_or_a_branch_leads_to(
    browser: Browser, shop_modes: Path
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    # a deep link to an answer, under "prompts only": that answer is shown, no other one
    page.goto(shop_modes.as_uri() + "?view=prompts#entry-18b6f8f4")
    target = page.locator("#entry-18b6f8f4")
    expect(target).to_be_visible()
    expect(target).to_be_in_viewport()
    assert page.evaluate(SHOWN, "main article.entry.assistant") == 1
    # choosing another branch in the tree: its prompt is shown, the filter holds
    open_tree(page)
    # as an element: the tree scrolls itself to follow the page, and a click at the row's
    # place could land on another row (see test_navigator_shows_the_branch_of_the_row_chosen)
    page.locator("nav.outline a", has_text="user: Yes, add a regression test.").dispatch_event(
        "click"
    )
    chosen = page.locator("main article.user", has_text="Yes, add a regression test.")
    expect(chosen).to_be_visible()
    expect(page.locator("main article.user", has_text="Actually, coupons should")).to_be_hidden()
    expect(page.locator("#view")).to_have_value("prompts")
    watch.assert_clean()
    page.close()


def test_copy_buttons_copy_code_commands_and_links(browser: Browser, shop_page: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = context.new_page()
    watch = Watch(page)
    page.goto(shop_page.as_uri())
    expect(page.locator("html")).to_have_class(HAS_JS)
    # a bash call: pointing at its entry adds the buttons; the command is copied as written
    tool = page.locator("main .tool-bash").first
    tool.scroll_into_view_if_needed()
    tool.locator("pre.hl").first.hover()
    button = tool.locator("button.copy[aria-label='Copy the command']").first
    expect(button).to_be_visible()
    command = tool.locator("pre.hl").first.text_content()
    button.click()
    expect(button).to_have_class(re.compile(r"\bdone\b"))
    assert page.evaluate("navigator.clipboard.readText()") == command
    # a folded output copies all its lines, not the preview
    src = next(p for p in sample_files() if "019483f7" in p.name)
    pipeline = shop_page.parent / "pipeline.html"
    export_session(src, pipeline)
    page.goto(pipeline.as_uri())
    fold = page.locator("main details.fold:visible").first
    fold.scroll_into_view_if_needed()
    fold.hover()
    fold_button = fold.locator("xpath=preceding-sibling::button[contains(@class,'copy')][1]")
    fold_button.click()
    expect(fold_button).to_have_class(re.compile(r"\bdone\b"))
    full = fold.locator(":scope > pre, :scope > .code-with-lines pre.hl").first.text_content()
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == full and copied.count("\n") > 20
    # a link to an entry
    page.goto(shop_page.as_uri())
    entry = page.locator("main article.entry.user").first
    entry.hover()
    entry.locator("button.copy-link").click()
    dom = entry.get_attribute("id")
    assert page.evaluate("navigator.clipboard.readText()") == shop_page.as_uri() + "#" + dom
    watch.assert_clean()
    context.close()


def test_with_no_clipboard_the_text_is_selected(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.add_init_script(
        "Object.defineProperty(navigator, 'clipboard', { value: undefined });"
        "document.execCommand = () => false;"
    )
    page.goto(shop_page.as_uri())
    tool = page.locator("main .tool-bash").first
    tool.scroll_into_view_if_needed()
    tool.locator("pre.hl").first.hover()
    button = tool.locator("button.copy").first
    button.click()
    expect(button).to_have_class(re.compile(r"\bselected\b"))
    selected = page.evaluate("getSelection().toString()")
    assert selected.rstrip("\n") == (tool.locator("pre.hl").first.text_content() or "").rstrip("\n")
    # copy buttons are never part of what search or highlight reads (labels are CSS)
    assert "Copy" not in (tool.text_content() or "")
    page.close()


def test_question_mark_shows_the_keys(browser: Browser, shop_page: Path) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    page.goto(shop_page.as_uri())
    expect(page.locator("html")).to_have_class(HAS_JS)
    keys = page.locator("#keys")
    expect(keys).to_be_hidden()
    page.keyboard.press("?")
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("next and previous entry")
    page.keyboard.press("Escape")
    expect(keys).to_be_hidden()
    page.click("button[data-action='keys']")
    expect(keys).to_be_visible()
    page.click("button[data-action='close-keys']")
    expect(keys).to_be_hidden()
    # it leaves the page usable: the theme button next to it still works while it is open
    page.keyboard.press("?")
    expect(keys).to_be_visible()
    page.click("button[data-action='theme']")
    expect(page.locator("html")).to_have_class(re.compile(r"\bdark\b"))
    watch.assert_clean()
    page.close()

"""Issue 38 in the browser: the timeline's marks open their entries, a phone reads the page
without sideways scrolling (cost seen, first message within two screens, code wrapped), the
project table is whole at 1280 px, j/k frame the entry they reach and step over one-line
markers, and the tree and the folded branches follow the view filter."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.export.pipeline import export_session
from piexport.site.build import build_site

from tests.support.browser import HAS_JS, Watch
from tests.support.errors_session import errors_session
from tests.support.sessions import HEADER, SAMPLES, msg, to_lines, ts

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
LONG_LINE = "x = " + " + ".join(f"value_{i}" for i in range(60))


def _reply(eid: str, parent: str, second: int, text: str, model: str = "claude-sonnet-4-5") -> Any:
    usage = {"input": 900, "output": 90, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 990}
    usage["cost"] = {"total": 0.01}
    return msg(
        eid,
        parent,
        "assistant",
        [{"type": "text", "text": text}],
        second,
        stopReason="stop",
        usage=usage,
        provider="anthropic",
        model=model,
    )


def _reading_session(folder: Path) -> Path:
    """Forty turns with one-line markers between them (a model change, a thinking level), a
    side branch with no error, a long line of code, and a read with numbered lines."""
    records: list[Any] = []
    parent = None
    for i in range(40):
        u, a = f"u{i:02d}", f"a{i:02d}"
        text = f"step {i}: tidy the cart" + (f"\n\n```python\n{LONG_LINE}\n```" if i == 1 else "")
        records.append(msg(u, parent, "user", text, 20 * i))
        records.append(_reply(a, u, 20 * i + 5, f"Done with step {i}."))
        parent = a
        if i in (2, 4):
            kind = "model_change" if i == 2 else "thinking_level_change"
            extra = {"provider": "anthropic", "modelId": "claude-opus-4"} if i == 2 else {}
            extra = extra or {"thinkingLevel": "high"}
            records.append(
                {"type": kind, "id": f"m{i}", "parentId": parent, "timestamp": ts(20 * i + 6)}
                | extra
            )
            parent = f"m{i}"
        if i == 6:  # a side branch from here, without an error
            records.append(msg("side1", a, "user", "or another way?", 20 * i + 7))
            records.append(_reply("side2", "side1", 20 * i + 8, "Another way."))
    path = folder / "2025-01-01T10-00-00-000Z_reading.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    records.sort(key=lambda r: r["timestamp"])
    path.write_bytes(to_lines([HEADER, *records]))
    return path


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("reader-layout")
    out = {}
    for name, make in (("reading", _reading_session), ("errors", errors_session)):
        out[name] = folder / f"{name}.html"
        export_session(make(folder / name), out[name])
    return out


def _loaded(page: Page, path: Path, query: str = "") -> None:
    page.goto(path.as_uri() + query)
    expect(page.locator("html")).to_have_class(HAS_JS)


def _open_timeline(page: Page) -> None:
    """Open the panel and bring it below the sticky toolbar (a click there would land on
    the toolbar, as a reader's would)."""
    page.locator("#timeline > summary").click()
    page.evaluate(
        "window.scrollTo(0, document.getElementById('timeline').getBoundingClientRect().top"
        " + scrollY - 150)"
    )


def test_timeline_marks_open_their_entries(browser: Browser, pages: dict[str, Path]) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    watch = Watch(page)
    _loaded(page, pages["errors"])
    _open_timeline(page)
    fails = page.locator("#timeline svg a").filter(has=page.locator("line.mark-failure"))
    expect(fails).to_have_count(4)
    last = fails.last
    href = last.get_attribute("href") or ""
    assert href.startswith("#entry-")
    last.click()
    expect(page).to_have_url(pages["errors"].as_uri() + href)
    expect(page.locator(href)).to_be_in_viewport()
    # a run's bar links too
    bar = page.locator("#timeline svg a").filter(has=page.locator("rect.tl")).first
    expect(bar).to_have_attribute("href", "#entry-a1")  # u1 took no time: no bar
    # on a longer page, a bar in the middle lands its entry in the upper half of the screen
    _loaded(page, pages["reading"])
    _open_timeline(page)
    middle = page.locator('#timeline svg a[href="#entry-a20"]')
    middle.click()
    expect(page).to_have_url(pages["reading"].as_uri() + "#entry-a20")
    page.wait_for_function(
        "() => { const r = document.getElementById('entry-a20').getBoundingClientRect();"
        " return r.top >= 0 && r.top < innerHeight / 2; }"
    )
    watch.assert_clean()
    page.close()


def test_the_timeline_reads_without_javascript(browser: Browser, pages: dict[str, Path]) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(pages["errors"].as_uri())
    _open_timeline(page)
    expect(page.locator("#timeline figcaption")).to_contain_text("4 failures")
    expect(page.locator("#timeline svg a").first).to_be_visible()
    context.close()


def _no_sideways_scroll(page: Page) -> None:
    page.wait_for_function("document.documentElement.scrollWidth <= innerWidth")
    # every code block drawn wraps inside its box
    page.wait_for_function(
        "[...document.querySelectorAll('main pre')].every("
        "p => !p.clientWidth || p.scrollWidth <= p.clientWidth + 1)"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_phone_reads_without_sideways_scroll(
    browser: Browser, pages: dict[str, Path], scheme: Any
) -> None:
    page = browser.new_page(viewport=PHONE, color_scheme=scheme)
    for name in ("reading", "errors"):
        _loaded(page, pages[name])
        _no_sideways_scroll(page)
        # the first message within two screens of the top
        page.wait_for_function(
            "document.querySelector('main [data-entry-id]').getBoundingClientRect().top"
            " + scrollY <= 2 * innerHeight"
        )
        # the header's cost is on screen, not behind a sideways scroll
        cost = page.locator("header.session-header table.figures tbody td.cost").first
        expect(cost).to_be_in_viewport(ratio=1)
        # the timeline opened stays within the phone's width
        _open_timeline(page)
        _no_sideways_scroll(page)
    page.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("reader-site") / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    # a session of three models with long names, in the shop project
    shop = root / "--home-alice-src-shop--"
    records: list[Any] = [msg("u1", None, "user", "compare the models", 1)]
    for i, model in enumerate(
        ("claude-sonnet-4-5-20250929", "gemini-2.5-flash-preview-05-20", "gpt-5-codex-mini")
    ):
        records.append(_reply(f"a{i}", records[-1]["id"], 2 + i, "ok", model=model))
    for r in records[1:]:  # no cost reported: the Cost cell is an estimate, wider
        r["message"]["usage"]["cost"] = {"total": 0}
    header = {**HEADER, "cwd": "/home/alice/src/shop"}
    (shop / "2025-03-05T09-00-00-000Z_models.jsonl").write_bytes(to_lines([header, *records]))
    out = root.parent / "site"
    build_site(root, out, jobs=1)
    return out


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_project_table_is_whole_at_1280(browser: Browser, site: Path, scheme: Any) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    _loaded(page, next(site.glob("home-alice-src-shop-*/index.html")))
    wrap = page.locator("#project-table").locator("xpath=..")
    page.wait_for_function(
        "() => { const w = document.getElementById('project-table').parentElement;"
        " return w.scrollWidth <= w.clientWidth; }"
    )
    expect(wrap).to_have_class("table-wrap")
    for head in ("Models", "Cost", "Errors"):
        expect(page.locator("#project-table th", has_text=head)).to_be_in_viewport(ratio=1)
    # one model a line, cut rather than broken in two
    models = page.locator("#project-table td.models .model")
    expect(models.filter(has_text="gemini-2.5-flash-preview-05-20")).to_have_count(1)
    line = page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('#project-table td.models .model'))"
        ".lineHeight)"
    )
    for box in models.all():
        height = box.bounding_box()
        assert height is not None and height["height"] < 1.6 * line
    page.close()


def test_j_and_k_frame_entries_and_step_over_markers(
    browser: Browser, pages: dict[str, Path]
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 700})
    watch = Watch(page)
    _loaded(page, pages["reading"])
    page.evaluate(
        "window.scrollTo(0, document.getElementById('entry-u00').getBoundingClientRect().top"
        " + scrollY - 200)"
    )
    stepped = page.locator("main .stepped")
    want = ["u00", "a00", "u01", "a01", "u02", "a02", "u03", "a03", "u04", "a04", "u05"]
    for eid in want:  # m2 and m4, one-line markers, are stepped over
        page.keyboard.press("j")
        expect(stepped).to_have_count(1)
        expect(stepped).to_have_attribute("id", f"entry-{eid}")
        expect(stepped).to_be_in_viewport()
    frame = stepped.evaluate(
        "e => [getComputedStyle(e).outlineStyle, getComputedStyle(e).outlineWidth]"
    )
    assert frame == ["solid", "2px"]
    for eid in reversed(want[:-1]):
        page.keyboard.press("k")
        expect(stepped).to_have_attribute("id", f"entry-{eid}")
    watch.assert_clean()
    page.close()


def test_the_tree_and_folded_branches_follow_the_view(
    browser: Browser, pages: dict[str, Path]
) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    _loaded(page, pages["reading"])
    rows = page.locator("nav.outline .rows li")
    if not page.locator("nav.outline details").evaluate("d => d.open"):
        page.locator("nav.outline summary").click()
    expect(rows.filter(has_text="[model: ")).to_be_visible()
    page.select_option("#view", "prompts")
    expect(page.locator("nav.outline .rows li:visible")).to_have_count(41)  # 40 + the side's
    expect(rows.filter(has_text="[model: ")).to_be_hidden()
    # errors only: no error on this page, no row and no "Other branch" line left
    page.select_option("#view", "errors")
    expect(page.locator("nav.outline .rows li:visible")).to_have_count(0)
    expect(page.locator("main details.branch")).to_be_hidden()
    page.select_option("#view", "")
    expect(page.locator("main details.branch")).to_be_visible()
    page.close()

    # with errors: the side branch holding one keeps its line
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    _loaded(page, pages["errors"], "?view=errors")
    expect(page.locator("main details.branch")).to_be_visible()
    expect(page.locator("nav.outline .rows li:visible")).to_have_count(5)
    page.close()

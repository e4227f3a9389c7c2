"""``piexport serve`` in Chromium: an open page follows its session without a reload,
keeping the reader's place, folds and branch; what arrives live runs nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.export.pipeline import RenderOptions

from tests.support.browser import WAIT_MS, poke_everything
from tests.support.live import Served, append, copy_shop, message_line, serve_process
from tests.support.payloads import PAYLOADS, hostile_session
from tests.support.sessions import msg

pytestmark = pytest.mark.browser

LIVE = WAIT_MS
"""How long a page may take to show an appended line before the test calls it stuck: a
state decides (the line is there), never a time. The issue promises 3 s on an idle machine,
but the serve process rebuilds the page on a machine shared with the other xdist worker (and
anything else), where 3 s failed with the line on its way, and 30 s could under a load of 20."""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    source = copy_shop(tmp_path / "s")
    with serve_process(tmp_path / "s", tmp_path / "o") as live:
        yield live, source


class Seen:
    """What must stay empty: page errors, dialogs, console errors, requests elsewhere."""

    def __init__(self, page: Page, origin: str) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.elsewhere: list[str] = []
        self.requests: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))

        def route(r: Any) -> None:
            url = r.request.url
            if url.startswith(origin):
                self.requests.append(f"{r.request.method} {url}")
                r.continue_()
            elif url.startswith("data:"):
                r.continue_()
            else:
                self.elsewhere.append(url)
                r.abort()

        page.route("**/*", route)

    def assert_clean(self) -> None:
        assert self.errors == [] and self.dialogs == [] and self.elsewhere == []


VISIBLE = (
    "() => Array.from(document.querySelectorAll('main [data-entry-id]'))"
    ".filter(e => e.checkVisibility()).map(e => e.id).sort()"
)
"""The entries a reader can see (a closed fold's content and other branches are not seen)."""


def open_page(browser: Browser, live: Served, source: Path) -> tuple[Page, Seen]:
    page = browser.new_page(viewport={"width": 1200, "height": 800})
    url = live.url(live.page_of(source))
    seen = Seen(page, url.split("/", 3)[0] + "//" + url.split("/", 3)[2])
    page.goto(url)
    expect(page.locator(".live-status")).to_contain_text("live")
    page.evaluate("window.__same_document = true")
    return page, seen


def test_appended_entry_appears_in_place(browser: Browser, served: tuple[Served, Path]) -> None:
    live, source = served
    page, seen = open_page(browser, live, source)
    # the reader's state: a fold opened, scrolled to the middle
    fold = page.locator("main article.entry details").first
    expect(fold).not_to_have_attribute("open", "")
    fold.locator("summary").click()
    expect(fold).to_have_attribute("open", "")
    key = page.evaluate(
        """() => {
            const d = document.querySelector("main article.entry details[open]");
            const e = d.closest('[data-entry-id]');
            return [e.id, Array.prototype.indexOf.call(e.querySelectorAll('details'), d)];
        }"""
    )
    page.evaluate("window.scrollTo(0, 700)")
    # in the middle: a reader at the very end follows the session down instead
    assert page.evaluate(
        "window.innerHeight + window.scrollY < document.documentElement.scrollHeight - 100"
    )
    anchor = page.evaluate(
        """() => {
            for (const el of document.querySelectorAll('main article.entry, main .inline-marker')) {
                const r = el.getBoundingClientRect();
                if (r.height && r.bottom > 60) return [el.id, r.top];
            }
        }"""
    )
    append(source, message_line(source, "appended while the reader reads", 1))
    expect(page.locator("#transcript")).to_contain_text(
        "appended while the reader reads", timeout=LIVE
    )
    assert page.evaluate("window.__same_document") is True  # no reload
    # the fold is still open, the same entry is where it was
    assert page.evaluate(
        "([id, i]) => document.getElementById(id).querySelectorAll('details')[i].open", key
    )
    top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", anchor[0])
    assert abs(top - anchor[1]) < 2
    # the header figures follow too
    expect(page.locator(".session-header")).to_contain_text("41 in the file")
    seen.assert_clean()
    page.close()


def test_chosen_branch_stays_chosen(browser: Browser, served: tuple[Served, Path]) -> None:
    live, source = served
    page, seen = open_page(browser, live, source)
    # another branch, chosen from the session tree (open on a wide screen)
    page.locator("nav .rows li.off-path a").first.click()
    expect(page.locator("#branch-status")).to_be_visible()
    expect(page.locator("main#transcript")).to_have_class("choosing")
    seen_entries = page.evaluate(VISIBLE)
    assert seen_entries
    append(source, message_line(source, "on the current branch, not the chosen one", 1))
    expect(page.locator("#entry-live0001")).to_be_attached(timeout=LIVE)
    expect(page.locator("main#transcript")).to_have_class("choosing")
    expect(page.locator("#branch-status")).to_be_visible()
    # the reader sees the same entries: the new one is on another branch than the one chosen
    assert page.evaluate(VISIBLE) == seen_entries
    # back to the current branch: the new entry is there
    page.locator("#branch-status button").click()
    expect(page.locator("#entry-live0001")).to_be_visible()
    assert page.evaluate("window.__same_document") is True
    seen.assert_clean()
    page.close()


def test_index_gets_the_new_session(browser: Browser, served: tuple[Served, Path]) -> None:
    live, source = served
    page = browser.new_page()
    index = next(live.out.glob("*/index.html"))
    url = live.url(index)
    seen = Seen(page, url.split("/", 3)[0] + "//" + url.split("/", 3)[2])
    page.goto(url)
    expect(page.locator("table.sessions tbody tr")).to_have_count(2)
    page.evaluate("window.__same_document = true")
    new = source.with_name("2025-03-05T10-00-00-000Z_new.jsonl")
    header = orjson.loads(source.read_bytes().split(b"\n", 1)[0])
    first = {  # a day after the other sessions
        **msg("first", None, "user", "a brand new session", 1),
        "timestamp": "2025-03-05T10:00:01.000Z",
    }
    new.write_bytes(
        orjson.dumps({**header, "id": "new-session"}) + b"\n" + orjson.dumps(first) + b"\n"
    )
    expect(page.locator("table.sessions tbody tr")).to_have_count(3, timeout=LIVE)
    expect(page.locator("table.sessions")).to_contain_text("a brand new session")
    assert page.evaluate("window.__same_document") is True
    seen.assert_clean()
    page.close()


def test_payloads_arriving_live_run_nothing(browser: Browser, served: tuple[Served, Path]) -> None:
    live, source = served
    page, seen = open_page(browser, live, source)
    lines = []
    for p in PAYLOADS:
        records, _ = hostile_session(p)
        lines += [r if isinstance(r, bytes) else orjson.dumps(r) for r in records[1:]]
    append(source, b"\n".join(lines) + b"\n")
    append(source, message_line(source, "after the payloads", 1))
    # the page is big now: the end waits as <noscript> source, which locators do not read
    page.wait_for_function(
        "() => document.getElementById('transcript').textContent.includes('after the payloads')"
    )
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")  # builds every part
    expect(page.locator("#entry-live0001")).to_contain_text("after the payloads")
    poke_everything(page)
    assert page.evaluate("Object.keys(window).filter(k => k.startsWith('__xss'))") == []
    assert page.evaluate("window.__same_document") is True
    seen.assert_clean()
    # the page asked only for itself
    path = "/" + live.page_of(source).relative_to(live.out).as_posix()
    assert {r.split(" ", 1)[1].split("/", 3)[3] for r in seen.requests} == {path.lstrip("/")}
    page.close()


def test_static_page_stays_silent(
    browser: Browser, served: tuple[Served, Path], tmp_path: Path
) -> None:
    """A page from ``site`` (no live tag, no connect-src) makes no request even when served:
    its policy forbids every connection (``default-src 'none'`` and no ``connect-src``), so
    silence is a property of the page, read from it, not waited for."""
    live, source = served
    from piexport.export.pipeline import export_session

    static = live.out / "static-copy.html"
    export_session(source, static, RenderOptions())
    page = browser.new_page()
    url = live.url(static)
    seen = Seen(page, url.split("/", 3)[0] + "//" + url.split("/", 3)[2])
    page.goto(url)
    expect(page.locator("html")).to_have_class("has-js")
    policy = page.locator('meta[http-equiv="Content-Security-Policy"]').get_attribute("content")
    assert policy is not None and "default-src 'none'" in policy
    assert "connect-src" not in policy
    # and the script tried none: a blocked fetch would be a violation report
    page.wait_for_load_state("networkidle")
    assert page.locator(".live-status").count() == 0
    assert seen.requests == [f"GET {url}"]
    seen.assert_clean()
    page.close()

"""The shared Chromium (Debian's, driven by Playwright, with no network of its own) and
what the browser tests do with a page. The one support module that imports Playwright."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from piexport.export.pipeline import RenderOptions

# Every expect() waits for its state, and a state decides, never a time: on a 2-core
# machine with a load of 20 a page's script took longer than 20 s to reach one. The wait is
# only how long a test that fails takes to say so; waiting longer never passes a wrong state.
WAIT_MS = 180_000
expect.set_options(timeout=WAIT_MS)

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            "Debian chromium is missing: apt-get install -y chromium (the README's test command does it)"
        )
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, timeout=WAIT_MS)
        new_page, new_context = b.new_page, b.new_context

        def patient_page(*args: Any, **kwargs: Any) -> Page:
            page = new_page(*args, **kwargs)
            page.set_default_timeout(WAIT_MS)  # clicks and waits: for a state, as expect()
            return page

        def patient_context(*args: Any, **kwargs: Any) -> Any:
            context = new_context(*args, **kwargs)
            context.set_default_timeout(WAIT_MS)
            return context

        b.new_page = patient_page  # type: ignore[method-assign]
        b.new_context = patient_context  # type: ignore[method-assign]
        yield b
        b.close()


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


LAZY = RenderOptions(live_chars=0, chunk_chars=2_000, nav_rows=0, group_entries=2)
"""A big session's page on a small one: every part of the transcript and the tree wait as
<noscript> source until needed, so each behaviour is checked on both kinds of page."""
MODES = {"whole": RenderOptions(), "lazy": LAZY}
HAS_JS = re.compile(r"\bhas-js\b")


def wait_true(page: Page, expression: str, arg: object = None) -> None:
    """Wait (up to :data:`WAIT_MS`) until a script expression is true: for states that
    have no locator (every fold open, the page scrolled)."""
    page.wait_for_function(expression, arg=arg)


def poke_everything(page: Page) -> None:
    """Open every fold and hover/focus every element a payload could hang a handler on, then
    give the page a moment: whatever a payload would run, runs now."""
    page.evaluate(
        """() => {
            document.querySelectorAll('details').forEach(d => { d.open = true; });
            for (const el of document.querySelectorAll('a, span, code, img, input')) {
                for (const type of ['mouseover', 'mouseenter', 'focus']) {
                    el.dispatchEvent(new MouseEvent(type, {bubbles: true}));
                }
            }
        }"""
    )
    page.wait_for_timeout(50)


def probe(page: Page, url: str, look: Callable[[Page], None] | None = None) -> dict[str, int]:
    """Open, poke everything, and count what must stay zero; ``look`` sees the page as
    it opened, before anything is clicked."""
    dialogs: list[str] = []
    requests: list[str] = []
    errors: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))

    def route(r: Any) -> None:
        if r.request.url.startswith(("file:", "data:")):
            r.continue_()
        else:
            requests.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(url)
    if look is not None:
        look(page)
    # build every part of a big page that waits as <noscript> source (print does that)
    page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
    # click the first ten buttons a reader can see, in one go (a payload's handler runs on a
    # script's click as on a reader's; ten round trips of Playwright's own clicks cost more
    # than the rest of the page)
    page.evaluate(
        """() => {
            const shown = [...document.querySelectorAll('button')].slice(0, 10)
                .filter(b => b.checkVisibility());
            for (const b of shown) { if (b.isConnected) b.click(); }
        }"""
    )
    poke_everything(page)
    flags = page.evaluate("Object.keys(window).filter(k => k.startsWith('__xss')).length")
    final_url = page.url
    return {
        "executed": len(dialogs) + flags + len(errors),
        "requests": len(requests) + (0 if final_url.startswith("file:") else 1),
    }


def strip_csp(html: str) -> str:
    return re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html, count=1)

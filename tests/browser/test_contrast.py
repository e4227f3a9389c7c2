"""Every text a reader can see meets WCAG AA in both themes: 4.5:1 (3:1 for large text).

Measured in Chromium on the pages a site is made of: every sample session (branches,
compactions, a damaged file, bash colours), pi 1.5's test sessions (system prompt, context
edits, subagents), a long generated one (every tool, ANSI output), the indexes, the search
page with results, the compare view and the keyboard help; with every fold open and every
waiting part built, so the text behind folds is measured too (``contrast.py``).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from piexport.site.build import build_site

from tests.support.browser import HAS_JS, Watch
from tests.support.contrast import LOW_CONTRAST
from tests.support.errors_session import errors_session
from tests.support.sessions import DATA, SAMPLES, bench_session

pytestmark = pytest.mark.browser
DARK = re.compile(r"\bdark\b")
LIGHT = re.compile(r"^(?!.*\bdark\b)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("contrast") / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    # pi 1.5's sessions: system prompt, context edits, subagents, nested calls
    shutil.copytree(
        DATA / "pi15", root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("--random--")
    )
    (root / "--home-bench-shop--").mkdir()
    (root / "--home-bench-shop--" / "2025-06-01T09-00-00-000Z_bench.jsonl").write_bytes(
        bench_session(150)
    )
    # issue 38: failed entries marked in the tree, a folded skill, the Active column
    errors_session(root / "--home-errors--")
    out = root.parent / "site"
    build_site(root, out, jobs=1)
    yield out


def every_text_shown(page: Page) -> None:
    """Every waiting part built, every fold open (as for printing, and then some)."""
    expect(page.locator("html")).to_have_class(HAS_JS)
    # entries off screen are styled only when asked, one by one, unless shown whole
    page.evaluate(
        "window.dispatchEvent(new Event('beforeprint'));"
        "document.querySelectorAll('details').forEach(d => { d.open = true; });"
        "document.styleSheets[0].insertRule('.entry { content-visibility: visible !important; }', 0);"
    )


def pages(site: Path) -> list[tuple[str, str]]:
    sessions = sorted(p for p in site.glob("*/*.html") if p.name != "index.html")
    shop = next(p for p in sessions if "01955b2a" in p.name)
    found = [(p.stem[-12:], p.as_uri()) for p in sessions]
    found += [
        ("root index", (site / "index.html").as_uri()),
        ("project index", (shop.parent / "index.html").as_uri()),
        ("search", (site / "search.html").as_uri() + "?q=coupon"),
        ("compare", shop.as_uri() + "#compare=38c84050,4b017ce2"),
        ("keys", shop.as_uri()),
    ]
    return found


def test_every_text_meets_wcag_aa_in_both_themes(browser: Browser, site: Path) -> None:
    failures: dict[str, list[dict[str, object]]] = {}
    for name, url in pages(site):
        page = browser.new_page(viewport={"width": 1280, "height": 900}, color_scheme="light")
        watch = Watch(page)
        page.goto(url)
        if name == "search":
            expect(page.locator(".hit-when").first).to_be_visible()
        if name == "compare":
            expect(page.locator("#compare .cmp-row").first).to_be_visible()
        every_text_shown(page)
        if name == "keys":
            page.keyboard.press("?")
            expect(page.locator("#keys")).to_be_visible()
        for theme in ("light", "dark"):
            if theme == "dark":  # as the theme button does it
                page.evaluate("document.documentElement.classList.add('dark')")
            expect(page.locator("html")).to_have_class(DARK if theme == "dark" else LIGHT)
            bad = page.evaluate(LOW_CONTRAST, 50)
            if bad:
                failures[f"{name} ({theme})"] = bad
        watch.assert_clean()
        page.close()
    assert failures == {}

"""The XSS harness: every payload in every field, opened in Chromium, must do nothing.

Each payload goes into every field a session has (header, ids, names, labels, model ids,
tool names, arguments, output, paths, image mime types and data, custom types, summaries,
file lists, error messages). Each page is opened from file:// with every <details> open,
every button clicked and links hovered, twice: as written (with its CSP) and with the CSP
stripped, so escaping alone is proven. A deliberately unsafe control page must trigger the
harness, or the run proves nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from piexport.export.pipeline import RenderOptions, export_session

from tests.support.browser import probe, strip_csp
from tests.support.pages import static_checks, unseen
from tests.support.payloads import PAYLOAD_IDS, PAYLOADS, hostile_session, write_session
from tests.support.stats import STATS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, Path, Path, Path]]]:
    root = tmp_path_factory.mktemp("xss")
    out = []
    for i, payload in enumerate(PAYLOADS):
        records, placements = hostile_session(payload)
        src = write_session(records, root / f"p{i}.jsonl")
        page = root / f"p{i}.html"
        export_session(src, page)
        bare = root / f"p{i}-nocsp.html"
        bare.write_text(strip_csp(page.read_text(encoding="utf-8")), encoding="utf-8")
        # the big-page form: every part waits as <noscript> source and the script builds it
        lazy = root / f"p{i}-lazy.html"
        export_session(src, lazy, RenderOptions(live_chars=0, chunk_chars=0, nav_rows=0))
        assert "<noscript>" in lazy.read_text(encoding="utf-8")
        STATS["placements"] += placements
        out.append((payload, page, bare, lazy))
    yield out


def test_control_page_triggers_the_harness(browser: Browser, tmp_path: Path) -> None:
    """An unsafe render (payloads pasted raw, no CSP) must be caught, or the harness is blind."""
    raw = "".join(p for p in PAYLOADS if "onerror" in p or "<script>" in p)
    unsafe = tmp_path / "unsafe.html"
    unsafe.write_text(
        f"<!doctype html><html><body><main>{raw}</main></body></html>", encoding="utf-8"
    )
    page = browser.new_page()
    result = probe(page, unsafe.as_uri())
    page.close()
    assert result["executed"] >= 1


@pytest.mark.parametrize("form", ["csp", "no-csp", "lazy"])
@pytest.mark.parametrize("index", range(len(PAYLOADS)), ids=PAYLOAD_IDS)
def test_no_payload_runs_or_loads_anything(
    browser: Browser, pages: list[tuple[str, Path, Path, Path]], form: str, index: int
) -> None:
    payload, page_path, bare, lazy = pages[index]
    target = {"csp": page_path, "no-csp": bare, "lazy": lazy}[form]
    static_checks((lazy if form == "lazy" else page_path).read_text(encoding="utf-8"))
    page = browser.new_page()
    result = probe(page, target.as_uri())
    own_script_ran = page.evaluate("document.documentElement.classList.contains('has-js')")
    # what the reader sees once the script has built every part: no hidden character
    hidden = unseen(page.evaluate("document.title + document.body.innerText"))
    page.close()
    STATS["pages"] += 1
    STATS["executed"] += result["executed"]
    STATS["requests"] += result["requests"]
    bad = result["executed"] or result["requests"] or not own_script_ran or hidden
    assert not bad, (payload, result, own_script_ran, hidden)


COMPARES = {"csp": "#compare=w2r,w1r", "no-csp": "#compare=w1r,w2r"}
"""Two branches that write the hostile path: a diff of hostile text, in both orders (the
page holds one, the other is swapped by the script)."""


@pytest.mark.parametrize("form", list(COMPARES))
@pytest.mark.parametrize("index", range(len(PAYLOADS)), ids=PAYLOAD_IDS)
def test_compare_view_runs_nothing(
    browser: Browser, pages: list[tuple[str, Path, Path, Path]], form: str, index: int
) -> None:
    """The compare view shows hostile text from its data island as text, in every part."""
    payload, page_path, bare, _lazy = pages[index]
    target = (page_path if form == "csp" else bare).as_uri() + COMPARES[form]
    page = browser.new_page()
    seen: dict[str, Any] = {}

    def look(p: Page) -> None:
        seen["shown"] = p.locator("#compare").is_visible()
        seen["diffs"] = p.locator("#compare .cmp-diff").count()
        seen["hidden"] = unseen(p.evaluate("document.body.innerText"))

    result = probe(page, target, look)
    page.close()
    STATS["pages"] += 1
    STATS["executed"] += result["executed"]
    STATS["requests"] += result["requests"]
    bad = result["executed"] or result["requests"] or seen["hidden"]
    assert not bad and seen["shown"] and seen["diffs"] == 1, (payload, result, seen)

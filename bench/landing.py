"""Where in-page links land on a big page (issue 38): for a tree row, a Prompts link and a
Files link at 25/50/80/95 % of each list, the target's top in px from the screen's top,
right after the click and after the page has settled.

    .venv/bin/piexport render bench/.cache/s2000.jsonl -o /tmp/s2000.html
    .venv/bin/python bench/landing.py /tmp/s2000.html [--phone]

Prints figures, asserts nothing. Uses Debian's /usr/bin/chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

KINDS = [
    ("tree", "nav.outline ol.rows a[href^='#entry-']"),
    ("prompts", "details.prompts-panel ol.prompts a"),
    ("files", "details.files-panel .change-head a"),
]
OPEN = {
    "tree": "() => { const d = document.querySelector('nav.outline details'); d.open = true; }",
    "prompts": "() => { document.querySelector('details.prompts-panel').open = true; }",
    "files": "() => { const d = document.querySelector('details.files-panel');"
    " d.open = true; d.querySelectorAll('details').forEach(x => x.open = true); }",
}
TOP = "id => { const e = document.getElementById(id); return e ? Math.round(e.getBoundingClientRect().top) : null; }"


def main() -> None:
    page_path = Path(sys.argv[1]).resolve()
    size = (
        {"width": 390, "height": 844} if "--phone" in sys.argv else {"width": 1280, "height": 800}
    )
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        for kind, selector in KINDS:
            for fraction in (0.25, 0.5, 0.8, 0.95):
                page = b.new_page(viewport=size)
                page.goto(page_path.as_uri())
                page.wait_for_function("document.documentElement.classList.contains('has-js')")
                page.evaluate(OPEN[kind])
                page.wait_for_selector(selector)
                links = page.locator(selector)
                link = links.nth(int(links.count() * fraction))
                href = link.get_attribute("href") or "#"
                link.scroll_into_view_if_needed()
                link.click()
                first = page.evaluate(TOP, href[1:])
                page.wait_for_timeout(1500)  # a figure, not a test: let the page settle
                print(
                    f"{kind:8} {fraction:.2f} {href:24} top {first} px, settled {page.evaluate(TOP, href[1:])} px"
                )
                page.close()
        b.close()


if __name__ == "__main__":
    main()

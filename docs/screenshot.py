"""Screenshot a page in Debian's Chromium (light/dark, desktop/phone) for review and the README.

    .venv/bin/python docs/screenshot.py PAGE.html OUT_PREFIX

Writes OUT_PREFIX-{light,dark}-{desktop,phone}.png. Needs `apt-get install chromium` and the
test extra (Playwright, which drives /usr/bin/chromium; it never downloads a browser).
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


def main() -> None:
    page_path, prefix = Path(sys.argv[1]).resolve(), sys.argv[2]
    query = sys.argv[3] if len(sys.argv) > 3 else ""  # e.g. ?q=coupon for search.html
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        for scheme in ("light", "dark"):
            for name, (w, h) in SIZES.items():
                page = browser.new_page(viewport={"width": w, "height": h}, color_scheme=scheme)
                page.goto(page_path.as_uri() + query)
                page.wait_for_timeout(400 if query else 100)
                out = f"{prefix}-{scheme}-{name}.png"
                page.screenshot(path=out)
                print(out)
                page.close()
        browser.close()


if __name__ == "__main__":
    main()

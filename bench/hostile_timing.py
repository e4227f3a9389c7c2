"""Hostile input, timed: prints figures, asserts nothing (the suite counts work instead).

    .venv/bin/python bench/hostile_timing.py [--no-browser]

The suite bounds hostile input by counting (tests/redact: characters the rules' searches get
through, and no nested unbounded repeat; tests/browser/test_search_hostile.py: characters and
postings a query reads). A count cannot see backtracking inside one regex call, nor a frozen tab,
so the times are measured here, on a quiet machine, as figures of record:

- the redactor on each adversarial near-miss repeated over 12.5 KB and over 200 KB (16 times the
  text): CPU seconds, best of three, and their ratio (linear is about 16; a pattern that backtracks
  over what it scanned is 256 or more);
- search.html on each hostile query of tests/support/hostile_search.py: the longest time the tab
  went without running a 50 ms timer (a frozen tab shows seconds), in Debian's Chromium.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEARTBEAT = """
window.__longest = 0;
(function () {
  var last = performance.now();
  setInterval(function () {
    var now = performance.now();
    window.__longest = Math.max(window.__longest, now - last);
    last = now;
  }, 50);
})();
"""


def redactor() -> None:
    from piexport import Redactor
    from piexport.redact.views import fast_normal

    from tests.redact.test_redact import ADVERSARIAL

    r = Redactor.create()

    def cost(seed: str, n: int) -> float:
        text = fast_normal((seed * (n // len(seed) + 1))[:n])
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            r.spans(text)
            best = min(best, time.process_time() - start)
        return best

    print(f"{'near-miss':<28} {'12.5 KB s':>10} {'200 KB s':>10} {'ratio':>7}")
    for seed in ADVERSARIAL:
        small, big = cost(seed, 12_500), cost(seed, 200_000)
        print(f"{seed!r:<28} {small:>10.4f} {big:>10.4f} {big / max(small, 1e-4):>7.1f}")


def search() -> None:
    from playwright.sync_api import expect, sync_playwright

    from piexport.site.build import build_site

    from tests.support.hostile_search import QUERIES, big_record_session

    tmp = Path(tempfile.mkdtemp(prefix="piexport-hostile-"))
    big_record_session(tmp / "src" / "--p--")
    build_site(tmp / "src", tmp / "site", jobs=1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        print(f"\n{'query':<28} {'longest freeze ms':>18}")
        for name, query in QUERIES.items():
            page = browser.new_page()
            page.add_init_script(HEARTBEAT)
            page.goto((tmp / "site" / "search.html").as_uri() + "?q=" + quote(query))
            done = page.locator("html")
            expect(done).to_have_attribute("data-search-done", "1", timeout=120_000)
            page.wait_for_timeout(200)  # a heartbeat after the last task
            print(f"{name:<28} {page.evaluate('window.__longest'):>18.0f}")
            page.close()
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-browser", action="store_true")
    args = parser.parse_args()
    redactor()
    if not args.no_browser:
        search()


if __name__ == "__main__":
    main()

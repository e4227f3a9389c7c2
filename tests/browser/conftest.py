"""The shared Chromium: Debian's, driven by Playwright, with no network of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect, sync_playwright

# Every expect() waits for its state; on a busy 2-core CI machine a page's script can take
# longer than Playwright's 5 s default to reach it. Waiting longer never passes a wrong state.
expect.set_options(timeout=20_000)

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
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()

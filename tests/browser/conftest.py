"""The browser tests' fixture: one Chromium per run (tests/support/browser.py)."""

from tests.support.browser import browser

__all__ = ["browser"]

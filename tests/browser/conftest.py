"""The browser tests' fixture: one Chromium per worker that runs them (tests/support/browser.py)."""

from tests.support.browser import browser

__all__ = ["browser"]

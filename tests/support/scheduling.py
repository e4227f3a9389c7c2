"""How pytest-xdist hands out the tests: one at a time to whichever worker is free, except
the browser tests, which form two units of work (the XSS harness, and every other browser
test), each run on one worker one test after another on that worker's one Chromium.

Two units, not one: the browser tests are most of the suite's time, and run on one worker
they were its length (8 of 8.5 minutes on a quiet 2-core machine) while the other worker
had finished. Split in two about equal halves, each worker starts one and then takes the
other tests one by one; more units would start more Chromiums than there are cores.

A scheduler rather than ``@pytest.mark.xdist_group``: ``--dist loadgroup`` names a group
by appending it to each test's node id, which pytest 9.2 no longer lets a plugin change,
so the mark silently stops grouping (pytest-dev/pytest-xdist#1386).
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

BROWSER = "tests/browser/"
"""Node ids (relative to the repository) of the tests that drive Chromium: only there is
the ``browser`` fixture defined (tests/browser/conftest.py)."""


HARNESS = BROWSER + "test_security.py"
"""The XSS harness: about half of the browser tests' time, the other unit the rest."""


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: the harness one, the other browser tests one,
    any other test its own."""
    if nodeid.startswith(HARNESS):
        return HARNESS
    return BROWSER if nodeid.startswith(BROWSER) else nodeid


class BrowserTestsTogether(LoadScopeScheduling):
    """``--dist load``, but the tests under tests/browser/ are two units of work. The
    biggest units are handed out first, so the browser tests start at once, one unit on
    each of two workers, and the workers then take the rest test by test."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

"""How pytest-xdist hands out the tests: one at a time to whichever worker is free, except
the browser tests, which all go to one worker and run there one after another on its one
Chromium (browsers started side by side on two cores would only fight for them).

A scheduler rather than ``@pytest.mark.xdist_group``: ``--dist loadgroup`` names a group
by appending it to each test's node id, which pytest 9.2 no longer lets a plugin change,
so the mark silently stops grouping (pytest-dev/pytest-xdist#1386).
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling

BROWSER = "tests/browser/"
"""Node ids (relative to the repository) of the tests that drive Chromium: only there is
the ``browser`` fixture defined (tests/browser/conftest.py)."""


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: all the browser tests one, any other its own."""
    return BROWSER if nodeid.startswith(BROWSER) else nodeid


class BrowserTestsTogether(LoadScopeScheduling):
    """``--dist load``, but every test under tests/browser/ is one unit of work. The
    biggest unit is handed out first, so the browser tests start at once on one worker and
    the other workers take the rest test by test."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)

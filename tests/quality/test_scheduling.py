"""The browser tests run as two units of work, each on one xdist worker, one test after
another (tests/support/scheduling.py)."""

from __future__ import annotations

import pytest

from tests.support.scheduling import BROWSER, HARNESS, unit_of


def test_browser_tests_are_two_units_and_every_other_test_its_own(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items
    browser = [i.nodeid for i in items if i.nodeid.startswith(BROWSER)]
    others = [i.nodeid for i in items if not i.nodeid.startswith(BROWSER)]
    assert {unit_of(n) for n in browser} <= {BROWSER, HARNESS}
    assert [unit_of(n) for n in browser if n.startswith(HARNESS)] == [
        HARNESS for n in browser if n.startswith(HARNESS)
    ]
    assert [unit_of(n) for n in others] == others


def test_only_tests_under_tests_browser_use_the_browser(request: pytest.FixtureRequest) -> None:
    """The ``browser`` fixture is defined for tests/browser/ alone (in its conftest), so a
    test elsewhere cannot start a second Chromium beside the browser tests' worker."""
    with pytest.raises(pytest.FixtureLookupError):
        request.getfixturevalue("browser")
    users = [i.nodeid for i in request.session.items if "browser" in getattr(i, "fixturenames", ())]
    assert [n for n in users if not n.startswith(BROWSER)] == []

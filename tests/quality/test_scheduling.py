"""The browser tests run on one xdist worker, one after another (tests/support/scheduling.py)."""

from __future__ import annotations

import pytest

from tests.support.scheduling import BROWSER, unit_of


def test_every_browser_test_is_one_unit_and_every_other_test_its_own(
    request: pytest.FixtureRequest,
) -> None:
    items = request.session.items
    browser = [i.nodeid for i in items if i.nodeid.startswith(BROWSER)]
    others = [i.nodeid for i in items if not i.nodeid.startswith(BROWSER)]
    assert {unit_of(n) for n in browser} == ({BROWSER} if browser else set())
    assert [unit_of(n) for n in others] == others


def test_only_tests_under_tests_browser_use_the_browser(request: pytest.FixtureRequest) -> None:
    """The ``browser`` fixture is defined for tests/browser/ alone (in its conftest), so a
    test elsewhere cannot start a second Chromium beside the browser tests' worker."""
    with pytest.raises(pytest.FixtureLookupError):
        request.getfixturevalue("browser")
    users = [i.nodeid for i in request.session.items if "browser" in getattr(i, "fixturenames", ())]
    assert [n for n in users if not n.startswith(BROWSER)] == []

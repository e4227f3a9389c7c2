"""What pi 1.5 writes, in the browser: context edits are branch-relative on the page too."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from piexport import load_session
from piexport.export.pipeline import export_session

from tests.support.browser import MODES, Watch
from tests.support.sessions import DATA

pytestmark = pytest.mark.browser

EDITS = next((DATA / "pi15").rglob("*-000000000002.jsonl"))
"""Deploy, then two branches: one edits the user's message (twice: the latest wins), a tool
result, an answer (omitted) and an extension message; the current one edits only an answer."""


def _by_text(session_path: Path, text: str) -> str:
    session = load_session(session_path)
    return next(
        e.id for e in session.entries if e.message and text in str(e.message.get("content"))
    )


@pytest.mark.parametrize("mode", list(MODES))
def test_an_entry_says_what_the_model_saw_on_the_branch_shown(
    browser: Browser, tmp_path: Path, mode: str
) -> None:
    out = tmp_path / "edits.html"
    export_session(EDITS, out, options=MODES[mode])
    user = "entry-" + _by_text(EDITS, "Deploy with key")
    answer = "entry-" + _by_text(EDITS, "Deployed. Note")
    ran = "entry-" + _by_text(EDITS, "./deploy.sh")
    tag = "entry-" + _by_text(EDITS, "Now tag the release")
    page = browser.new_page()
    watch = Watch(page)
    page.goto(out.as_uri())
    notes = "> .context-edit-note:visible"  # its own, not a tool result's inside it
    # the current branch edits only the deploy call's answer: the later of its two edits shows
    expect(page.locator(f"#{ran} {notes}")).to_have_count(1)
    expect(page.locator(f"#{ran} {notes}")).to_contain_text("I ran ./deploy.sh.")
    expect(page.locator(f"#{user} {notes}")).to_have_count(0)
    expect(page.locator(f"#{answer} {notes}")).to_have_count(0)
    # on the other branch the user's message was edited twice (the latest wins), the answer
    # removed, and the deploy call left alone
    page.goto(out.as_uri() + "#" + tag)
    expect(page.locator(f"#{user} {notes}")).to_have_count(1)
    expect(page.locator(f"#{user} {notes}")).to_contain_text("Deploy please (the key was removed)")
    expect(page.locator(f"#{answer} {notes}")).to_contain_text("Removed from the model's context")
    expect(page.locator(f"#{ran} {notes}")).to_have_count(0)
    # and back
    page.get_by_role("button", name="Back to the current branch").click()
    expect(page.locator(f"#{ran} {notes}")).to_have_count(1)
    expect(page.locator(f"#{user} {notes}")).to_have_count(0)
    watch.assert_clean()

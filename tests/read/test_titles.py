"""Issue 38, item 8: a title is the first user text in the user's own words, not a prompt
template's heading nor a bare slash command; the same title on the page and in the index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from piexport.page.render import render_session
from piexport.read.loader import load_session

from tests.support.sessions import MakeSession, msg

TEMPLATE = "# Exploration Mode\n\n" + "\n".join(
    f"- rule {i}: read before you write" for i in range(12)
)


def _users(*texts: str) -> list[Any]:
    out = []
    for i, text in enumerate(texts):
        out.append(msg(f"u{i}", f"a{i - 1}" if i else None, "user", text, 2 * i))
        out.append(msg(f"a{i}", f"u{i}", "assistant", [{"type": "text", "text": "ok"}], 2 * i + 1))
    return out


def _title(make_session: MakeSession, *texts: str) -> str | None:
    return load_session(make_session(_users(*texts))).title


def test_a_bare_command_is_not_the_title(make_session: MakeSession) -> None:
    assert _title(make_session, "/mode", "fix the cart total") == "fix the cart total"
    # a command with words after it is a request, its command a chip
    assert _title(make_session, "/mode plan the release") == "/mode · plan the release"


def test_a_prompt_template_is_not_the_title(make_session: MakeSession) -> None:
    assert _title(make_session, TEMPLATE, "why does checkout time out?") == (
        "why does checkout time out?"
    )
    # a short message under a heading is the user's own
    assert _title(make_session, "# Bug\ncart total is off by one", "more") == ("Bug")


def test_with_nothing_better_the_first_text_stays(make_session: MakeSession) -> None:
    assert _title(make_session, "/mode") == "/mode"
    assert _title(make_session, TEMPLATE) == "Exploration Mode"


def test_the_page_title_is_the_same(make_session: MakeSession, tmp_path: Path) -> None:
    html = render_session(load_session(make_session(_users("/mode", TEMPLATE, "ship it"))))
    assert "<h1>ship it</h1>" in html and "<title>ship it · pi session</title>" in html

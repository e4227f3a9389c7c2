"""Issue 38, item 10: figures and words a reader can trust: one compaction size in the tree
and on the card, "<1%" for a few errors among many calls, plain words for a net change."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from piexport.page.charts import error_rate
from piexport.page.render import render_session
from piexport.read.loader import load_session

from tests.support.sessions import MakeSession, msg, ts


def test_a_few_errors_are_not_zero_percent() -> None:
    assert error_rate(2, 500) == "<1%"
    assert error_rate(0, 500) == "0%"
    assert error_rate(3, 100) == "3%"
    assert error_rate(1, 3) == "33%"
    assert error_rate(0, 0) == "—"


def test_the_tree_and_the_card_give_one_compaction_size(make_session: MakeSession) -> None:
    records = [
        msg("u1", None, "user", "go", 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "ok"}], 2),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "a1",
            "timestamp": ts(3),
            "summary": "done so far",
            "firstKeptEntryId": "a1",
            "tokensBefore": 1_640,
        },
        msg("u2", "c1", "user", "more", 4),
    ]
    soup = BeautifulSoup(render_session(load_session(make_session(records))), "html.parser")
    row = soup.select_one('nav.outline a[href="#entry-c1"]')
    card = soup.select_one("#entry-c1 .marker-lede")
    assert row is not None and card is not None
    assert "1.6k tokens" in row.get_text() and "(1.6k tokens)" in card.get_text()
    assert not re.search(r"\b2k tokens", soup.get_text())

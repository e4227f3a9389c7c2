"""Issue 38, item 6: "not in context after compaction N" once per run of entries the
compaction summarised away (on the run's first entry with a header, saying how many follow),
not on each of hundreds of cards; the rest keep their dashed frame, which the compaction's
marker explains."""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from piexport.page.render import render_session
from piexport.page.view import build_view
from piexport.read.loader import load_session

from tests.support.sessions import sample_files


def test_one_badge_per_run_of_summarised_entries() -> None:
    source = next(p for p in sample_files() if "0196202a" in p.name)
    view = build_view(load_session(source))
    soup = BeautifulSoup(render_session(view), "html.parser")
    badges = [
        a
        for a in soup.select("article.entry .entry-head a.badge")
        if a.get_text().startswith("not in context after compaction")
    ]
    dashed = soup.select("article.entry.off-context")
    assert len(dashed) > 2 * len(badges) > 0
    assert len(badges) == len(view.context_runs)
    for badge in badges:
        article = badge.find_parent("article")
        assert article is not None and "off-context" in article["class"]
        assert article["data-entry-id"] in view.context_runs
        m = re.fullmatch(
            r"not in context after compaction (\d+)(?: · (\d+) entries from here)?",
            badge.get_text(),
        )
        assert m is not None, badge.get_text()
        # the badge links to the compaction that summarised the run
        target = soup.select_one(str(badge["href"]))
        assert target is not None and "compaction" in target["class"]
    # every summarised entry is in exactly one run
    assert sum(view.context_runs.values()) >= len(dashed)
    ledes = [p.get_text(" ", strip=True) for p in soup.select("article.compaction .marker-lede")]
    assert any("framed with dashes" in t for t in ledes)

"""Golden copies of the transcript (<main>) for three samples, readable as HTML.

Only <main> is kept, so a CSS or header tweak does not rewrite every golden. After an
intended change: PIEXPORT_UPDATE_GOLDENS=1 pytest tests/page/test_goldens.py, then read the diff.
"""

from __future__ import annotations

import os
import re

import pytest

from piexport import load_session
from piexport.page.render import render_session
from piexport.page.view import build_view

from tests.support.sessions import TESTS, sample_files

GOLDENS = TESTS / "goldens"
PICKS = {"branches": "01955b2a", "compactions": "0196202a", "damaged": "0196f145"}


def main_fragment(html: str) -> str:
    match = re.search(r'<main id="transcript"[^>]*>.*?</main>', html, re.DOTALL)
    assert match, "no <main>"
    return match.group(0) + "\n"


@pytest.mark.parametrize("name", sorted(PICKS))
def test_transcript_golden(name: str) -> None:
    source = next(p for p in sample_files() if PICKS[name] in p.name)
    got = main_fragment(render_session(build_view(load_session(source))))
    golden = GOLDENS / f"{name}.html"
    if os.environ.get("PIEXPORT_UPDATE_GOLDENS"):
        GOLDENS.mkdir(exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert golden.read_text(encoding="utf-8") == got

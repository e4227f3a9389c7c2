"""When a session started: a fork's own turns, never a "forked" history for a file that
names no parent (issue 36: version-1 files were labelled as forks)."""

from __future__ import annotations

from typing import Any

from piexport.page.render import render_session
from piexport.read.loader import load_session
from piexport.report.summary import session_span

from tests.support.sessions import HEADER, MakeSession, msg, ts


def _v1(second: int, role: str, text: str) -> dict[str, Any]:
    """A version-1 entry: no id, no parent (the order of the lines is the tree)."""
    return {"type": "message", "timestamp": ts(second), "message": {"role": role, "content": text}}


def test_a_version_1_file_dated_after_its_first_entries_is_no_fork(
    make_session: MakeSession,
) -> None:
    header = {**HEADER, "version": 1, "timestamp": ts(30)}
    path = make_session([_v1(0, "user", "hi"), _v1(60, "user", "again")], header=header)
    session = load_session(path)
    span = session_span(session)
    assert span.copied_from is None
    assert span.start is not None and span.start < span.header  # type: ignore[operator]
    page = render_session(session)
    assert "forked with" not in page


def test_a_fork_still_shows_the_history_it_copied(make_session: MakeSession) -> None:
    header = {**HEADER, "timestamp": ts(30), "parentSession": "/x/parent.jsonl"}
    path = make_session(
        [msg("a", None, "user", "copied", 0), msg("b", "a", "user", "own", 60)], header=header
    )
    session = load_session(path)
    span = session_span(session)
    assert span.copied_from is not None
    assert "the history it was forked with" in render_session(session)

"""Every file of the hostile corpus loads with diagnostics, renders, and loses no valid entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from piexport import InputError, load_session
from piexport.render import render_session
from piexport.view import build_view, dom_id

from .hostile_corpus import Case, cases
from .test_loader import accounted
from .test_render import static_checks

CORPUS_STATS = {"files": 0, "crashes": 0, "lost": 0}


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_corpus_file(case: Case, tmp_path: Path) -> None:
    path = tmp_path / f"{case.name}.jsonl"
    path.write_bytes(case.data)
    CORPUS_STATS["files"] += 1
    if case.unusable:
        with pytest.raises(InputError, match="no session entries found") as info:
            load_session(path)
        assert str(path) in str(info.value)
        return
    try:
        session = load_session(path)
        soup = static_checks(render_session(build_view(session)))
    except Exception:
        CORPUS_STATS["crashes"] += 1
        raise
    assert accounted(session) == session.lines_read
    lost = [
        eid
        for eid in case.valid
        if eid not in session.by_id or len(soup.find_all(id=dom_id(eid))) != 1
    ]
    CORPUS_STATS["lost"] += len(lost)
    assert lost == []
    assert len(soup.select("[data-entry-id]")) == len(session.entries)
    for d in session.diagnostics:
        assert d.line > 0 or "header" in d.message, d


def test_corpus_is_big_enough() -> None:
    assert len(cases()) >= 40

"""Colouring ahead in workers: the same page, byte for byte, and only what the budget reaches."""

from __future__ import annotations

import pytest

from piexport import load_session
from piexport.page import colourcache, highlight, prefetch
from piexport.page.render import RenderOptions, render_session
from piexport.page.view import build_view

from tests.support.sessions import MakeSession, msg, tool_result


def _file(n: int) -> str:
    return "\n".join(f'def f_{n}_{i}(x):\n    return x * {i}  # <b> & "q"' for i in range(60))


def _session(make_session: MakeSession, files: int):
    records, parent = [msg("u0", None, "user", "go", 0)], "u0"
    for n in range(files):
        call = {
            "type": "toolCall",
            "id": f"t{n}",
            "name": "read",
            "arguments": {"path": f"/w/m{n}.py"},
        }
        records += [
            msg(f"a{n}", parent, "assistant", [call], 2 * n + 1),
            tool_result(f"r{n}", f"a{n}", _file(n), 2 * n + 2, f"t{n}", "read"),
        ]
        parent = f"r{n}"
    return load_session(make_session(records))


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", "off")
    colourcache.reset()
    monkeypatch.setattr(highlight, "_cache", {})


def test_the_page_is_the_same_with_blocks_coloured_ahead(make_session: MakeSession) -> None:
    session = _session(make_session, 8)
    view = build_view(session)
    budget = 5 * len(_file(0))
    assert len(prefetch.predicted(view, budget)) == 5  # as far as the budget reaches
    assert prefetch.prefetch(view, budget, workers=2) == 5
    assert all(highlight.is_cached(_file(n), highlight.lexer_for_path(".py")) for n in range(5))
    assert not highlight.is_cached(_file(5), highlight.lexer_for_path(".py"))
    ahead = render_session(session, RenderOptions(highlight_chars=budget, workers=2))
    highlight._cache.clear()
    alone = render_session(session, RenderOptions(highlight_chars=budget, workers=1))
    assert ahead == alone
    # five files coloured, no more: 60 functions each, 10 of them again in the fold's preview
    assert ahead.count('<span class="k">def</span>') == 5 * (60 + 10)
    assert "def f_5_0(x):" in ahead


def test_nothing_ahead_on_one_core_or_without_budget(make_session: MakeSession) -> None:
    view = build_view(_session(make_session, 4))
    assert prefetch.prefetch(view, 400_000, workers=1) == 0
    assert prefetch.prefetch(view, 0, workers=2) == 0
    assert highlight._cache == {}


def test_a_read_that_failed_or_holds_an_image_is_not_guessed(make_session: MakeSession) -> None:
    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "/w/a.py"}}
    failed = tool_result("r1", "a1", _file(1), 2, "t1", "read")
    failed["message"]["isError"] = True
    session = load_session(make_session([msg("a1", None, "assistant", [call], 1), failed]))
    assert prefetch.predicted(build_view(session), 400_000) == []

"""Nothing the session holds is dropped or hidden (issue 13): tool results keep their own
place, and every field a reader could need reaches the page."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from bs4 import BeautifulSoup

from piexport import load_session
from piexport.formats import session_markdown
from piexport.render import render_session
from piexport.view import dom_id

from .conftest import MakeSession, msg, tool_result
from .test_render import static_checks


def _call(cid: str, command: str = "ls") -> dict[str, Any]:
    return {"type": "toolCall", "id": cid, "name": "bash", "arguments": {"command": command}}


def _page(make_session: MakeSession, records: list[Any]) -> tuple[Any, BeautifulSoup, str]:
    session = load_session(make_session(records))
    soup = static_checks(render_session(session))
    return session, soup, session_markdown(session)


def test_a_non_message_entry_never_takes_a_tool_result(make_session: MakeSession) -> None:
    """A custom or compaction entry carrying a ``message`` with a toolCall is not a call."""
    fake = {"role": "assistant", "content": [_call("t1")], "stopReason": "toolUse"}
    _session, soup, md = _page(
        make_session,
        [
            msg("u1", None, "user", "go", 1),
            {
                "type": "custom",
                "id": "c1",
                "parentId": "u1",
                "customType": "x",
                "data": {},
                "message": fake,
            },
            tool_result("r1", "c1", "RESULT-ONE", 3, "t1", "bash"),
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "r1",
                "summary": "s",
                "firstKeptEntryId": "r1",
                "tokensBefore": 5,
                "message": fake | {"content": [_call("t2")]},
            },
            tool_result("r2", "k1", "RESULT-TWO", 5, "t2", "bash"),
        ],
    )
    for rid, text in (("r1", "RESULT-ONE"), ("r2", "RESULT-TWO")):
        [el] = soup.find_all(id=dom_id(rid))
        assert text in el.get_text()
        assert text in md


def test_calls_with_repeated_ids_each_keep_their_result(make_session: MakeSession) -> None:
    """Some providers number calls ``call_0`` in every turn: each turn's call gets the result
    that follows it, and neither result disappears."""

    def turn(eid: str, parent: str, second: int) -> dict[str, Any]:
        return msg(
            eid, parent, "assistant", [_call("call_0", f"cmd-{eid}")], second, stopReason="toolUse"
        )

    _session, soup, md = _page(
        make_session,
        [
            msg("u1", None, "user", "go", 1),
            turn("a1", "u1", 2),
            tool_result("r1", "a1", "FIRST-OUT", 3, "call_0", "bash"),
            turn("a2", "r1", 4),
            tool_result("r2", "a2", "SECOND-OUT", 5, "call_0", "bash"),
        ],
    )
    for aid, rid, text in (("a1", "r1", "FIRST-OUT"), ("a2", "r2", "SECOND-OUT")):
        [article] = soup.find_all(id=dom_id(aid))
        [result] = soup.find_all(id=dom_id(rid))
        assert article in result.parents
        assert text in result.get_text()
    assert md.index("cmd-a1") < md.index("FIRST-OUT") < md.index("cmd-a2") < md.index("SECOND-OUT")


def _all_ids_unique(soup: BeautifulSoup) -> None:
    ids = [t["id"] for t in soup.find_all(id=True)]
    assert len(ids) == len(set(ids))


def test_an_id_shaped_like_a_hash_never_takes_another_entrys_dom_id(
    make_session: MakeSession,
) -> None:
    odd = "odd id with spaces"
    impostor = dom_id(odd).removeprefix("entry-")  # "x" + 12 hex digits
    _session, soup, _md = _page(
        make_session,
        [msg(impostor, None, "user", "IMPOSTOR", 1), msg(odd, impostor, "user", "REAL", 2)],
    )
    _all_ids_unique(soup)
    for eid, text in ((odd, "REAL"), (impostor, "IMPOSTOR")):
        [article] = soup.find_all(attrs={"data-entry-id": eid})
        link = article.select_one("a.deeplink")["href"]
        assert link == "#" + article["id"]
        assert text in soup.find(id=link[1:]).get_text()


def test_colliding_hashes_get_distinct_dom_ids(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve hex digits of a hash can be made to collide on purpose: the page still gives
    every entry its own DOM id, in file order, and every link and parent points right."""
    from piexport import view

    same = hashlib.sha1(b"same")
    monkeypatch.setattr(view.hashlib, "sha1", lambda _b: same.copy())
    ids = ["a b", "c d", "e f"]
    _session, soup, _md = _page(
        make_session,
        [
            msg(ids[0], None, "user", "one", 1),
            msg(ids[1], ids[0], "user", "two", 2),
            msg(ids[2], ids[1], "user", "three", 3),
        ],
    )
    _all_ids_unique(soup)
    doms = [soup.find(attrs={"data-entry-id": e})["id"] for e in ids]
    assert doms[1] == doms[0] + "~2" and doms[2] == doms[0] + "~3"
    assert soup.find(attrs={"data-entry-id": ids[2]})["data-parent"] == doms[1]
    assert soup.find("main")["data-leaf"] == doms[2]

"""Nothing the session holds is dropped or hidden (issue 13): tool results keep their own
place, and every field a reader could need reaches the page."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from bs4 import BeautifulSoup

from piexport import load_session
from piexport.page.render import render_session
from piexport.page.view import dom_id
from piexport.report.formats import session_markdown

from tests.support.pages import static_checks
from tests.support.sessions import MakeSession, msg, tool_result


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
    from piexport.page import view

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


def _assistant(eid: str, parent: str, content: Any, second: int, **extra: Any) -> dict[str, Any]:
    fields = {"provider": "p", "model": "m", "stopReason": "stop"} | extra
    return msg(eid, parent, "assistant", content, second, **fields)


def test_thinking_marked_redacted_but_readable_is_shown(make_session: MakeSession) -> None:
    block = {"type": "thinking", "thinking": "READABLE-THOUGHT", "redacted": True}
    _s, soup, md = _page(
        make_session, [msg("u1", None, "user", "q", 1), _assistant("a1", "u1", [block], 2)]
    )
    [thinking] = soup.select("details.thinking")
    assert "READABLE-THOUGHT" in thinking.get_text()
    assert "redacted by the provider" in thinking.summary.get_text()
    assert "READABLE-THOUGHT" in md and "redacted by the provider" in md


def test_error_message_is_shown_whatever_the_stop_reason(make_session: MakeSession) -> None:
    _s, soup, md = _page(
        make_session,
        [
            msg("u1", None, "user", "q", 1),
            _assistant("a1", "u1", [{"type": "text", "text": "hi"}], 2, errorMessage="ODD-ERROR"),
        ],
    )
    assert "ODD-ERROR" in soup.find(id=dom_id("a1")).get_text()
    assert "ODD-ERROR" in md


def test_unknown_fields_and_custom_message_details_are_shown(make_session: MakeSession) -> None:
    _s, soup, _md = _page(
        make_session,
        [
            msg("u1", None, "user", "q", 1, newField={"v": "MSG-FIELD"}),
            _assistant("a1", "u1", [{"type": "text", "text": "t", "citations": ["BLOCK-FIELD"]}], 2)
            | {"entryField": "ENTRY-FIELD"},
            {
                "type": "custom_message",
                "id": "c1",
                "parentId": "a1",
                "customType": "x",
                "content": "shown",
                "display": True,
                "details": {"k": "DETAIL-VALUE"},
            },
            {
                "type": "custom_message",
                "id": "c2",
                "parentId": "c1",
                "customType": "x",
                "content": "hidden",
                "display": False,
                "details": {"k": "HIDDEN-DETAIL"},
            },
            {
                "type": "label",
                "id": "l1",
                "parentId": "c2",
                "targetId": "u1",
                "label": "b",
                "note": "LABEL-FIELD",
            },
        ],
    )
    for eid, text in (
        ("u1", "MSG-FIELD"),
        ("a1", "BLOCK-FIELD"),
        ("a1", "ENTRY-FIELD"),
        ("c1", "DETAIL-VALUE"),
        ("c2", "HIDDEN-DETAIL"),
        ("l1", "LABEL-FIELD"),
    ):
        assert text in soup.find(id=dom_id(eid)).get_text(), (eid, text)


def test_failed_turns_in_a_row_stay_readable(make_session: MakeSession) -> None:
    records: list[Any] = [msg("u1", None, "user", "q", 1)]
    parent = "u1"
    for i in range(3):
        records.append(
            _assistant(
                f"f{i}", parent, [], 2 + i, stopReason="error", errorMessage=f"overloaded {i}"
            )
        )
        parent = f"f{i}"
    records.append(_assistant("ok", parent, [{"type": "text", "text": "finally"}], 9))
    _session, soup, md = _page(make_session, records)
    for i in range(3):
        assert f"overloaded {i}" in soup.find(id=dom_id(f"f{i}")).get_text()
        assert f"overloaded {i}" in md
    outline = soup.select("nav .rows a")
    assert sum("overloaded" in a.get_text() for a in outline) == 3


def test_output_limit_is_marked(make_session: MakeSession) -> None:
    _s, soup, md = _page(
        make_session,
        [
            msg("u1", None, "user", "q", 1),
            _assistant(
                "a1", "u1", [{"type": "text", "text": "half a sen"}], 2, stopReason="length"
            ),
        ],
    )
    assert "output length limit" in soup.find(id=dom_id("a1")).get_text()
    assert "output length limit" in md


def test_null_arguments_partial_json_and_signatures(make_session: MakeSession) -> None:
    blocks = [
        {"type": "thinking", "thinking": "t", "thinkingSignature": "c2ln"},
        {"type": "toolCall", "id": "t1", "name": "bash", "arguments": None},
        {"type": "toolCall", "id": "t2", "name": "bash", "arguments": "ls -la"},
        {
            "type": "toolCall",
            "id": "t3",
            "name": "write",
            "arguments": {},
            "partialJson": '{"path": "a.py", "content": "PARTIAL-CONT',
            "thoughtSignature": "c2ln",
        },
        {"type": "toolCall", "id": "t4", "name": "mytool", "arguments": None},
    ]
    _s, soup, md = _page(
        make_session,
        [
            msg("u1", None, "user", "q", 1),
            _assistant("a1", "u1", blocks, 2, stopReason="toolUse"),
            tool_result("r1", "a1", "OUT-ONE", 3, "t1", "bash"),
        ],
    )
    page = soup.find(id=dom_id("a1")).get_text()
    assert "PARTIAL-CONT" in page and "OUT-ONE" in page
    assert "PARTIAL-CONT" in md and "ls -la" in md


def test_reasoning_and_1h_cache_writes_are_counted(make_session: MakeSession) -> None:
    from piexport.report.summary import summary_json

    usage = {
        "input": 10,
        "output": 20,
        "cacheRead": 0,
        "cacheWrite": 5,
        "totalTokens": 35,
        "reasoning": 7,
        "cacheWrite1h": 5,
        "cost": {"total": 0.5},
    }
    session = load_session(
        make_session(
            [
                msg("u1", None, "user", "q", 1),
                _assistant("a1", "u1", [{"type": "text", "text": "x"}], 2, usage=usage),
                _assistant("a2", "a1", [{"type": "text", "text": "y"}], 3, usage=usage),
            ]
        )
    )
    tokens = summary_json(session)["all"]["tokens"]
    assert tokens["reasoning"] == 14 and tokens["cacheWrite1h"] == 10
    assert tokens["total"] == 70


def test_a_model_with_no_cost_shows_a_dash(make_session: MakeSession) -> None:
    from piexport.report.summary import summary_markdown

    usage = {
        "input": 10,
        "output": 20,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 30,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }
    session, soup, _md = _page(
        make_session,
        [
            msg("u1", None, "user", "q", 1),
            _assistant("a1", "u1", [{"type": "text", "text": "x"}], 2, usage=usage),
        ],
    )
    html = str(soup)
    assert "$0.0000" not in html and "$0.00" not in html
    assert soup.select_one(".usage").get_text().endswith("· —")
    assert "$0.0000" not in summary_markdown(session)


def test_a_long_first_message_makes_a_short_title(make_session: MakeSession, tmp_path: Any) -> None:
    from piexport.site.build import build_site

    words = " ".join(f"word{i}" for i in range(60))
    text = f"{words}\nsecond line that is not the title"
    root = tmp_path / "root"
    root.mkdir()
    path = make_session([msg("u1", None, "user", text, 1)], name="root/s.jsonl")
    session, soup, md = _page(make_session, [msg("u1", None, "user", text, 1)])
    title = session.title
    assert title is not None and title.endswith("…") and len(title) <= 101
    assert title[:-1] in words and words.startswith(title[:-1])
    assert words[len(title) - 1] == " "  # cut on a word boundary
    assert soup.h1.get_text() == title and soup.title.get_text().startswith(title + " ·")
    assert md.startswith(f"# {title}\n")
    out = tmp_path / "site"
    build_site(path.parent, out, jobs=1)
    [index] = out.glob("*/index.html")
    row = BeautifulSoup(index.read_text(), "html.parser").select_one("td.title a")
    assert row.get_text() == title

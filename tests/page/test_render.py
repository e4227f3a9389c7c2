"""The session page: structure, pairing, branches, self-containment, determinism, escaping."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from piexport import load_session
from piexport.export.pipeline import export_session
from piexport.page.render import render_session
from piexport.page.view import build_view, dom_id

from tests.support.hostile_corpus import BIDI_MARKDOWN, INVISIBLE
from tests.support.pages import SHOWN_ATTRS, static_checks, unseen
from tests.support.sessions import MakeSession, msg, sample_files, ts


def render(path: Path) -> str:
    return render_session(build_view(load_session(path)))


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem[-12:])
def test_sample_pages_show_every_entry_once(path: Path) -> None:
    session = load_session(path)
    soup = static_checks(render(path))
    tree = session.tree
    for e in session.entries:
        found = soup.find_all(id=dom_id(e.id))
        assert len(found) == 1, e.id
        assert found[0].get("data-entry-id") == e.id
        parent = tree.parent.get(e.id)
        assert found[0].get("data-parent") == (dom_id(parent) if parent else ""), e.id
    # every tool call sits next to its result (or says there is none), inside its message
    for e in session.entries:
        for block in (e.message or {}).get("content") or []:
            if not (isinstance(block, dict) and block.get("type") == "toolCall"):
                continue
            article = soup.find(id=dom_id(e.id))
            result = next(
                (
                    r
                    for r in session.entries
                    if (r.message or {}).get("role") == "toolResult"
                    and r.message["toolCallId"] == block.get("id")
                ),
                None,
            )
            if result is None:
                assert article.select_one(".tool .tool-result.missing") is not None, e.id
            else:
                shown = soup.find(id=dom_id(result.id))
                assert shown.parent in article.select(".tool"), (e.id, result.id)
    # one collapsible block per alternative at every branch point, starting with that entry
    starts = {d["data-branch"] for d in soup.select("main details.branch")}
    alternatives: set[str] = set()
    for kids in [tree.children[b] for b in tree.branch_points] + [tree.roots]:
        main = next((k for k in kids if k in tree.path), kids[0])  # drawn straight on
        alternatives |= {dom_id(k) for k in kids if k != main}
    assert starts == alternatives
    assert len(soup.select("main details.branch")) == len(alternatives)
    # the navigator lists every entry, marks the current path and the leaf
    rows = soup.select("nav.outline ol.rows li")
    assert len(rows) == len(session.entries)
    on_path = {r.a["href"][1:] for r in rows if "on-path" in r["class"]}
    assert on_path == {dom_id(i) for i in tree.path}
    assert [r.a["href"][1:] for r in rows if "leaf" in r["class"]] == [dom_id(tree.leaf_id)]
    assert soup.select_one("main")["data-leaf"] == dom_id(tree.leaf_id)


def test_pages_are_deterministic() -> None:
    for path in sample_files():
        assert render(path) == render(path)


def test_labels_compaction_and_diagnostics_are_shown() -> None:
    by_name = {p.name: p for p in sample_files()}
    shop = next(p for n, p in by_name.items() if "01955b2a" in n)
    soup = BeautifulSoup(render(shop), "html.parser")
    badges = [
        b.get_text(strip=True)
        for b in soup.select("main .entry-head .badge.label, main .result-head .badge.label")
    ]
    assert sorted(badges) == ["clamp-approach", "start"]  # "done" was cleared
    demo = next(p for n, p in by_name.items() if "0196202a" in n)
    soup = BeautifulSoup(render(demo), "html.parser")
    assert len(soup.select(".marker.compaction")) == 2
    assert soup.select(".off-context"), "entries summarised away are marked"
    damaged = next(p for n, p in by_name.items() if "0196f145" in n)
    soup = BeautifulSoup(render(damaged), "html.parser")
    assert len(soup.select(".diagnostics li")) == 6


def test_tool_result_without_call_and_call_without_result(make_session: MakeSession) -> None:
    path = make_session(
        [
            msg(
                "a1",
                None,
                "assistant",
                [{"type": "toolCall", "id": "t1", "name": "bash", "arguments": {"command": "ls"}}],
                1,
            ),
            msg(
                "r9",
                "a1",
                "toolResult",
                [{"type": "text", "text": "stray"}],
                2,
                toolCallId="nope",
                toolName="bash",
            ),
        ]
    )
    soup = static_checks(render(path))
    assert soup.select_one(".tool-result.missing") is not None
    assert "stray" in soup.select_one(f"#{dom_id('r9')}").get_text()


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    'x" onmouseover="alert(1)',
    "'><script>alert(1)</script>",
    "</title><script>alert(1)</script>",
    "javascript:alert(1)",
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "{{ 7*7 }}",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_text_in_every_field_is_escaped(make_session: MakeSession, payload: str) -> None:
    header = {
        "type": "session",
        "version": 3,
        "id": payload,
        "timestamp": ts(0),
        "cwd": payload,
        "parentSession": payload,
    }
    recs = [
        msg(payload, None, "user", payload + f" [x]({payload})", 1),
        msg(
            "a1",
            payload,
            "assistant",
            [
                {"type": "thinking", "thinking": payload},
                {"type": "text", "text": payload},
                {
                    "type": "toolCall",
                    "id": payload,
                    "name": payload,
                    "arguments": {"path": payload, "x": payload},
                },
                {"type": "toolCall", "id": "t2", "name": "read", "arguments": {"path": payload}},
            ],
            2,
            provider=payload,
            model=payload,
            stopReason="error",
            errorMessage=payload,
        ),
        msg(
            "r1",
            "a1",
            "toolResult",
            [
                {"type": "text", "text": payload},
                {"type": "image", "mimeType": payload, "data": payload},
            ],
            3,
            toolCallId=payload,
            toolName=payload,
            isError=True,
        ),
        msg(
            "r2",
            "r1",
            "toolResult",
            [{"type": "text", "text": payload}],
            4,
            toolCallId="t2",
            toolName="read",
        ),
        {
            "type": "label",
            "id": "l1",
            "parentId": "r2",
            "timestamp": ts(5),
            "targetId": payload,
            "label": payload,
        },
        {"type": "session_info", "id": "n1", "parentId": "l1", "timestamp": ts(6), "name": payload},
        {
            "type": "custom_message",
            "id": "c1",
            "parentId": "n1",
            "timestamp": ts(7),
            "customType": payload,
            "content": payload,
            "display": True,
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "c1",
            "timestamp": ts(8),
            "summary": payload,
            "firstKeptEntryId": payload,
            "tokensBefore": 5,
            "details": {"readFiles": [payload], "modifiedFiles": [payload]},
        },
        {"type": payload, "id": "u1", "parentId": "k1", "timestamp": ts(9), "data": payload},
    ]
    html = render(make_session(recs, header=header))
    soup = static_checks(html)
    assert "<script>alert" not in html and "<img src=x" not in html
    assert payload in soup.get_text()  # shown as text, not dropped


def test_render_command_writes_default_name(runner, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from piexport.cli import cli

    src = sample_files()[0]
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(cli, ["render", str(src)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / (src.stem + ".html")).is_file()


def test_export_writes_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import piexport.output as output

    out = tmp_path / "page.html"
    out.write_text("old page")
    src = sample_files()[0]

    class Boom(Exception):
        pass

    def fail(*args: object) -> None:
        raise Boom

    monkeypatch.setattr(output.os, "replace", fail)
    with pytest.raises(Boom):
        export_session(src, out)
    assert out.read_text() == "old page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


@pytest.mark.parametrize(
    "text",
    [
        "> " * 150 + "TAIL",
        "\n".join("  " * i + f"- item{i}" for i in range(60)) + "\n" + "  " * 60 + "- TAIL",
        "[" * 50_000 + "TAIL",
    ],
)
def test_markdown_never_loses_deeply_nested_text(text: str) -> None:
    from piexport.page.markdown import render_markdown

    html = render_markdown(text)
    assert "TAIL" in BeautifulSoup(html, "html.parser").get_text()


def test_ordinary_markdown_is_not_sent_to_the_fallback() -> None:
    from piexport.page.markdown import render_markdown

    text = (
        "# Plan\n\n1. read `cart.py`\n2. fix **total()**\n\n- [x] done\n\n| a | b |\n|--:|---|\n| 1 | 2 |\n\n"
        "```python\nprint('hi')\n```\n\nSee [docs] and <https://example.com>.\n\n[docs]: https://example.com/d \"Docs\"\n"
    )
    html = render_markdown(text)
    assert "md-fallback" not in html and "<ol>" in html and "<table>" in html


def test_bidi_and_invisible_characters_in_paths_and_names_are_visible(
    make_session: MakeSession,
) -> None:
    sneaky = "evil\u202etxt.exe\u200b"
    path = make_session(
        [
            msg(
                "a1",
                None,
                "assistant",
                [{"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": sneaky}}],
                1,
            ),
            {
                "type": "label",
                "id": "l1",
                "parentId": "a1",
                "timestamp": ts(2),
                "targetId": "a1",
                "label": sneaky,
            },
            {
                "type": "session_info",
                "id": "n1",
                "parentId": "l1",
                "timestamp": ts(3),
                "name": sneaky,
            },
        ]
    )
    soup = BeautifulSoup(render(path), "html.parser")
    for where in ("h1", "main code.path", "main .badge.label", "nav .badge.label"):
        el = soup.select_one(where)
        assert el is not None, where
        text = el.get_text()
        assert "\u202e" not in text and "\u200b" not in text, where
        assert "U+202E" in text and "U+200B" in text, where


def test_images_are_checked_and_capped(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    import piexport.page.render as render_mod

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100).decode()
    blocks = [
        {"type": "image", "mimeType": "image/png", "data": png},
        {"type": "image", "mimeType": "image/png", "data": png},
        {
            "type": "image",
            "mimeType": "image/svg+xml",
            "data": base64.b64encode(b"<svg onload=alert(1)>").decode(),
        },
        {"type": "image", "mimeType": "image/jpeg", "data": png},
        {"type": "image", "mimeType": "image/png", "data": png + "!!"},
    ]
    monkeypatch.setattr(render_mod, "MAX_PAGE_IMAGE_BYTES", 150)
    soup = static_checks(render(make_session([msg("u1", None, "user", blocks, 1)])))
    assert len(soup.select("img.attached")) == 1
    problems = [p.get_text() for p in soup.select(".placeholder")]
    assert len(problems) == 4
    assert any("budget" in p for p in problems) and any("image/svg+xml" in p for p in problems)
    assert any("do not match" in p for p in problems) and any(
        "invalid base64" in p for p in problems
    )


def test_giant_output_is_cut_with_a_notice(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    import piexport.page.render as render_mod

    monkeypatch.setattr(render_mod, "MAX_BLOCK_CHARS", 1000)
    big = "line\n" * 1000
    path = make_session(
        [
            msg(
                "a1",
                None,
                "assistant",
                [
                    {
                        "type": "toolCall",
                        "id": "t1",
                        "name": "bash",
                        "arguments": {"command": "yes"},
                    },
                    {
                        "type": "toolCall",
                        "id": "t2",
                        "name": "write",
                        "arguments": {"path": "a.py", "content": big},
                    },
                ],
                1,
            ),
            msg(
                "r1",
                "a1",
                "toolResult",
                [{"type": "text", "text": big}],
                2,
                toolCallId="t1",
                toolName="bash",
            ),
        ]
    )
    soup = static_checks(render(path))
    notes = [n.get_text() for n in soup.select(".notice.cut")]
    assert (
        notes
        == ["4000 more characters are not shown on this page (the session file has them all)."] * 2
    )


def test_page_text_budget_cuts_later_blocks(
    make_session: MakeSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    import piexport.page.render as render_mod

    monkeypatch.setattr(render_mod, "MAX_PAGE_TEXT_CHARS", 1500)
    out = "x" * 1000
    path = make_session(
        [
            msg(
                "a1",
                None,
                "assistant",
                [
                    {
                        "type": "toolCall",
                        "id": f"t{i}",
                        "name": "bash",
                        "arguments": {"command": "c"},
                    }
                    for i in range(3)
                ],
                1,
            ),
            *[
                msg(
                    f"r{i}",
                    "a1" if i == 0 else f"r{i - 1}",
                    "toolResult",
                    [{"type": "text", "text": out}],
                    2 + i,
                    toolCallId=f"t{i}",
                    toolName="bash",
                )
                for i in range(3)
            ],
        ]
    )
    soup = static_checks(render(path))
    missing = [int(n.get_text().split()[0]) for n in soup.select(".notice.cut")]
    # three 1-character commands and three 1,000-character outputs against a 1,500 budget
    assert sum(missing) == 3 + 3000 - 1500 and missing[-1] == 1000


def test_templates_never_mark_content_safe() -> None:
    from tests.support.sessions import REPO

    for template in (REPO / "templates").rglob("*.j2"):
        assert "|safe" not in template.read_text().replace(" ", ""), template


def tool_turn(
    name: str, args: dict[str, object], result: str, *, is_error: bool = False, **extra: object
) -> list[dict[str, object]]:
    """One assistant message calling one tool, and its result."""
    call = {"type": "toolCall", "id": "t1", "name": name, "arguments": args}
    return [
        msg("a1", None, "assistant", [call], 1),
        msg(
            "r1",
            "a1",
            "toolResult",
            [{"type": "text", "text": result}],
            2,
            toolCallId="t1",
            toolName=name,
            isError=is_error,
            **extra,
        ),
    ]


def test_read_shows_line_numbers_from_the_offset_and_folds_long_files(
    make_session: MakeSession,
) -> None:
    text = (
        "\n".join(f"line {i}" for i in range(41, 141))
        + "\n\n[60 more lines in file. Use offset=141 to continue.]"
    )
    soup = static_checks(
        render(
            make_session(tool_turn("read", {"path": "src/x.py", "offset": 41, "limit": 100}, text))
        )
    )
    result = soup.select_one(f"#{dom_id('r1')}")
    fold = result.select_one("details.fold")
    assert fold is not None and "Show all 100 lines" in fold.summary.get_text()
    preview = fold.summary.select_one(".gutter").get_text().split()
    assert preview[0] == "41" and len(preview) == 20
    full = fold.select(".code-with-lines")[-1]
    assert full.select_one(".gutter").get_text().split()[-1] == "140"
    assert "line 140" in full.select_one("pre.hl").get_text()
    assert (
        result.select_one(".notice").get_text()
        == "[60 more lines in file. Use offset=141 to continue.]"
    )
    assert "more lines in file" not in full.get_text()
    assert soup.select_one(".tool-head .path").get_text() == "src/x.py:41-140"


def test_bash_shows_exit_code_and_colours(make_session: MakeSession) -> None:
    out = "\x1b[31mFAILED\x1b[0m test_a\n\nCommand exited with code 2"
    soup = static_checks(
        render(make_session(tool_turn("bash", {"command": "pytest -q"}, out, is_error=True)))
    )
    result = soup.select_one(f"#{dom_id('r1')}")
    assert "error" in result["class"]
    assert result.select_one(".badge.exit").get_text() == "exit 2"
    assert result.select_one("pre.output .ansi-red").get_text() == "FAILED"
    assert "Command exited" not in result.get_text()
    assert soup.select_one(".tool-head + pre.hl").get_text().strip() == "pytest -q"


def test_edit_shows_pis_diff_with_line_numbers(make_session: MakeSession) -> None:
    diff = "  11 def total():\n- 12     return a\n+ 12     return max(0, a)\n    ...\n  40 end"
    soup = static_checks(
        render(
            make_session(
                tool_turn(
                    "edit",
                    {"path": "cart.py", "edits": [{"oldText": "a", "newText": "b"}]},
                    "Successfully replaced 1 block(s) in cart.py.",
                    details={"diff": diff, "firstChangedLine": 12},
                )
            )
        )
    )
    rows = [
        (tr["class"][0], tr.select_one(".n").get_text(), tr.select("td")[-1].get_text())
        for tr in soup.select("main table.diff tr")
    ]
    assert rows == [
        ("ctx", "11", "def total():"),
        ("del", "12", "    return a"),
        ("add", "12", "    return max(0, a)"),
        ("skip", "", "…"),
        ("ctx", "40", "end"),
    ]
    assert soup.select_one(".edit-pair") is None  # the diff replaces the raw old/new texts


def test_grep_find_and_ls_are_lists(make_session: MakeSession) -> None:
    grep = "src/a-1-b.py:3: x = 1\nsrc/a-1-b.py-4- y = 2\nsrc/c.py:10: x = 3"
    soup = static_checks(render(make_session(tool_turn("grep", {"pattern": "x"}, grep))))
    files = [f.get_text() for f in soup.select(".grep .grep-file")]
    assert files == ["src/a-1-b.py", "src/c.py"]
    lines = [(tr["class"][0], tr.select_one(".n").get_text()) for tr in soup.select(".grep tr")]
    assert lines == [("match", "3"), ("context", "4"), ("match", "10")]

    soup = static_checks(render(make_session(tool_turn("ls", {"path": "."}, "src/\nREADME.md\n"))))
    assert [li.get_text() for li in soup.select("ul.paths li")] == ["src/", "README.md"]
    assert [li.get_text() for li in soup.select("ul.paths li.dir")] == ["src/"]

    many = "\n".join(f"f{i}.py" for i in range(30))
    soup = static_checks(render(make_session(tool_turn("find", {"pattern": "*.py"}, many))))
    fold = soup.select_one("details.fold")
    assert len(fold.summary.select("li")) == 20 and "Show all 30 entries" in fold.summary.get_text()
    assert len(fold.select(":scope > ul.paths li")) == 30

    soup = static_checks(
        render(make_session(tool_turn("grep", {"pattern": "x"}, "No matches found")))
    )
    assert (
        soup.select_one(".grep") is None and "No matches found" in soup.select_one("pre").get_text()
    )


def test_unknown_tool_shows_arguments_as_json(make_session: MakeSession) -> None:
    soup = static_checks(
        render(make_session(tool_turn("web_search", {"query": "<b>x</b>", "n": 3}, "ok")))
    )
    args = soup.select_one(".tool-other > pre.hl")
    assert args is not None and '"query": "<b>x</b>"' in args.get_text()


def test_compactions_are_numbered_and_mark_what_they_summarised(
    make_session: MakeSession,
) -> None:
    recs = [
        msg("u1", None, "user", "first", 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "one"}], 2),
        msg("u2", "a1", "user", "second", 3),
        {
            "type": "compaction",
            "id": "c1",
            "parentId": "u2",
            "timestamp": ts(4),
            "summary": "**done** so far",
            "firstKeptEntryId": "u2",
            "tokensBefore": 61_234,
            "details": {"readFiles": ["a.py"], "modifiedFiles": ["b.py", "c.py"]},
        },
        # another branch from a1, compacted differently
        msg("u3", "a1", "user", "other", 5),
        {
            "type": "compaction",
            "id": "c2",
            "parentId": "u3",
            "timestamp": ts(6),
            "summary": "s",
            "firstKeptEntryId": "u3",
            "tokensBefore": 10,
        },
        msg("u4", "c1", "user", "after", 7),
    ]
    soup = static_checks(render(make_session(recs)))
    marker = soup.select_one(f"#{dom_id('c1')}")
    assert "Compaction 1 of 2" in marker.select_one(".role").get_text()
    assert "61.2k tokens" in marker.get_text()
    assert marker.select_one(".md strong").get_text() == "done"
    assert [d.summary.get_text() for d in marker.select("details.files")] == [
        "Files read (1)",
        "Files modified (2)",
    ]
    assert marker.select_one(f'.marker-lede a[href="#{dom_id("u2")}"]') is not None
    for eid in ("u1", "a1"):  # before u2 on the current path: summarised away by c1
        article = soup.select_one(f"#{dom_id(eid)}")
        assert "off-context" in article["class"]
    # the run's first entry says so, once for the run (issue 38)
    badge = soup.select_one(f"#{dom_id('u1')}").select_one(f'a.badge[href="#{dom_id("c1")}"]')
    assert badge.get_text() == "not in context after compaction 1 · 2 entries from here"
    assert soup.select_one(f"#{dom_id('a1')}").select_one(".badge.muted") is None
    assert "off-context" not in soup.select_one(f"#{dom_id('u2')}")["class"]
    assert soup.select_one(f"#{dom_id('u4')}").select_one(".badge.muted") is None


def test_a_fork_links_its_parent_by_name_only_when_asked(make_session: MakeSession) -> None:
    from piexport.page.render import RenderOptions

    header = {
        "type": "session",
        "version": 3,
        "id": "s2",
        "timestamp": ts(0),
        "cwd": "/x",
        "parentSession": "/home/a/.pi/agent/sessions/--x--/2025_javascript:alert(1) x.jsonl",
    }
    path = make_session([msg("u1", None, "user", "hi", 1)], header=header)
    plain = static_checks(render_session(load_session(path)))
    assert plain.select_one(".meta a") is None
    assert "2025_javascript:alert(1) x.jsonl" in plain.select_one(".meta").get_text()
    linked = static_checks(
        render_session(load_session(path), RenderOptions(link_parent_by_name=True))
    )
    assert linked.select_one(".meta a")["href"] == "./2025_javascript%3Aalert%281%29%20x.html"


def test_render_session_takes_a_session_and_is_the_public_api(make_session: MakeSession) -> None:
    import piexport

    path = make_session([msg("u1", None, "user", "hello", 1)])
    session = piexport.load_session(path)
    assert piexport.render_session(session) == render_session(build_view(session))
    assert {"export_session", "render_session", "RenderOptions"} <= set(piexport.__all__)


def test_labels_show_on_targets_and_as_bookmarks(make_session: MakeSession) -> None:
    recs = [
        msg("u1", None, "user", "hello", 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "hi"}], 2),
        {
            "type": "label",
            "id": "l1",
            "parentId": "a1",
            "timestamp": ts(3),
            "targetId": "u1",
            "label": "start",
        },
        {
            "type": "label",
            "id": "l2",
            "parentId": "l1",
            "timestamp": ts(4),
            "targetId": "a1",
            "label": "x",
        },
        {
            "type": "label",
            "id": "l3",
            "parentId": "l2",
            "timestamp": ts(5),
            "targetId": "a1",
            "label": "",
        },
    ]
    soup = static_checks(render(make_session(recs)))
    assert soup.select_one(f"#{dom_id('u1')} .entry-head .badge.label").get_text() == "start"
    assert soup.select_one(f"#{dom_id('a1')} .entry-head .badge.label") is None  # cleared
    bookmarks = [
        (a["href"], a.select_one(".badge").get_text()) for a in soup.select(".bookmarks a")
    ]
    assert bookmarks == [(f"#{dom_id('u1')}", "start")]
    marker = soup.select_one(f"#{dom_id('l3')}")
    assert "cleared" in marker.get_text() and marker.select_one(f'a[href="#{dom_id("a1")}"]')


DEEP = 1010


def test_a_deeply_nested_tree_renders_without_recursion(make_session: MakeSession) -> None:
    """1,010 nested alternatives (past Python's recursion limit of 1,000, as 3,000 were): each
    node has a leaf child and a continuing child, and the file's last entry is near the
    root, so every level is a fold inside the previous one."""
    recs = [msg("n0", None, "user", "root", 0)]
    for i in range(1, DEEP):
        recs.append(msg(f"x{i}", f"n{i - 1}", "user", f"leaf {i}", i))
        recs.append(msg(f"n{i}", f"n{i - 1}", "user", f"deeper {i}", i))
    recs.append(msg("last", "n0", "user", "the current leaf", 5000))
    path = make_session(recs)
    html = render(path)
    # (a regex: html.parser is slow on thousands of nested elements)
    assert len(re.findall(r' data-entry-id="', html)) == len(recs)
    assert html.count('<details class="branch"') == DEEP  # n0 forks three ways
    start = html.index('<ol class="rows">')
    nav = html[start : html.index("</ol>", start)]
    # deep rows show their depth, not 1,010 levels of tree lines (which took 20 MB)
    assert len(nav) < 350 * len(recs)


def test_the_page_shell_inlines_our_assets_byte_for_byte() -> None:
    from piexport.page.assets import read_static
    from piexport.page.highlight import style_css
    from piexport.page.scripts import page_script
    from piexport.text.ansi import palette_css

    html = render(sample_files()[0])
    assert html.startswith("<!doctype html>\n")
    head = html[: html.index("<style>")]
    assert head.index('http-equiv="Content-Security-Policy"') < head.index("<meta charset")
    css = f"{read_static('viewer.css')}\n{palette_css()}{style_css()}"
    assert f"<style>{css}</style>" in html
    assert f"<script>{page_script('session')}</script>" in html
    js = page_script("session", live=True)  # every part that builds HTML
    for banned in ("outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("):
        assert banned not in js, banned
    # one HTML sink: a detached <template> fed the page's own <noscript> source, through the
    # one Trusted Types policy the CSP names
    assert js.count("innerHTML") == 1
    assert "t.innerHTML = policy.createHTML(ns.textContent);" in js
    assert js.count("createPolicy(") == 1
    # and, on a page served live only, the page's own HTML fetched again from its origin,
    # through the same policy (DOMParser runs no script)
    assert js.count("parseFromString(") == 1
    assert 'new DOMParser().parseFromString(policy.createHTML(text), "text/html")' in js
    assert '; trusted-types piexport">' in head
    assert "url(" not in read_static("viewer.css") and "@import" not in read_static("viewer.css")


def test_branch_summary_links_to_the_branch_it_summarises(make_session: MakeSession) -> None:
    # pi's order: work on a branch, navigate back to u1 (fromId = u1 = parent), summary appended
    path = make_session(
        [
            msg("u1", None, "user", "start", 1),
            msg("a1", "u1", "assistant", [{"type": "text", "text": "abandoned work"}], 2),
            {
                "type": "branch_summary",
                "id": "b1",
                "parentId": "u1",
                "timestamp": ts(3),
                "fromId": "u1",
                "summary": "tried X",
            },
            msg("u2", "b1", "user", "try Y", 4),
        ]
    )
    soup = BeautifulSoup(render(path), "html.parser")
    marker = soup.select_one(f"#{dom_id('b1')}")
    hrefs = [a["href"] for a in marker.select("p a")]
    assert hrefs == [f"#{dom_id('a1')}", f"#{dom_id('u1')}"]


def test_code_fences_in_markdown_share_the_pages_highlight_budget(
    make_session: MakeSession,
) -> None:
    """Fenced code in model text is coloured from the same per-page budget as files, so a
    session full of code blocks cannot make an export crawl; past it, code stays plain."""
    from piexport.page.render import RenderOptions

    block = "def f(x):\n    return x + 1\n" * 20
    recs = [msg("u", None, "user", "go", 0)]
    for i in range(6):
        text = f"Step {i}:\n\n```python\n{block}# marker {i}\n```\n"
        recs.append(
            msg(f"a{i}", recs[-1]["id"], "assistant", [{"type": "text", "text": text}], i + 1)
        )
    path = make_session(recs)
    html = render_session(load_session(path), RenderOptions(highlight_chars=len(block) * 2 + 100))
    pres = re.findall(r'<pre class="hl" data-lang="python"><code>(.*?)</code></pre>', html, re.S)
    assert len(pres) == 6
    coloured = ['<span class="k">def</span>' in p for p in pres]
    assert coloured == [True, True, True, False, False, False]
    assert all(f"# marker {i}" in p for i, p in enumerate(pres))  # plain, never dropped


def test_fields_shown_outside_templates_are_escaped(make_session: MakeSession) -> None:
    """The header line, usage line, outputs and listings are built in Python, where nothing
    escapes by default: every content field that reaches them must come out inert."""
    bad = "<script>alert(1)</script>"
    call = {"type": "toolCall", "id": "c1", "name": "ls", "arguments": {"path": bad}}
    recs = [
        {**msg("u1", None, "user", "hi", 0), "timestamp": bad},
        msg(
            "a1",
            "u1",
            "assistant",
            [call],
            1,
            provider=bad,
            model=bad,
            stopReason=bad,
            usage={"input": bad, "output": 3, "cacheRead": bad, "cost": {"total": bad}},
        ),
        msg(
            "r1",
            "a1",
            "toolResult",
            [{"type": "text", "text": f"{bad}/\n" * 30}],
            2,
            toolCallId="c1",
            toolName="ls",
        ),
        msg("b1", "r1", "bashExecution", None, 3, command="x", output=f"\x1b[31m{bad}\n" * 30),
    ]
    html = render(make_session(recs))
    assert "<script>alert" not in html
    assert html.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5


HIDDEN_MARKDOWN = {
    **{f"bidi-{i}": text for i, text in enumerate(BIDI_MARKDOWN)},
    **{f"invisible-{i}": text for i, text in enumerate(INVISIBLE)},
}


@pytest.mark.parametrize("text", HIDDEN_MARKDOWN.values(), ids=HIDDEN_MARKDOWN.keys())
def test_markdown_shows_hidden_characters_as_marks_in_every_kind_of_text(text: str) -> None:
    """Trojan Source in model text: paragraphs (the plain short cut too), code spans, link
    titles, image alt text, tables, fences, entities and the plain-text fallback."""
    from piexport.page.markdown import render_markdown

    html = render_markdown(text)
    soup = BeautifulSoup(html, "html.parser")
    for node in soup.find_all(string=True):
        assert not unseen(str(node)), (text, str(node))
    for tag in soup.find_all(True):
        for attr in SHOWN_ATTRS:
            assert not unseen(str(tag.get(attr, ""))), (text, attr)
    if unseen(text):  # (an entity is shown as written, by the fallback)
        assert 'class="ctl"' in html or "⟪U+" in html, text  # (a title: plain marks)


def test_markdown_marks_a_code_span_and_keeps_an_emoji_selector() -> None:
    from piexport.page.markdown import render_markdown

    assert 'class="ctl"' in render_markdown("`a\u202eb`")
    assert render_markdown("\u26a0\ufe0f done") == "<p>\u26a0\ufe0f done</p>\n"


def test_plain_fallback_page_shows_hidden_characters_and_a_clean_title(
    make_session: MakeSession,
) -> None:
    """The plain-text page (a page that took too long): marks in the body, and a <title>
    that holds text only (markup inside <title> shows as written)."""
    from piexport.page.render import render_plain_parts

    session = load_session(make_session([msg("u1", None, "user", "hi \u202eevil\u3164", 1)]))
    html = "".join(render_plain_parts(session, "title \u202e\u034f end", "Too slow \u2066."))
    soup = static_checks(html)
    assert soup.title is not None
    assert soup.title.get_text() == "title ⟪U+202E⟫⟪U+034F⟫ end · pi session (plain)"
    assert "⟪U+3164⟫" in soup.get_text()


def test_a_hangul_filler_inside_a_word_is_not_a_lost_word() -> None:
    """U+3164 is a letter to regex \\w: once shown as a mark it split the word, and the
    word-loss check sent the whole text to the plain fallback."""
    from piexport.page.markdown import render_markdown

    html = render_markdown("see [x] and ab\u3164cd | x &amp;")
    assert "md-fallback" not in html and "ab<span" in html


def test_a_bash_execution_with_no_fields_says_so(make_session: MakeSession) -> None:
    """pi wrote a `!` entry with neither command nor output: the card says what is missing
    instead of showing an empty code block."""
    html = render(make_session([msg("b1", None, "bashExecution", None, 1)]))
    card = BeautifulSoup(html, "html.parser").select_one("#entry-b1")
    assert card is not None
    text = card.get_text(" ", strip=True)
    assert "(no command recorded)" in text and "(no output)" in text
    assert all(code.get_text().strip() for code in card.select("pre, code"))

"""Issue 28, the session page as read: tree rows that tell entries apart, quiet pages (no
fold for fields a reader cannot use, no Branches panel on one path, trivial side branches
on one line, previews as plain text), the prompts list and the skip link."""

from __future__ import annotations

import re

from piexport import load_session
from piexport.page.render import render_session
from piexport.page.view import build_view
from piexport.report.outline import command_head, render_tree_text

from tests.support.sessions import HEADER, MakeSession, msg, tool_result, ts

CWD = HEADER["cwd"]  # /home/alice/src/demo


def call(cid: str, name: str, **args: object) -> dict[str, object]:
    return {"type": "toolCall", "id": cid, "name": name, "arguments": args}


def tool_turn(eid: str, parent: str | None, second: int, *calls: dict[str, object]) -> dict:
    return msg(eid, parent, "assistant", list(calls), second, provider="p", model="m")


def test_tree_rows_show_paths_relative_to_the_cwd_and_commands_by_their_head(
    make_session: MakeSession,
) -> None:
    records = [
        msg("u1", None, "user", "go", 1),
        tool_turn("a1", "u1", 2, call("c1", "read", path=f"{CWD}/src/cart.py")),
        tool_result("r1", "a1", "x", 3, "c1", "read"),
        tool_turn("a2", "r1", 4, call("c2", "bash", command=f"cd {CWD} && npm test 2>&1")),
        tool_result("r2", "a2", "ok", 5, "c2", "bash"),
        tool_turn("a3", "r2", 6, call("c3", "bash", command=f"cd {CWD}/pkg && make\nmake install")),
        tool_result("r3", "a3", "ok", 7, "c3", "bash"),
        tool_turn("a4", "r3", 8, call("c4", "edit", path="/etc/hosts", edits=[])),
        tool_turn("a5", "a4", 9, call("c5", "subagent", agent="reviewer", task="Review\n cart.py")),
        tool_turn("a6", "a5", 10, call("c6", "web_fetch", limit=3)),
    ]
    session = load_session(make_session(records))
    rows = {r.id: r.text for r in build_view(session).outline}
    assert rows["a1"] == "assistant: [read: src/cart.py]"
    assert rows["r1"] == "[read: src/cart.py]"
    assert rows["a2"] == "assistant: [bash: npm test 2>&1]"
    assert rows["r3"] == "[bash: cd pkg && make …]"
    assert rows["a4"] == "assistant: [edit: /etc/hosts]"  # outside the cwd: as written
    # another tool by the words of its arguments, not their JSON; none: its JSON
    assert rows["a5"] == "assistant: [subagent: reviewer · Review cart.py]"
    assert rows["a6"] == 'assistant: [web_fetch: {"limit":3}]'
    # the CLI's tree keeps the full words
    assert f"[read: {CWD}/src/cart.py]" in render_tree_text(session)


def test_command_head_leaves_other_paths_alone() -> None:
    assert command_head("ls /repo-old /repo/x", "/repo") == "ls /repo-old x"
    assert command_head('cd "/repo"; git status', "/repo/") == "git status"
    assert command_head("cd /repo/ && ls", "/repo") == "ls"
    assert command_head("echo hi", None) == "echo hi"
    assert command_head("\n\n  ", "/repo") == ""
    assert command_head(r"cd C:\Work\App && dir", "c:\\work\\app") == "dir"


def test_tree_rows_on_the_page_are_relative(make_session: MakeSession) -> None:
    records = [
        msg("u1", None, "user", "go", 1),
        tool_turn("a1", "u1", 2, call("c1", "read", path=f"{CWD}/src/cart.py")),
    ]
    html = render_session(load_session(make_session(records)))
    nav = html[html.index('<nav class="outline"') : html.index("</nav>")]
    assert "[read: src/cart.py]" in nav and CWD not in nav
    assert re.search(r'<a class="skip" href="#transcript">', html)


def answer(eid: str, parent: str, second: int, text: str, **extra: object) -> dict:
    return msg(eid, parent, "assistant", [{"type": "text", "text": text}], second, **extra)


def test_a_response_id_gets_no_fold_of_its_own(make_session: MakeSession) -> None:
    records = [
        msg("u1", None, "user", "hi", 1),
        answer("a1", "u1", 2, "hello", provider="p", model="m", responseId="resp_123"),
        answer("a2", "a1", 3, "again", provider="p", model="m", responseId="resp_456", x=1),
    ]
    html = render_session(load_session(make_session(records)))
    a1 = html[html.index('id="entry-a1"') : html.index('id="entry-a2"')]
    a2 = html[html.index('id="entry-a2"') :]
    assert "Other fields" not in a1 and "resp_123" not in a1
    # beside a field the page has no place for, it is shown with it: nothing is dropped
    assert "Other fields" in a2 and "resp_456" in a2


def side(eid: str, parent: str, second: int, kind: str, **fields: object) -> dict:
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": ts(second), **fields}


def test_trivial_side_branches_share_one_line_and_previews_are_plain(
    make_session: MakeSession,
) -> None:
    records = [
        msg("u1", None, "user", "## Plan\nMake it **fast**", 1),
        answer("a1", "u1", 2, "# Done\nUse `cache()` and [docs](https://x.example/d)"),
        # three one-entry side branches: a label, a model change, a branch summary
        side("s1", "a1", 3, "model_change", provider="p", modelId="other"),
        side("s2", "a1", 4, "branch_summary", fromId="a1", summary="gave up"),
        side("s3", "a1", 5, "custom", customType="ext", data={}),
        # a side branch with a turn of its own keeps its card
        msg("u2", "a1", "user", "Try **another** way", 6),
        answer("a2", "u2", 7, "Other way"),
        msg("u3", "a1", "user", "Carry on", 8),
        # an answer that used nothing, with nothing after it: figures all zero, no card
        {**answer("z2", "a1", 9, "(empty)"), "parentId": "a1"},
        msg("u4", "u3", "user", "and on", 10),
    ]
    view = build_view(load_session(make_session(records)))
    html = render_session(view)
    panel = html[html.index('id="branches"') : html.index('id="compare"')]
    assert panel.count('class="branch-card') == 2  # the current branch and u2's
    assert panel.count("data-pick=") == 2  # only cards are ticked to compare
    line = re.search(r'<li class="branch-trivial">.*?</li>', panel, re.DOTALL)
    assert line is not None
    assert "4 side branches with nothing of their own to count" in line.group(0)
    for leaf in ("s1", "s2", "s3", "z2"):
        assert f'href="#entry-{leaf}"' in line.group(0)
    assert "4 with nothing of their own to count" in panel
    # previews show words, not markdown
    assert "Try another way" in panel and "**" not in panel and "##" not in panel
    rows = {r.id: r.text for r in view.outline}
    assert rows["u1"] == "user: Plan Make it fast"
    assert rows["a1"] == "assistant: Done Use cache() and docs"


def test_the_prompts_list_holds_the_current_branchs_prompts(make_session: MakeSession) -> None:
    records = [
        msg("u1", None, "user", "## First **ask**", 1),
        answer("a1", "u1", 2, "ok"),
        msg("u2", "a1", "user", "A side ask", 3),  # another branch
        msg("u3", "a1", "user", "Second ask", 4),
        answer("a3", "u3", 5, "done"),
    ]
    html = render_session(load_session(make_session(records)))
    panel = re.search(r'<details class="prompts-panel".*?</details>', html, re.DOTALL)
    assert panel is not None
    assert "2 on the current branch" in panel.group(0)
    links = re.findall(
        r'<a href="#(entry-\w+)"><time>[^<]+</time> <span class="t">([^<]*)</span>', panel.group(0)
    )
    assert links == [("entry-u1", "First ask"), ("entry-u3", "Second ask")]
    # the filters need the script, and say so without it
    assert '<select id="view" class="js-only"' in html
    assert '<noscript><p class="notice">The view filters' in html

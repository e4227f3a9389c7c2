"""Markdown for pull requests notifies nobody (issue 27).

``compare``, ``summary`` and ``render --format md`` are posted as pull-request comments, where
GitHub links (and notifies) every ``@name`` in the text of the rendered HTML outside code,
``pre`` and links, after entities are decoded. Every mention from a session must reach the
reader as written, in code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup, NavigableString
from click.testing import CliRunner
from markdown_it import MarkdownIt

from piexport.cli import cli
from piexport.text.mdsafe import html_text, inline_text, message_markdown

from tests.support.sessions import HEADER, MakeSession, msg, ts

MENTION = re.compile(r"(?<![A-Za-z0-9_])@[A-Za-z0-9]")
URL = re.compile(r"(?:(?<=[\s*_~(])|^)(?:(?:https?|ftp)://|www\.)\S*", re.I | re.M)
NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hal", "ivy", "jo"]


def notified(markdown: str) -> list[str]:
    """The mentions GitHub would link in ``markdown``: in rendered text that is not in code,
    ``pre`` or a link, nor in a URL it makes a link of."""
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    soup = BeautifulSoup(html, "html.parser")
    found = []
    for node in soup.find_all(string=True):
        if not isinstance(node, NavigableString) or node.find_parent(["code", "pre", "a"]):
            continue
        found += MENTION.findall(URL.sub(" ", str(node)))
    return found


def shown(markdown: str) -> str:
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    return BeautifulSoup(html, "html.parser").get_text()


MESSAGES = [
    "thanks @alice, and cc @org/team-x.",
    "@bob at the start, (@carol) in brackets, *@dave* in emphasis, ~@erin",
    "a table:\n\n| who | why |\n|---|---|\n| @frank | @gina |",
    "## heading @hal\n\n> quote @ivy\n\n- item @jo",
    "[link text @alice](https://x.example/@bob) <https://y.example/@carol> www.z.example/@dave",
    "a `lone backtick and @erin, then ``double`` and @frank",
    "code: `@gina` and\n\n```\n@hal in a fence\n```\n\n    @ivy indented",
    "e-mail jo@example.com is no mention; x_@alice neither",
    "<b>@bob</b> <!-- @carol --> @dave",
    "[r]: https://ref.example/@erin\n\nsee [r] and @frank",
]


@pytest.mark.parametrize("text", MESSAGES)
def test_message_text_mentions_nobody_and_shows_every_name(text: str) -> None:
    md = message_markdown(text)
    assert notified(md) == [], md
    before = shown(text.replace("<", "&lt;"))  # the text as a reader sees it (no HTML)
    for name in [n for n in NAMES if f"@{n}" in before]:
        assert f"@{name}" in shown(md), (name, md)


def test_a_mention_written_as_an_entity_mentions_nobody() -> None:
    """``&#64;name`` is a mention once GitHub decodes it: the text goes out fenced, as written."""
    for text in ["cc &#64;alice", "cc &#x40;bob and @carol", "cc &commat;dave"]:
        md = message_markdown(text)
        assert notified(md) == [] and text in md, md


@pytest.mark.parametrize(
    "text", ["@alice", "x @bob/team y", "mail a@b.com, @carol!", "https://x/@dave @erin"]
)
def test_inline_and_html_text_mention_nobody(text: str) -> None:
    for md in (
        f"- {inline_text(text)}",
        f"<details>\n<summary>{html_text(text)}</summary>\n</details>",
    ):
        assert notified(md) == [], md
        assert all(f"@{n}" in shown(md) for n in NAMES if f"@{n}" in text), md


def mention_session(make_session: MakeSession) -> Path:
    def m(n: int) -> str:
        return f"@{NAMES[n % len(NAMES)]}"

    call = {
        "type": "toolCall",
        "id": "t1",
        "name": f"tool{m(1)}",
        "arguments": {"path": f"/src/{m(2)}/a.py", "command": f"echo {m(3)}"},
    }
    return make_session(
        [
            {
                "type": "session_info",
                "id": "n0",
                "parentId": None,
                "timestamp": ts(0),
                "name": f"fix for {m(4)}",
            },
            msg("u1", "n0", "user", f"please ask {m(5)} and {m(6)}", 1),
            msg(
                "a1",
                "u1",
                "assistant",
                [
                    {"type": "thinking", "thinking": f"maybe {m(7)}"},
                    {"type": "text", "text": f"I asked {m(8)}"},
                    call,
                ],
                2,
                provider=f"p{m(9)}",
                model=f"m{m(0)}",
                stopReason="toolUse",
            ),
            {
                "type": "message",
                "id": "r1",
                "parentId": "a1",
                "timestamp": ts(3),
                "message": {
                    "role": "toolResult",
                    "toolCallId": "t1",
                    "toolName": f"tool{m(1)}",
                    "content": [{"type": "text", "text": f"done by {m(2)}"}],
                    "isError": True,
                },
            },
            {
                "type": "label",
                "id": "l1",
                "parentId": "r1",
                "timestamp": ts(4),
                "targetId": "a1",
                "label": f"seen {m(3)}",
            },
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "l1",
                "timestamp": ts(5),
                "summary": f"summary for {m(4)}",
                "tokensBefore": 5,
                "firstKeptEntryId": "a1",
            },
            {
                "type": "branch_summary",
                "id": "s1",
                "parentId": "k1",
                "timestamp": ts(6),
                "fromId": "u1",
                "summary": f"left {m(5)}",
            },
            msg("u2", "s1", "user", f"and {m(6)}", 7),
            msg(
                "a2",
                "u2",
                "assistant",
                [{"type": "text", "text": f"ok {m(7)}"}],
                8,
                stopReason="stop",
            ),
            msg("u3", "u1", "user", f"other branch {m(8)}", 9),
            msg(
                "a3",
                "u3",
                "assistant",
                [{"type": "text", "text": f"yes {m(9)}"}],
                10,
                stopReason="stop",
            ),
        ],
        header={**HEADER, "cwd": f"/home/{m(0)}/src"},
    )


@pytest.mark.parametrize(
    "args",
    [
        ["render", "--format", "md", "-o", "-"],
        ["summary"],
        ["compare", "a2", "a3"],
        ["summary", "--link", "https://ci.example/@alice/run"],
    ],
    ids=["render-md", "summary", "compare", "summary-link"],
)
def test_markdown_outputs_mention_nobody(make_session: MakeSession, args: list[str]) -> None:
    path = mention_session(make_session)
    argv: list[Any] = (
        [*args[:1], str(path), *args[1:]]
        if args[0] != "compare"
        else [args[0], str(path), *args[1:]]
    )
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code in (0, 1), result.output
    md = result.stdout
    assert "@" in md
    assert notified(md) == [], md

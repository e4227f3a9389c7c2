"""The session page: structure, pairing, branches, self-containment, determinism, escaping."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from piexport import load_session
from piexport.export import export_session
from piexport.render import render_session
from piexport.view import build_view, dom_id

from .conftest import MakeSession, msg, sample_files, ts

SAFE_URL = re.compile(
    r"^(#|https?://|mailto:|data:image/(png|jpeg|gif|webp);base64,|(\.\./)*[\w.-]+(/[\w.-]+)*\.html(#\S*)?$)"
)
FORBIDDEN_TAGS = ("base", "form", "iframe", "object", "embed", "link", "frame")


def render(path: Path) -> str:
    return render_session(build_view(load_session(path)))


def static_checks(html: str) -> BeautifulSoup:
    """What every page must satisfy, whatever was in the session (SECURITY.md (c))."""
    soup = BeautifulSoup(html, "html.parser")
    head = soup.head
    assert head is not None
    first = head.find(True)
    assert first.name == "meta" and first.get("http-equiv") == "Content-Security-Policy"
    csp = first["content"]
    for part in (
        "default-src 'none'",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
        "require-trusted-types-for 'script'",
    ):
        assert part in csp
    scripts = soup.find_all("script")
    assert len(scripts) == 1
    digest = base64.b64encode(hashlib.sha256(scripts[0].string.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in csp
    for tag in soup.find_all(True):
        assert tag.name not in FORBIDDEN_TAGS, tag.name
        for attr, value in tag.attrs.items():
            assert not attr.lower().startswith("on"), (tag.name, attr)
            assert attr != "style", tag.name
            if attr in ("href", "src"):
                assert re.match(SAFE_URL, value), value
        if tag.name == "meta":
            assert tag.get("http-equiv", "").lower() != "refresh"
    return soup


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem[-12:])
def test_sample_pages_show_every_entry_once(path: Path) -> None:
    session = load_session(path)
    soup = static_checks(render(path))
    for e in session.entries:
        found = soup.find_all(id=dom_id(e.id))
        assert len(found) == 1, e.id
        assert found[0].get("data-entry-id") == e.id
    # every tool call sits next to its result (or says there is none)
    for tool in soup.select(".tool"):
        assert tool.select_one(".tool-result") is not None
    # one collapsible block per alternative at every branch point
    alternatives = sum(len(session.tree.children[b]) - 1 for b in session.tree.branch_points)
    alternatives += len(session.tree.roots) - 1
    assert len(soup.select("details.branch")) == alternatives
    # the navigator lists every entry
    assert len(soup.select("nav.outline li")) == len(session.entries)


def test_pages_are_deterministic() -> None:
    for path in sample_files():
        assert render(path) == render(path)


def test_labels_compaction_and_diagnostics_are_shown() -> None:
    by_name = {p.name: p for p in sample_files()}
    shop = next(p for n, p in by_name.items() if "01955b2a" in n)
    soup = BeautifulSoup(render(shop), "html.parser")
    badges = [b.get_text(strip=True) for b in soup.select("main .badge.label")]
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
    from piexport.markdown import render_markdown

    html = render_markdown(text)
    assert "TAIL" in BeautifulSoup(html, "html.parser").get_text()


def test_ordinary_markdown_is_not_sent_to_the_fallback() -> None:
    from piexport.markdown import render_markdown

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
    import piexport.render as render_mod

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
    import piexport.render as render_mod

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
    import piexport.render as render_mod

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
    from .conftest import REPO

    for template in (REPO / "templates").rglob("*.j2"):
        assert "|safe" not in template.read_text().replace(" ", ""), template


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

"""`piexport summary`: figures checked against an independent count from the raw file."""

from __future__ import annotations

import json
from collections import Counter
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner
from markdown_it import MarkdownIt

from piexport.cli import cli

from tests.support.sessions import DATA, HEADER, MakeSession, msg, sample_files, ts

WELL_FORMED = [p for p in sample_files() if "0196f145" not in p.name] + sorted(
    (DATA / "pi15").rglob("*.jsonl")
)


def independent_figures(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """The documented FIGURES, counted straight from JSON objects (no piexport code)."""
    messages: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    tokens = {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "total": 0,
        "reasoning": 0,
        "cacheWrite1h": 0,
    }
    cost, tool_errors, errors, compactions = 0.0, 0, 0, 0
    models: list[str] = []
    read: set[str] = set()
    modified: set[str] = set()
    by_kind: dict[str, dict[str, Any]] = {}

    def add_usage(kind: str, u: dict[str, Any], model: str | None) -> None:
        # pi 1.5's /session: the four counts, their sum as the total, and cost.total
        nonlocal cost
        if model and model not in models:
            models.append(model)
        four = ("input", "output", "cacheRead", "cacheWrite")
        t = by_kind.setdefault(
            kind, {"count": 0, "tokens": dict.fromkeys((*four, "total"), 0), "cost": 0.0}
        )
        t["count"] += 1
        for k in (*four, "reasoning", "cacheWrite1h"):
            tokens[k] += u.get(k, 0)
        for k in four:
            t["tokens"][k] += u.get(k, 0)
        tokens["total"] += sum(u.get(k, 0) for k in four)
        t["tokens"]["total"] += sum(u.get(k, 0) for k in four)
        cost += (u.get("cost") or {}).get("total", 0)
        t["cost"] += (u.get("cost") or {}).get("total", 0)

    for e in entries:
        if e["type"] == "compaction":
            compactions += 1
        if e["type"] in ("compaction", "branch_summary") and e.get("usage"):
            kind = {"compaction": "compaction", "branch_summary": "branch"}[e["type"]]
            add_usage(f"{kind} summaries", e["usage"], None)
        if e["type"] == "usage":
            add_usage(e["kind"], e["usage"], f"{e['provider']}/{e['model']}")
        if e["type"] != "message":
            continue
        m = e["message"]
        messages[m["role"]] += 1
        if m["role"] == "toolResult" and m.get("isError") is True:
            tool_errors += 1
        if m["role"] == "toolResult" and m.get("usage"):
            add_usage("tool work", m["usage"], None)
        if m["role"] != "assistant":
            continue
        errors += m.get("stopReason") in ("error", "aborted")
        add_usage("turns", m.get("usage") or {}, f"{m['provider']}/{m['model']}")
        for b in m["content"] or []:
            if b["type"] == "toolCall":
                tools[b["name"]] += 1
                p = b["arguments"].get("path")
                if p and b["name"] == "read":
                    read.add(p)
                if p and b["name"] in ("edit", "write"):
                    modified.add(p)
    return {
        "entries": len(entries),
        "messages": dict(sorted(messages.items())),
        "toolCalls": dict(sorted(tools.items())),
        "toolErrors": tool_errors,
        "tokens": tokens,
        "cost": round(cost, 6),
        "models": models,
        "filesRead": sorted(read),
        "filesModified": sorted(modified),
        "errors": errors,
        "compactions": compactions,
        "usageByKind": {k: {**t, "cost": round(t["cost"], 6)} for k, t in sorted(by_kind.items())},
        "costEstimated": None,  # every sample message reported its cost: nothing to estimate
    }


def raw_entries(path: Path) -> list[dict[str, Any]]:
    objs = [
        json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    entries = [o for o in objs if o["type"] != "session"]
    if "version" not in objs[0]:  # v1: a straight chain in file order
        for i, e in enumerate(entries):
            e["id"], e["parentId"] = str(i), str(i - 1) if i else None
    if objs[0].get("version", 1) < 3:  # v2 → v3: hookMessage became custom
        for e in entries:
            if e["type"] == "message" and e["message"]["role"] == "hookMessage":
                e["message"]["role"] = "custom"
    return entries


def current_path(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_id = {e["id"]: e for e in entries}
    out, cur = [], entries[-1]
    while cur is not None:
        out.append(cur)
        cur = by_id.get(cur["parentId"]) if cur["parentId"] else None
    return out[::-1]


@pytest.mark.parametrize("path", WELL_FORMED, ids=lambda p: p.stem[-12:])
def test_json_figures_match_an_independent_count(runner: CliRunner, path: Path) -> None:
    result = runner.invoke(cli, ["summary", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    entries = raw_entries(path)
    assert data["all"] == independent_figures(entries)
    assert data["path"] == independent_figures(current_path(entries))
    assert set(data) == {"session", "path", "all", "leaves", "labels", "diagnostics"}
    assert set(data["session"]) == {
        "id",
        "name",
        "cwd",
        "started",
        "ended",
        "headerTime",
        "durationSeconds",
        "activeSeconds",
        "parentSession",
    }


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem[-12:])
def test_markdown_summary_has_no_raw_html(runner: CliRunner, path: Path) -> None:
    result = runner.invoke(cli, ["summary", str(path), "--link", "https://ci.example/t.html"])
    tokens = MarkdownIt("commonmark").parse(result.stdout)
    flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
    assert not [t for t in flat if t.type in ("html_block", "html_inline")]
    assert "](<https://ci.example/t.html>)" in result.stdout


def test_hostile_content_stays_inside_fences(runner: CliRunner, make_session: MakeSession) -> None:
    evil = "```\n<script>alert(1)</script>\n```\n<img src=x onerror=alert(1)>"
    path = make_session(
        [
            msg("u1", None, "user", evil, 1),
            msg(
                "a1",
                "u1",
                "assistant",
                [{"type": "text", "text": evil}],
                2,
                provider="p",
                model="m",
            ),
        ]
    )
    out = runner.invoke(cli, ["summary", str(path), "--link", "javascript:alert(1)"]).stdout
    tokens = MarkdownIt("commonmark").parse(out)
    flat = [t for tok in tokens for t in [tok, *(tok.children or [])]]
    assert not [t for t in flat if t.type in ("html_block", "html_inline")]
    assert "javascript:" not in out


@pytest.mark.parametrize(
    ("condition", "sample", "code"),
    [
        ("error", "0196ec1e", 1),
        ("tool-error", "0196ec1e", 1),
        ("aborted", "0196ec1e", 0),
        ("aborted", "01955f7c", 0),
        ("error", "01955f7c", 0),
    ],
)
def test_fail_on_exit_codes(runner: CliRunner, condition: str, sample: str, code: int) -> None:
    path = next(p for p in sample_files() if sample in p.name)
    result = runner.invoke(cli, ["summary", str(path), "--fail-on", condition])
    assert result.exit_code == code, result.output


def test_fail_on_aborted_on_its_branch(runner: CliRunner) -> None:
    from piexport import load_session

    path = next(p for p in sample_files() if "01955b2a" in p.name)
    session = load_session(path)
    aborted = next(
        e.id
        for e in session.entries
        if e.role == "assistant" and e.message.get("stopReason") == "aborted"
    )
    assert runner.invoke(cli, ["summary", str(path), "--fail-on", "aborted"]).exit_code == 0
    assert (
        runner.invoke(
            cli, ["summary", str(path), "--leaf", aborted, "--fail-on", "aborted"]
        ).exit_code
        == 1
    )


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.stem[-12:])
def test_render_markdown_and_json(runner: CliRunner, path: Path) -> None:
    from piexport import load_session

    session = load_session(path)
    md = runner.invoke(cli, ["render", str(path), "--format", "md", "-o", "-"])
    assert md.exit_code == 0, md.output
    # every user message on the current path is there; tool output is fenced inside <details>
    for e in session.path_entries():
        if e.role == "user":
            text = (
                e.message["content"]
                if isinstance(e.message["content"], str)
                else e.message["content"][0]["text"]
            )
            assert text in md.stdout
    assert md.stdout.count("<details>") == md.stdout.count("</details>")
    data = json.loads(
        runner.invoke(cli, ["render", str(path), "--format", "json", "-o", "-"]).stdout
    )
    assert [e["id"] for e in data["entries"]] == [e.id for e in session.entries]
    assert data["tree"]["leaf"] == session.tree.leaf_id
    assert data["context"]["messages"] == json.loads(json.dumps(data["context"]["messages"]))


def test_render_md_writes_default_name(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = sample_files()[0]
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(cli, ["render", str(src), "--format", "md"]).exit_code == 0
    assert (tmp_path / (src.stem + ".md")).read_text().startswith("# ")


# Markdown outputs are read on GitHub, which renders raw HTML (sanitised, but <img> with a
# remote src, <details open> and <!-- --> survive). Render them the same way: CommonMark with
# HTML on.
EVIL_IMG = "<img src=https://evil.example/p.png>"
BREAKOUT = f"`{EVIL_IMG}<details open><summary>x</summary>`"


def github_html(markdown: str) -> BeautifulSoup:
    return BeautifulSoup(MarkdownIt("commonmark").render(markdown), "html.parser")


def assert_nothing_live(markdown: str, words: list[str]) -> BeautifulSoup:
    """No element from content, every later word still there, no hidden character raw."""
    soup = github_html(markdown)
    assert soup.find("img") is None, markdown
    for tag in soup.find_all(["details", "summary"]):
        assert tag.attrs == {}, tag  # ours carry no attribute; <details open> is content's
    assert "<!--" not in str(soup).replace("&lt;!--", "")
    text = soup.get_text()
    for word in words:
        assert word in text, (word, markdown)
    for ch in "\u202e\u2066\u200b\u034f\u3164\r":
        assert ch not in markdown, (ch, markdown)
    return soup


def hostile_markdown_session(make_session: MakeSession) -> Path:
    header = {
        "type": "session",
        "version": 3,
        "id": f"id {BREAKOUT} idword",
        "timestamp": "2025-01-01T10:00:00.000Z",
        "cwd": f"/home/a{BREAKOUT} cwdword \u202e",
    }
    call = {
        "type": "toolCall",
        "id": "t1",
        "name": f"tool{BREAKOUT}\r\r{EVIL_IMG}",
        "arguments": {"x": BREAKOUT},
    }
    return make_session(
        [
            msg(
                "u1",
                None,
                "user",
                f"{EVIL_IMG} userword \u202eevil\u2066 ``` ![pixel](https://evil.example/i.png)",
                1,
            ),
            msg(
                "a1",
                "u1",
                "assistant",
                [
                    {"type": "text", "text": "text before\n\n<!-- hides the rest\n\nhiddenword"},
                    {"type": "text", "text": f"inline <!-- x --> and {EVIL_IMG} `<b>` code"},
                    {"type": "text", "text": "<details open>\n<summary>s</summary>\n\ndetword"},
                    {"type": "thinking", "thinking": f"think\r\r{EVIL_IMG}"},
                    call,
                ],
                2,
                provider=f"p{BREAKOUT}",
                model="m",
            ),
            msg(
                "r1",
                "a1",
                "toolResult",
                [{"type": "text", "text": f"result {BREAKOUT} resultword"}],
                3,
                toolCallId="t1",
                toolName="tool",
            ),
            {
                "type": "model_change",
                "id": "mc",
                "parentId": "r1",
                "timestamp": ts(4),
                "provider": f"prov{BREAKOUT}",
                "modelId": f"_{EVIL_IMG}_",
            },
            {
                "type": "thinking_level_change",
                "id": "tl",
                "parentId": "mc",
                "timestamp": ts(5),
                "thinkingLevel": f"high{BREAKOUT}",
            },
            msg(
                "b1",
                "tl",
                "bashExecution",
                None,
                6,
                command=f"ls\r\r{EVIL_IMG}\r\rcmdword",
                output=f"out\r\n{EVIL_IMG}",
                exitCode=0,
            ),
            {
                "type": "compaction",
                "id": "k1",
                "parentId": "b1",
                "timestamp": ts(7),
                "summary": f"<!-- summary {EVIL_IMG}",
                "tokensBefore": f"5{BREAKOUT}",
                "firstKeptEntryId": "b1",
            },
            {
                "type": "branch_summary",
                "id": "s1",
                "parentId": "k1",
                "timestamp": ts(8),
                "fromId": "u1",
                "summary": f"{EVIL_IMG}\n\n<details open>",
            },
            {
                "type": "custom_message",
                "id": "c1",
                "parentId": "s1",
                "timestamp": ts(9),
                "customType": f"ext{BREAKOUT}\r\rcustomword",
                "content": "custom",
                "display": True,
            },
            msg("u2", "c1", "user", "lastword \u034f\u3164", 10),
        ],
        header=header,
    )


def test_render_md_lets_no_content_become_html(
    runner: CliRunner, make_session: MakeSession
) -> None:
    """Issue 13: a backtick in the cwd or an id breaks out of its code span, CRs break the
    <summary> line, an assistant <!-- hides the rest, raw HTML in message text goes live."""
    path = hostile_markdown_session(make_session)
    md = runner.invoke(cli, ["render", str(path), "--format", "md", "-o", "-"]).stdout
    words = ["idword", "cwdword", "userword", "hiddenword", "detword", "resultword"]
    soup = assert_nothing_live(md, [*words, "cmdword", "customword", "lastword"])
    summaries = [s.get_text() for s in soup.find_all("summary")]
    assert any("cmdword" in s for s in summaries), summaries  # the command, whole, in one line
    assert any("customword" in s for s in summaries), summaries
    assert "⟪U+202E⟫" in md and "⟪U+3164⟫" in md


def test_summary_markdown_lets_no_content_become_html(
    runner: CliRunner, make_session: MakeSession
) -> None:
    header_cwd = f"/x{BREAKOUT}"
    path = make_session(
        [
            {
                "type": "session_info",
                "id": "n0",
                "parentId": None,
                "timestamp": ts(0),
                "name": f"name {BREAKOUT} \u202e",
            },
            msg("u1", "n0", "user", f"asked {BREAKOUT}\r\r\u2066", 1),
            msg(
                "a1",
                "u1",
                "assistant",
                [
                    {"type": "text", "text": f"<!-- done {BREAKOUT}"},
                    {
                        "type": "toolCall",
                        "id": "t1",
                        "name": "write",
                        "arguments": {"path": f"/f{BREAKOUT}\u200b", "content": "x"},
                    },
                ],
                2,
                provider="p",
                model="m",
                stopReason="toolUse",
            ),
        ],
        header={**HEADER, "cwd": header_cwd},
    )
    out = runner.invoke(cli, ["summary", str(path)]).stdout
    assert_nothing_live(out, ["name", "asked", "done", "Files modified"])


def test_code_span_and_fence_delimiters_outrun_the_content() -> None:
    from piexport.text.mdsafe import code_fence, code_span

    for text in ["a`b", "``x``", "`", "a ``` b", "` x `", "  ", "x\r\ny\rz"]:
        html = MarkdownIt("commonmark").renderInline(code_span(text))
        assert html.startswith("<code>") and html.endswith("</code>"), (text, html)
        shown = " ".join(text.replace("\r\n", " ").replace("\r", " ").split("\n"))
        assert unescape(html[len("<code>") : -len("</code>")]) == shown, (text, html)
    for text in ["```\nx\n```", "~~~\n", "a\r\n````b\r```"]:
        html = MarkdownIt("commonmark").render(code_fence(text) + "\n\nafter")
        assert html.count("<pre>") == 1 and "<p>after</p>" in html, (text, html)

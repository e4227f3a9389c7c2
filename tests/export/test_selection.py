"""Export exactly what you mean to share: branch, leaf, thinking, tool output, images, context."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport import Selection, SelectionError, apply_selection, load_session
from piexport.cli import cli
from piexport.page.view import build_view, dom_id
from piexport.read.context import build_session_context, context_entries

from tests.support.sessions import MakeSession, msg, tool_result, ts

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
    )
).decode()


def records() -> list[Any]:
    """u1 → a1 (thinking, bash call) → r1 → [x1 → x2 (another branch)] / u2 (image) → k1
    (compaction keeping r1) → a2, the last entry in the file."""
    return [
        msg("u1", None, "user", "Fix the build", 1),
        msg(
            "a1",
            "u1",
            "assistant",
            [
                {"type": "thinking", "thinking": "PRIVATE-MUSING about the build"},
                {"type": "text", "text": "Running the tests"},
                {
                    "type": "toolCall",
                    "id": "c1",
                    "name": "bash",
                    "arguments": {"command": "make test-everything"},
                },
            ],
            2,
            stopReason="toolUse",
        ),
        tool_result("r1", "a1", "TOOL-OUTPUT-LINE 42 passed", 3, "c1", "bash"),
        msg("x1", "r1", "user", "OTHER-BRANCH question", 4),
        msg("x2", "x1", "assistant", [{"type": "text", "text": "OTHER-BRANCH answer"}], 5),
        msg(
            "u2",
            "r1",
            "user",
            [
                {"type": "text", "text": "see screenshot"},
                {"type": "image", "mimeType": "image/png", "data": PNG},
            ],
            6,
        ),
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "u2",
            "timestamp": ts(7),
            "summary": "COMPACTED-SUMMARY",
            "firstKeptEntryId": "r1",
            "tokensBefore": 900,
        },
        {
            "type": "model_change",
            "id": "m1",
            "parentId": "k1",
            "timestamp": ts(8),
            "provider": "anthropic",
            "modelId": "claude",
        },
        msg("a2", "m1", "assistant", [{"type": "text", "text": "MAIN-BRANCH done"}], 9),
    ]


@pytest.fixture
def session_file(make_session: MakeSession) -> Path:
    return make_session(records())


def render(runner: CliRunner, path: Path, tmp_path: Path, *flags: str) -> str:
    out = tmp_path / "page.html"
    result = runner.invoke(cli, ["render", str(path), "-o", str(out), *flags])
    assert result.exit_code == 0, result.output
    return out.read_text()


def entry_ids(page: str) -> set[str]:
    return set(re.findall(r'\sdata-entry-id="([^"]+)"', page))


def notice(page: str) -> str:
    m = re.search(r'<p class="sharing-notice">(.*?)</p>', page)
    return m.group(1) if m else ""


def test_default_page_has_everything_and_no_notice(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    page = render(runner, session_file, tmp_path)
    for text in (
        "PRIVATE-MUSING",
        "TOOL-OUTPUT-LINE",
        "OTHER-BRANCH",
        "MAIN-BRANCH",
        '<img class="attached"',
    ):
        assert text in page
    assert notice(page) == ""


def test_no_thinking(runner: CliRunner, session_file: Path, tmp_path: Path) -> None:
    page = render(runner, session_file, tmp_path, "--no-thinking")
    assert "PRIVATE-MUSING" not in page
    assert "Running the tests" in page and "TOOL-OUTPUT-LINE" in page
    assert notice(page) == "Shared view: thinking removed"


def test_no_tool_output_keeps_calls_and_pairing(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    page = render(runner, session_file, tmp_path, "--no-tool-output")
    assert "TOOL-OUTPUT-LINE" not in page
    assert "make test-everything" in page and "[output omitted]" in page
    assert "r1" in entry_ids(page)
    selected = apply_selection(load_session(session_file), Selection(no_tool_output=True))
    assert build_view(selected).paired_results == {"r1"}
    assert "tool output removed" in notice(page)


def test_no_images_leaves_a_marker(runner: CliRunner, session_file: Path, tmp_path: Path) -> None:
    page = render(runner, session_file, tmp_path, "--no-images")
    assert "<img" not in page and PNG[:40] not in page
    assert "[image omitted]" in page and "see screenshot" in page
    assert "images removed" in notice(page)


def test_branch_current_drops_other_branches(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    page = render(runner, session_file, tmp_path, "--branch", "current")
    assert "OTHER-BRANCH" not in page and "MAIN-BRANCH" in page
    assert entry_ids(page) == {"u1", "a1", "r1", "u2", "k1", "m1", "a2"}
    assert notice(page) == "Shared view: current branch only"


def test_leaf_picks_another_path(runner: CliRunner, session_file: Path, tmp_path: Path) -> None:
    page = render(runner, session_file, tmp_path, "--branch", "current", "--leaf", "x2")
    assert "OTHER-BRANCH answer" in page and "MAIN-BRANCH" not in page
    assert entry_ids(page) == {"u1", "a1", "r1", "x1", "x2"}
    assert 'data-leaf="entry-x2"' in page
    assert "branch ending at x2" in notice(page)

    # without --branch current every branch stays, but x2's path is the current one
    session = apply_selection(load_session(session_file), Selection(leaf="x2"))
    assert session.tree.path == ["u1", "a1", "r1", "x1", "x2"]
    assert len(session.entries) == 9


def test_unknown_leaf_is_a_usage_error(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    result = runner.invoke(
        cli, ["render", str(session_file), "-o", str(tmp_path / "p.html"), "--leaf", "nope"]
    )
    assert result.exit_code == 2
    assert "no entry with id 'nope'" in result.output
    assert not (tmp_path / "p.html").exists()
    with pytest.raises(SelectionError):
        apply_selection(load_session(session_file), Selection(leaf="nope"))


def test_only_context_is_what_the_model_saw(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    session = load_session(session_file)
    expected = [e.id for e in context_entries(session)]
    assert expected == ["k1", "r1", "u2", "a2"]
    # the entries are exactly those behind pi's context messages
    messages = build_session_context(session)["messages"]
    assert len(messages) == len(expected)
    assert messages[0]["role"] == "compactionSummary"

    page = render(runner, session_file, tmp_path, "--only-context")
    assert entry_ids(page) == set(expected)
    assert (
        "COMPACTED-SUMMARY" in page and "Fix the build" not in page and "OTHER-BRANCH" not in page
    )
    assert "only what the model saw" in notice(page)
    selected = apply_selection(session, Selection(only_context=True))
    assert selected.tree.path == expected
    assert [dom_id(i) for i in expected] == [dom_id(e.id) for e in selected.entries]


def test_flags_combine_and_the_notice_lists_them(
    runner: CliRunner, session_file: Path, tmp_path: Path
) -> None:
    page = render(
        runner,
        session_file,
        tmp_path,
        "--branch",
        "current",
        "--no-thinking",
        "--no-tool-output",
        "--no-images",
        "--redact",
    )
    assert notice(page) == (
        "Shared view: current branch only · thinking removed · tool output removed · "
        "images removed · secrets redaction on: none found"
    )


def test_markdown_honours_selection(runner: CliRunner, session_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "s.md"
    result = runner.invoke(
        cli,
        [
            "render",
            str(session_file),
            "--format",
            "md",
            "-o",
            str(out),
            "--no-thinking",
            "--no-tool-output",
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "PRIVATE-MUSING" not in text and "TOOL-OUTPUT-LINE" not in text
    assert "make test-everything" in text


def test_site_selection_flags(runner: CliRunner, make_session: MakeSession, tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    make_session(records(), name="root/one.jsonl")
    out = tmp_path / "site"
    result = runner.invoke(
        cli, ["site", str(root), "-o", str(out), "-j", "1", "--no-thinking", "--branch", "current"]
    )
    assert result.exit_code == 0, result.output
    (page,) = out.rglob("one.html")
    text = page.read_text()
    assert "PRIVATE-MUSING" not in text and "OTHER-BRANCH" not in text
    assert notice(text) == "Shared view: current branch only · thinking removed"
    # dropping the flags renders the page again
    again = runner.invoke(cli, ["site", str(root), "-o", str(out), "-j", "1"])
    assert "1 rendered" in again.stderr
    assert "PRIVATE-MUSING" in page.read_text()

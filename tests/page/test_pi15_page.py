"""Pages show everything pi 1.5 writes readably: nothing raw, every new field in its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport import load_session
from piexport.cli import cli
from piexport.page.render import render_session

from tests.support.sessions import DATA, REPO, TESTS

CORPUS = sorted((DATA / "pi15").rglob("*.jsonl"))
EXPECTED = TESTS / "reference" / "pi15" / "expected"


def page(path: Path) -> BeautifulSoup:
    return BeautifulSoup(render_session(load_session(path)), "html.parser")


def named(suffix: str) -> Path:
    return next(p for p in CORPUS if p.stem.endswith(suffix))


def text(node: object) -> str:
    return " ".join(getattr(node, "get_text", lambda *_: "")(" ").split())


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem[-14:])
def test_no_page_shows_a_raw_entry_and_other_fields_hold_only_quiet_ids(path: Path) -> None:
    soup = page(path)
    summaries = [text(s) for s in soup.select("details.raw > summary")]
    assert not [s for s in summaries if "unknown to this version" in s]
    # what pi 1.5 defines has a place on the page; only provider ids are left over
    for fold in soup.select("details.raw"):
        if text(fold.summary) == "Other fields":
            keys = set(json.loads(fold.pre.get_text()))
            assert keys <= {"message.responseId", "message.endTurn"}, (path.name, keys)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem[-14:])
def test_the_system_panel_shows_pis_prompt_and_tools_at_the_leaf(path: Path) -> None:
    golden = EXPECTED / (f"{path.parent.name}__{path.name}.json")
    system = json.loads(golden.read_text())["defaultLeaf"]["system"]
    soup = page(path)
    panel = soup.select_one("#system-prompt")
    if system is None:
        assert panel is None
        return
    assert panel is not None
    tools = [code.get_text() for code in panel.select(".tool-def > summary > code")]
    assert tools == [t["name"] for t in system.get("toolsAdded", [])]
    sections = [code.get_text() for code in panel.select(".prompt-part > summary > code")]
    # (the goldens' keys are sorted; the page keeps pi's order: declared, then patched in)
    assert sorted(sections) == sorted(system.get("sections", {}))
    for body in system.get("sections", {}).values():
        assert body in panel.get_text()


def test_system_messages_read_as_a_prompt_then_updates() -> None:
    soup = page(named("000000000001"))
    roles = [text(r) for r in soup.select("article.system-message .role")]
    assert roles == ["System prompt", "System prompt update", "System prompt update"]
    update = soup.select("article.system-message.update")[0]
    assert "section skills changed" in text(update)
    assert "section guidelines removed" in text(update)
    assert "tools \u2212write +grep" in text(update)
    # the navigator says it too
    rows = [text(r) for r in soup.select("nav .rows .t")]
    assert "[system prompt]" in rows
    assert any(r.startswith("[system update: section skills changed") for r in rows)


def test_per_message_fields_of_pi_15() -> None:
    soup = page(named("000000000001"))
    usage = [text(u) for u in soup.select("article.assistant .usage")]
    assert any("claude-sonnet-4-5 → claude-sonnet-4-5-20250929" in u for u in usage)
    assert any("thinking high" in u for u in usage) and any("thinking low" in u for u in usage)
    assert all("took 1.8 s" in u for u in usage)
    assert "529 overloaded" in text(soup.select_one(".diagnostics-list > summary"))
    assert text(soup.select_one(".tool-result .took")) == "240 ms"


def test_deferred_turns_usage_entries_and_what_totals_include() -> None:
    path = named("000000000004")
    soup = page(path)
    deferred = text(soup.select_one(".stop.deferred"))
    assert "msgbatch_01HJK|row-7" in deferred and "30.0 s" in deferred
    lines = [text(u) for u in soup.select(".usage-entry")]
    assert len(lines) == 3
    assert lines[0].startswith("Cache warming · anthropic/claude-sonnet-4-5 · in 0 · out 0")
    assert any(
        line.startswith("Usage: title_generation") and "session title" in line for line in lines
    )
    # pi's tree leaves usage entries out; the transcript keeps them
    assert not [r for r in soup.select("nav .rows .t") if "[usage" in text(r)]
    note = text(soup.select_one(".figures-note"))
    assert "cache warming $0.0300" in note and "title_generation $0.0001" in note


def test_nested_calls_sit_under_their_call() -> None:
    soup = page(named("000000000003"))
    nested = soup.select_one(".tool-result .nested-calls")
    assert "Nested calls: 3 (incomplete record" in text(nested.summary)
    calls = nested.select("li.nested-call")
    assert [c["class"][1] for c in calls] == ["ok", "error", "unfinished"]
    assert "Arguments not recorded (70.2k bytes)" in text(calls[1])
    assert "cannot access" in text(calls[1])
    assert "Model work done by this tool" in text(soup.select_one(".tool-result .usage"))


def test_compaction_checkpoints_and_summary_usage() -> None:
    soup = page(named("000000000003"))
    first = soup.select("article.compaction")[0]
    assert "System prompt and tools at this point" in text(first)
    assert "Writing this summary · in 48.2k" in text(first)


def test_context_edits_are_marked_where_they_happen_and_on_their_targets() -> None:
    soup = page(named("000000000003"))
    edits = [text(e) for e in soup.select(".inline-marker.context-edit")]
    assert any("no effect: compaction 1 summarised its target" in e for e in edits)
    soup = page(named("000000000002"))
    edits = [text(e) for e in soup.select(".inline-marker.context-edit")]
    assert any("removed from the model's context" in e for e in edits)
    assert any(
        "a later edit of the same entry replaced it" in e or "another branch" in e for e in edits
    )
    shown = [n for n in soup.select(".context-edit-note") if not n.has_attr("hidden")]
    assert [" ".join(n.get_text().split()) for n in shown] == [
        "The model saw an edited version (context edit): I ran ./deploy.sh."
    ]


def test_a_tool_call_whose_arguments_did_not_parse_and_namespaces() -> None:
    soup = page(named("000000000006"))
    assert "The model's arguments were not valid JSON" in text(soup.select_one(".tool .stop.error"))
    assert "builtin" in [text(b) for b in soup.select(".tool-head .badge")]


def test_custom_header_fields_are_shown() -> None:
    soup = page(next(p for p in CORPUS if "nightly" in p.name))
    assert (
        "runner" in text(soup.select_one(".meta")) and "ci-7" in soup.select_one(".meta").get_text()
    )


def test_markdown_output_reads_system_prompts_edits_and_usage(runner: CliRunner) -> None:
    out = runner.invoke(cli, ["render", "--format", "md", str(named("000000000004")), "-o", "-"])
    assert out.exit_code == 0, out.output
    md = out.stdout
    assert "<summary>System prompt</summary>" in md
    assert "System prompt update: section mode changed, tools +grep" in md
    assert "**Deferred**" in md and "Usage (cache\\_warm)" in md
    assert "system message" not in md  # never dumped raw


def test_the_repository_copy_of_the_corpus_is_what_the_goldens_name() -> None:
    for golden in EXPECTED.glob("*.json"):
        assert (REPO / json.loads(golden.read_text())["file"]).exists()


GITHUB = "ghp_" + "Zq8RkT3mW2xY7vB9nC4dF6gH1jK5lP0aS2uE"


def _plant(path: Path, out: Path) -> Path:
    """The pi 1.5 corpus file with a token planted in every field pi 1.5 added."""
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[0]["runner"] = {"note": f"token {GITHUB}"}
    for r in records:
        m = r.get("message") or {}
        if m.get("role") == "system":
            for name in list(m.get("sections") or {}):
                if m["sections"][name] is not None:
                    m["sections"][name] += f"\nexport GITHUB_TOKEN={GITHUB}"
            for tool in m.get("toolsAdded") or []:
                tool["description"] += f" (auth: {GITHUB})"
        if m.get("role") == "assistant":
            m["responseModel"] = f"model-{GITHUB}"
            for d in m.get("diagnostics") or []:
                d["error"]["message"] += f" token={GITHUB}"
        for c in (m.get("nestedCalls") or {}).get("calls", []):
            c["error"] = f"auth failed for {GITHUB}"
            if "arguments" in c:
                c["arguments"]["token"] = GITHUB
        if r["type"] == "usage":
            r["note"] = f"warmed with {GITHUB}"
        if r["type"] == "context_edit" and r.get("replacement"):
            r["replacement"] = {"content": f"the key was {GITHUB}"}
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
@pytest.mark.parametrize("suffix", ["000000000001", "000000000002", "000000000003", "000000000004"])
def test_redaction_covers_every_field_pi_15_added(
    runner: CliRunner, tmp_path: Path, fmt: str, suffix: str
) -> None:
    planted = _plant(named(suffix), tmp_path / "planted.jsonl")
    assert GITHUB in planted.read_text()
    out = tmp_path / f"page.{fmt}"
    result = runner.invoke(
        cli, ["render", "--redact", "--format", fmt, str(planted), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert (
        GITHUB not in out.read_text()
        and "Zq8RkT3mW2xY7vB9nC4dF6gH1jK5lP0aS2uE" not in out.read_text()
    )


def test_only_context_shares_what_the_model_saw_after_context_edits(runner: CliRunner) -> None:
    """The user took their key out of the model's context on one branch: a view of only what
    the model saw there must not bring it back."""
    path = named("000000000002")
    session = load_session(path)
    leaf = next(e.id for e in session.entries if "Tagged v1.4.2" in str(e.message))
    for fmt in ("html", "md"):
        result = runner.invoke(
            cli, ["render", "--only-context", "--leaf", leaf, "--format", fmt, str(path), "-o", "-"]
        )
        assert result.exit_code == 0, result.output
        assert "sk-ant-api03" not in result.stdout
        assert "Deploy please (the key was removed)" in result.stdout
        assert "Deployed. Note that I saw the key" not in result.stdout  # removed from context

"""Same input, same output, on any machine: no clock decides what a page shows.

The only clock left in making a page is the hang guard's (``piexport/deadline.py``), and it
is set far above what ordinary input needs. Here its clock is driven by the test: stopped
(the guard can never fire) or running 50 times fast (a machine 50 times slower, or that
much busier, as the guard sees it). The pages of the bundled samples and of a session full
of real code, Markdown and edits must come out byte for byte the same both ways, with no
colour cache to help either run. No reading of the real clock decides the outcome: the test
fails only if some decision about content reads a clock, or if a guard is so tight that a
50-fold slower machine would reach it on ordinary input.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from piexport import deadline
from piexport.export.pipeline import RenderOptions, export_session
from piexport.page import colourcache, highlight

from tests.support.sessions import REPO

SAMPLES = sorted((REPO / "sample_sessions").rglob("*.jsonl"))
CODE = [
    "piexport/page/render.py",
    "piexport/page/markdown.py",
    "piexport/read/loader.py",
    "README.md",
    "pyproject.toml",
    "static/js/search.js",
    "static/viewer.css",
    "templates/session.html.j2",
    "docs/scaling.md",
]
"""Real files of this repository, read and written in the generated session: Python,
Markdown, TOML, JavaScript, CSS and Jinja, from a few to tens of kilobytes."""


def _entry(i: int, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "id": f"e{i}",
        "parentId": f"e{i - 1}" if i else None,
        "timestamp": f"2025-01-01T00:{i // 60:02d}:{i % 60:02d}.000Z",
        "message": message,
    }


def code_session() -> bytes:
    """A session that reads, edits and writes real files and talks about them in Markdown."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read and tidy these files."}]
    for n, name in enumerate(CODE):
        body = (REPO / name).read_text(encoding="utf-8")
        read = {"type": "toolCall", "id": f"r{n}", "name": "read", "arguments": {"path": name}}
        messages += [
            {"role": "assistant", "content": [read], "stopReason": "toolUse"},
            {
                "role": "toolResult",
                "toolCallId": f"r{n}",
                "toolName": "read",
                "content": [{"type": "text", "text": body}],
                "isError": False,
            },
        ]
        lines = body.splitlines(keepends=True)
        old = "".join(lines[: min(len(lines), 40)])
        edit = {
            "type": "toolCall",
            "id": f"e{n}",
            "name": "edit",
            "arguments": {"path": name, "oldText": old, "newText": old.upper()},
        }
        write = {
            "type": "toolCall",
            "id": f"w{n}",
            "name": "write",
            "arguments": {"path": name + ".new", "content": body.replace("a", "b")},
        }
        excerpt = "".join(lines[:60])
        fence = "python" if name.endswith(".py") else name.rsplit(".", 1)[-1]
        said = f"## {name}\n\nThe start of it, **tidied**:\n\n```{fence}\n{excerpt}```\n"
        for call in (edit, write):
            messages += [
                {"role": "assistant", "content": [call], "stopReason": "toolUse"},
                {
                    "role": "toolResult",
                    "toolCallId": call["id"],
                    "toolName": call["name"],
                    "content": [{"type": "text", "text": "done"}],
                    "isError": False,
                },
            ]
        messages.append({"role": "assistant", "content": [{"type": "text", "text": said}]})
    header = {
        "type": "session",
        "version": 3,
        "id": "code",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/repo",
    }
    entries = [header, *(_entry(i, m) for i, m in enumerate(messages))]
    return b"\n".join(orjson.dumps(e) for e in entries) + b"\n"


@pytest.fixture
def no_colour_cache(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", "off")
    colourcache.reset()
    yield
    monkeypatch.undo()
    colourcache.reset()


def render_all(sources: list[Path], out: Path, workers: int) -> dict[str, bytes]:
    highlight._cache.clear()  # coloured by this run alone, as in a fresh process
    pages: dict[str, bytes] = {}
    with deadline.stops() as stopped:
        for i, source in enumerate(sources):
            page = out / f"{i}.html"
            result = export_session(source, page, RenderOptions(workers=workers))
            assert not any("hang guard" in d.message for d in result.session.diagnostics)
            pages[source.name] = page.read_bytes()
    assert stopped == []
    return pages


@pytest.mark.parametrize("workers", [1, 2], ids=["one-process", "forked-workers"])
def test_pages_are_the_same_when_the_machine_is_50_times_slower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_colour_cache: None, workers: int
) -> None:
    generated = tmp_path / "code.jsonl"
    generated.write_bytes(code_session())
    sources = [*SAMPLES, generated]
    (tmp_path / "never").mkdir()
    (tmp_path / "slow").mkdir()

    monkeypatch.setattr(deadline, "_now", lambda: 0.0)  # the guard's clock stands still
    never = render_all(sources, tmp_path / "never", workers)

    real = time.process_time
    monkeypatch.setattr(deadline, "_now", lambda: 50 * real())  # and now runs 50 times fast
    slow = render_all(sources, tmp_path / "slow", workers)

    assert never.keys() == slow.keys() and len(never) == len(SAMPLES) + 1
    for name, page in never.items():
        assert page == slow[name], name
        # (the notes' markup: markdown.py, read in the generated session, holds their words)
        assert b'<span class="hl-stopped">' not in page
        assert b'<p class="md-stopped">' not in page
    # the generated page does colour its code (the guard had work to watch)
    assert never["code.jsonl"].count(b'<span class="k">') > 100


def test_the_guard_follows_its_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The other half of the proof: a clock running fast does bring the guard's firing
    forward (so the test above did run the guard 50 times fast), and a stopped clock never
    lets it fire, however long the work."""
    if not deadline.can_stop():
        pytest.skip("needs SIGPROF in the main thread")  # pragma: no cover - Linux CI has it
    real = time.process_time
    turns = [0]

    def work() -> str:
        for turns[0] in range(10**9):  # the count is read afterwards
            pass
        return "done"

    monkeypatch.setattr(deadline, "_now", lambda: 1_000_000 * real())
    assert deadline.bounded(100, work) is None  # 100 s of a clock 10^6 fast: 0.1 ms
    assert 0 < turns[0] < 10**9 - 1
    monkeypatch.setattr(deadline, "_now", lambda: 0.0)
    assert deadline.bounded(0.0001, lambda: sum(range(3_000_000))) == sum(range(3_000_000))


def test_a_stop_is_written_on_the_page_and_fails_a_strict_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the guard ever fire (here: a lexer that spins, under a guard of 50 ms), the
    page says so where the block is, the run warns on stderr, and --strict exits 1."""
    from click.testing import CliRunner

    from piexport.cli import cli

    from tests.support.hostile_slow import spin_lexer

    if not deadline.can_stop():
        pytest.skip("needs SIGPROF in the main thread")  # pragma: no cover - Linux CI has it
    monkeypatch.setattr(highlight, "block_seconds", lambda chars: 0.05)
    by_name = highlight.lexer_by_name
    monkeypatch.setattr(
        highlight, "lexer_by_name", lambda name: spin_lexer() if name == "spin" else by_name(name)
    )
    text = "Two blocks:\n\n```spin\nstuck <here>\n```\n\n```python\nx = 1\n```\n"
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": text}]
    header = {"type": "session", "version": 3, "id": "s", "timestamp": "2025-01-01T00:00:00Z"}
    lines = [header, *(_entry(i, m) for i, m in enumerate(messages))]
    source = tmp_path / "s.jsonl"
    source.write_bytes(b"\n".join(orjson.dumps(e) for e in lines) + b"\n")
    out = tmp_path / "s.html"
    result = CliRunner().invoke(cli, ["render", str(source), "-o", str(out), "--strict"])
    assert result.exit_code == 1, result.output
    assert "1 block(s) stopped by the hang guard" in result.stderr
    assert "Spin block of 13 characters: not coloured: the colourer was stopped" in result.stderr
    page = out.read_text()
    assert '<span class="hl-stopped">[not coloured: the colourer was stopped]</span> ' in page
    assert "stuck &lt;here&gt;" in page
    assert '<span class="n">x</span>' not in page  # the rest of the page is not coloured
    result = CliRunner().invoke(cli, ["render", str(source), "-o", str(out)])
    assert result.exit_code == 0 and "stopped by the hang guard" in result.stderr

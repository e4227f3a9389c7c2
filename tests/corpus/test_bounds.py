"""Nothing hangs: hostile shapes for time and memory, the hang guard, and what a killed run
leaves behind.

No test here reads a clock or waits on one to decide: what a page shows is decided by
counted work, so these tests count (the hang guard never fired, every word is there, the
page is linear in its session). Where the hang guard itself is tested, the work it must stop
is a loop far longer than the guard (a guard that failed lets it finish, and the test fails).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport import deadline
from piexport.export import pipeline
from piexport.export.pipeline import export_session
from piexport.output import sweep_stale, write_atomic
from piexport.page import highlight
from piexport.page.highlight import HighlightBudget, colourable, highlight_block, highlight_code
from piexport.page.markdown import MAX_EXPANSION, render_markdown
from piexport.page.view import _compactions
from piexport.read.loader import load_session
from piexport.site.build import build_site

from tests.support.hostile_slow import SPIN, Slow, cases, compactions, spin_lexer


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_hostile_page_is_made_by_counting(case: Slow, tmp_path: Path) -> None:
    """Each shape that once took minutes is now cut short by a counted cap: the hang guard
    never fires (it would say so in a diagnostic and on the page), no diagnostic at all,
    every word is there, and the page is linear in its session."""
    source = tmp_path / "s.jsonl"
    source.write_bytes(case.make())
    out = tmp_path / "s.html"
    with deadline.stops() as stopped:
        result = export_session(source, out)
    assert stopped == [] and result.session.diagnostics == []
    page = out.read_text()
    assert highlight.STOPPED not in page and 'class="plain-entry"' not in page
    for word in case.words:
        assert word in page
    # expansion is linear: no page is more than a small multiple of its session
    assert len(page) < 12 * source.stat().st_size + 500_000


@pytest.mark.parametrize(
    "text",
    [">    " * 14 + "x", "-     " * 14 + "x", "1.   " * 30 + "x", ">" * 30 + " x"],
    ids=["quotes", "dashes", "numbers", "angles"],
)
def test_deep_container_lines_render_at_once(text: str) -> None:
    with deadline.stops() as stopped:
        html = render_markdown(text)  # catastrophic backtracking took hours at 14 levels
    assert "x" in html and stopped == []


def test_long_fence_runs_render_at_once() -> None:
    with deadline.stops() as stopped:
        for text in ["~" * 100_000, "`" * 100_000, "```" + " " * 100_000 + "a b"]:
            render_markdown(text)  # quadratic: about a minute each before
    assert stopped == []


def test_markdown_expansion_is_capped() -> None:
    header = "|" + "|".join(f"h{i}" for i in range(256)) + "|\n|" + "-|" * 256 + "\n"
    text = header + "|a\n" * 256  # markdown-it fills 65,536 empty cells
    html = render_markdown(text)
    assert len(html) <= MAX_EXPANSION * len(text) + 10_000
    assert "h255" in html and "md-fallback" in html  # shown as the text, nothing lost
    refs = "[r]: https://example.com/" + "y" * 50_000 + "\n\n" + "[r] " * 2000
    assert len(render_markdown(refs)) <= MAX_EXPANSION * len(refs) + 10_000


def test_ordinary_tables_still_render() -> None:
    html = render_markdown("| a | b |\n|---|:-:|\n| 1 | 2 |\n| 3 |\n")
    assert "<table>" in html and "align-center" in html


@pytest.mark.parametrize(
    ("lang", "code"),
    [
        ("systemd", "a" + " " * 4000 + "b\n"),  # minutes: cubic in the run of spaces
        ("easytrieve", "\t" * 6000 + "\n"),
        ("cpp", "\n" * 30_000 + "int x;\n"),
        ("gherkin", " \n" * 4000 + "x"),  # blanks in any mix
        ("tnt", "(" * 8000 + "\n"),
    ],
)
def test_superlinear_shapes_are_plain_by_counting(lang: str, code: str) -> None:
    """The shapes bench/lexers.py found slow are long runs: counted, they are shown plain
    without the lexer ever seeing them, on any machine."""
    assert not colourable(code)
    budget = HighlightBudget()
    with deadline.stops() as stopped:
        html = highlight_block(code, lang, budget=budget)
    assert stopped == [] and highlight.STOPPED not in html
    assert code.replace("\t", "") in html.replace("\t", "")  # all of it, as text
    assert budget.chars == 400_000 and budget.left  # not charged: the page colours on


def test_ordinary_runs_are_still_coloured() -> None:
    code = "x = 1" + " " * (highlight.MAX_BLANK_RUN - 1) + "# aligned\n" + "#" * 200 + "\n"
    assert colourable(code)
    assert '<span class="n">x</span>' in highlight_block(code, "python")


def test_the_hang_guard_is_written_on_the_page_and_stops_the_page_colouring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A lexer gone superlinear on a shape no cap knows: the guard stops it, the block says
    so where it is, the stop is recorded for the run's warnings, and the rest of the page
    is plain (a hostile page pays for one stopped block, not one per block)."""
    if not deadline.can_stop():
        pytest.skip("needs SIGPROF in the main thread")  # pragma: no cover - Linux CI has it
    monkeypatch.setattr(highlight, "block_seconds", lambda chars: 0.05)
    budget = HighlightBudget()
    with deadline.stops() as stopped:
        html = highlight_code("spun <x>", spin_lexer(), budget)
        after = highlight_block("x = 1", "python", budget=budget)
    assert html.startswith('<span class="hl-stopped">[' + highlight.STOPPED + "]</span> ")
    assert html.endswith("spun &lt;x&gt;")
    assert len(stopped) == 1 and highlight.STOPPED in stopped[0] and "Spin" in stopped[0]
    assert not budget.left and '<span class="n">' not in after


def test_the_hang_guard_works_off_the_main_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """No signal reaches a thread: there a block is coloured in a child process, which
    bounds it by its own CPU time."""
    monkeypatch.setattr(highlight, "block_seconds", lambda chars: 0.05)
    found: list[Any] = []

    def work() -> None:
        with deadline.stops() as stopped:
            found.append(highlight_code("spun", spin_lexer()))
            found.append(highlight_block("x = 1", "python"))
        found.append(stopped)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()
    stopped_html, ok, stopped = found
    assert stopped_html.startswith('<span class="hl-stopped">') and "spun" in stopped_html
    assert '<span class="n">x</span>' in ok  # ordinary blocks are still coloured
    assert len(stopped) == 1


def spin() -> str:
    """Work: CPU, as a backtracking regex spends it, for far longer than any limit here."""
    for _ in range(SPIN):
        pass
    return "spun"


def test_limits_nest_and_the_outer_one_wins() -> None:
    if not deadline.can_stop():
        pytest.skip("needs SIGPROF in the main thread")  # pragma: no cover - Linux CI has it
    # an inner bound that runs out is the inner block's business
    assert deadline.bounded(0.05, spin) is None
    # an outer limit that runs out inside an inner one is raised to its owner
    with pytest.raises(deadline.DeadlineExceeded), deadline.cpu_limit(0.05):
        deadline.bounded(1000, spin)
    # nothing is left armed afterwards
    assert deadline._cpu_ends == []
    assert deadline.bounded(1000, lambda: "done") == "done"


def test_a_block_is_bounded_by_its_work_not_by_waiting(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block's bound counts the CPU the process spends (a clock the test drives here), not
    the time it waits: on a busy machine an ordinary block waits longer, and is not cut."""
    clock = [100.0]
    monkeypatch.setattr(deadline, "_now", lambda: clock[0])
    with deadline.cpu_limit(1000):
        end = deadline._cpu_ends[-1]
        with deadline.cpu_limit(2000):
            assert deadline._cpu_ends[-1] == end == 1100  # the outer end is kept
        clock[0] += 999
        assert not deadline.outer_expired()
        clock[0] += 1
        assert deadline.outer_expired()
        clock[0] = 100.0


def test_garbage_collection_is_not_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full collection of a big heap can take a second whatever block is running: it
    moves every limit by the time it took (on a clock the test drives)."""
    clock = [50.0]
    monkeypatch.setattr(deadline, "_now", lambda: clock[0])
    with deadline.cpu_limit(1000), deadline.cpu_limit(500):
        assert deadline._cpu_ends == [1050, 550]
        deadline._on_gc("start", {})
        clock[0] += 30  # 30 s in the collector
        deadline._on_gc("stop", {})
        assert deadline._cpu_ends == [1080, 580]
        clock[0] = 50.0
    deadline._on_gc("start", {})  # no limit in force: nothing moves, nothing is kept
    assert deadline._gc_began == 0.0


def test_the_signal_never_interrupts_the_collector() -> None:
    """The alarm never goes off inside a gc callback (where the exception would be lost,
    as it was inside Hypothesis's): it waits for the next tick, and then stops the work."""
    import gc

    if not deadline.can_stop():
        pytest.skip("needs SIGPROF in the main thread")  # pragma: no cover - Linux CI has it
    ran: list[int] = []

    def busy_collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and not ran:
            ran.append(1)
            for _ in range(3_000_000):  # work in the collector, past the limit's end
                pass

    gc.callbacks.append(busy_collector)
    try:
        assert deadline.bounded(0.01, lambda: (gc.collect(), spin())) is None
    finally:
        gc.callbacks.remove(busy_collector)
    assert ran == [1]


def _spinning_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make a page's view take far longer than the page's guard (CPU, as a hang would)."""
    build = pipeline.build_view

    def slow(*args: Any, **kwargs: Any) -> Any:
        spin()
        return build(*args, **kwargs)

    monkeypatch.setattr(pipeline, "build_view", slow)


def test_a_page_that_takes_too_long_is_written_plain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _spinning_view(monkeypatch)
    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(300))
    out = tmp_path / "s.html"
    result = export_session(source, out, seconds=0.05)
    page = out.read_text()
    assert "shown as plain text" in page
    assert page.count('class="plain-entry"') == 301  # every entry, none dropped
    assert "summary 299" in page
    assert any("written as plain text" in d.message for d in result.session.diagnostics)


def test_a_page_stopped_midway_leaves_no_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers forked for a big page are ended when the page is stopped, not when the
    garbage collector reaches them: left alive they hold copies of the parent's pipes (a
    test run hung at exit on the browser driver's), and the GC stays frozen."""
    import gc
    import multiprocessing

    from piexport.export.pipeline import RenderOptions

    write = pipeline._write
    calls: list[int] = []

    def stalled(out: Path, parts: Any, gate: Any, session: Any) -> None:
        calls.append(1)
        if len(calls) == 1:  # the page: its workers are forked, then it hangs
            next(parts), next(parts)
            spin()
        write(out, parts, gate, session)

    monkeypatch.setattr(pipeline, "_write", stalled)
    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(2000))
    options = RenderOptions(workers=2, group_entries=50)
    export_session(source, tmp_path / "s.html", options, seconds=0.3)
    assert "shown as plain text" in (tmp_path / "s.html").read_text()
    forked = [p for p in multiprocessing.active_children() if "Spawn" not in p.name]
    assert forked == []  # (the spawned colouring child of the thread test may live on)
    assert gc.get_freeze_count() == 0


def test_a_stream_stopped_midway_is_closed_at_once(tmp_path: Path) -> None:
    closed: list[bool] = []

    def parts():  # type: ignore[no-untyped-def]
        try:
            yield "<p>"
            yield 42  # not text: writing it fails while the stream is suspended
            yield "never"
        finally:
            closed.append(True)

    with pytest.raises(TypeError) as info:
        write_atomic(tmp_path / "p.html", parts())
    assert closed == [True], info  # not left for the garbage collector
    assert not (tmp_path / "p.html").exists()
    assert not list(tmp_path.glob(".p.html.*.tmp"))


def test_a_site_goes_on_past_a_slow_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _spinning_view(monkeypatch)
    root = tmp_path / "sessions" / "--c--"
    root.mkdir(parents=True)
    (root / "2025-01-01T00-00-00-000Z_a.jsonl").write_bytes(compactions(200))
    report = build_site(tmp_path / "sessions", tmp_path / "site", jobs=1, page_seconds=0.05)
    assert not report.failed
    pages = list((tmp_path / "site").rglob("2025-*.html"))
    assert len(pages) == 1 and "shown as plain text" in pages[0].read_text()
    assert any("plain text" in w for w in report.warnings)


def test_temporary_files_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, check=True
    )
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".page.html.{dead_pid}.abcd1234.tmp"
    stale.write_text("half a page")
    alive = tmp_path / f".page.html.{os.getppid()}.efgh5678.tmp"  # a run still writing
    alive.write_text("being written")
    unrelated = tmp_path / ".hidden.tmp"
    unrelated.write_text("not ours, and new")
    write_atomic(tmp_path / "page.html", "<p>whole</p>")
    assert not stale.exists()
    assert alive.exists() and unrelated.exists()
    assert sweep_stale(tmp_path) == 0  # once per folder and process


STALL_MID_WRITE = """
import sys
from piexport.cli import main
from piexport.export import pipeline

write = pipeline._write

def stalled(out, parts, gate, session):
    def first_then_wait():
        yield next(parts)
        print("writing", flush=True)
        sys.stdin.read()  # until killed
        yield from parts
    write(out, first_then_wait(), gate, session)

pipeline._write = stalled
sys.argv = ["piexport", *sys.argv[1:]]
main()
"""


def test_a_killed_render_leaves_no_page_and_the_next_run_cleans_up(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(200))
    out = tmp_path / "s.html"
    proc = subprocess.Popen(
        [sys.executable, "-c", STALL_MID_WRITE, "render", str(source), "-o", str(out), "-j", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    # the run says when it is mid-write (its temporary file begun), then waits to be killed
    assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
    assert list(tmp_path.glob(".s.html.*.tmp")), "the run never started writing"
    proc.kill()
    proc.communicate()
    assert not out.exists()
    export_session(source, out)
    assert out.exists()
    assert not list(tmp_path.glob(".s.html.*.tmp"))


def _reference_compactions(session):  # type: ignore[no-untyped-def]
    """The old, quadratic bookkeeping, kept as an oracle."""
    tree = session.tree
    numbers = {}
    for e in session.entries:
        if e.type == "compaction":
            numbers[e.id] = len(numbers) + 1
    on_path = set(tree.path)
    out: dict[str, str] = {}
    dimmed: set[str] = set()
    position = {eid: i for i, eid in enumerate(tree.path)}
    first_at: dict[str, int] = {}
    for i, eid in enumerate(tree.path):
        raw_id = session.by_id[eid].raw.get("id")
        if isinstance(raw_id, str):
            first_at.setdefault(raw_id, i)
    for cid in sorted(numbers, key=lambda c: c not in on_path):
        first = session.by_id[cid].raw.get("firstKeptEntryId")
        if cid in position and isinstance(first, str):
            end = position[cid]
            path = tree.path[:end]
            stop = min(first_at.get(first, end), end)
        else:
            path = tree.path_to(cid)[:-1]
            stop = next(
                (j for j, pid in enumerate(path) if session.by_id[pid].raw.get("id") == first),
                len(path),
            )
        for pid in path[:stop]:
            out.setdefault(pid, cid)
            if cid in on_path:
                dimmed.add(pid)
    return out, dimmed, numbers


@settings(max_examples=300, deadline=None)
@given(
    spec=st.lists(
        st.tuples(
            st.booleans(),  # a compaction?
            st.integers(0, 30),  # parent: that many entries back (0: a root)
            st.integers(0, 45),  # firstKeptEntryId: an entry's id, none, or a missing id
        ),
        min_size=1,
        max_size=40,
    )
)
def test_compaction_bookkeeping_matches_the_simple_walk(spec, tmp_path_factory) -> None:  # type: ignore[no-untyped-def]
    import orjson

    lines = [
        b'{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00Z","cwd":"/"}'
    ]
    for i, (is_compaction, back, first) in enumerate(spec):
        parent = f"e{i - back}" if back and i - back >= 0 else None
        entry: dict[str, object] = {"parentId": parent, "timestamp": "2025-01-01T00:00:01Z"}
        if i % 7 != 3:  # some entries have no id (pi matches a missing firstKeptEntryId)
            entry["id"] = f"e{i}"
        if is_compaction:
            entry |= {"type": "compaction", "summary": "s", "tokensBefore": 1}
            if first < 41:
                entry["firstKeptEntryId"] = f"e{first}"
            elif first < 43:
                entry["firstKeptEntryId"] = None
        else:
            entry |= {"type": "message", "message": {"role": "user", "content": "x"}}
        lines.append(orjson.dumps(entry))
    path = tmp_path_factory.mktemp("c") / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    session = load_session(path)
    assert _compactions(session) == _reference_compactions(session)

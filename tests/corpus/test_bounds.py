"""Nothing hangs: hostile shapes for time and memory, hard limits, and what a killed run
leaves behind.

The guards here are wall-clock limits far above what the code needs (seconds against a
limit of minutes) and far below what the old code took (hours, or for ever): they catch a
hang, they are not speed targets (those live in bench/).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from piexport import deadline
from piexport.export.pipeline import export_session
from piexport.output import sweep_stale, write_atomic
from piexport.page.highlight import HighlightBudget, block_seconds, highlight_block
from piexport.page.markdown import MAX_EXPANSION, render_markdown
from piexport.page.view import _compactions
from piexport.read.loader import load_session
from piexport.site.build import build_site

from tests.support.hostile_slow import Slow, cases, compactions

GUARD = 120
"""Seconds a hostile page may take here before the test calls it a hang (they take 0.3-6 s)."""


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_hostile_page_is_made_in_bounded_time(case: Slow, tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(case.make())
    out = tmp_path / "s.html"
    proc = subprocess.run(
        [sys.executable, "-m", "piexport", "render", str(source), "-o", str(out)],
        capture_output=True,
        timeout=GUARD,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    page = out.read_text()
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
    html = render_markdown(text)  # catastrophic backtracking took hours at 14 levels
    assert "x" in html


def test_long_fence_runs_render_at_once() -> None:
    for text in ["~" * 100_000, "`" * 100_000, "```" + " " * 100_000 + "a b"]:
        render_markdown(text)  # quadratic: about a minute each before


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


def test_superlinear_lexer_is_stopped_mid_block() -> None:
    """systemd's lexer needs minutes for 4,000 spaces: the block comes out plain, in time.
    The time is this process's CPU time, which the block's bound counts: a busy machine
    makes the block wait longer, not work longer (5.9 s of wall time on a loaded machine)."""
    code = "a" + " " * 4000 + "b"
    budget = HighlightBudget()
    start = time.process_time()
    html = highlight_block(code, "systemd", budget=budget)
    took = time.process_time() - start
    assert took < block_seconds(len(code)) + 5
    assert "a" + " " * 4000 + "b" in html  # plain text, all of it
    assert budget.seconds < 6.0  # the time was charged to the page


def test_superlinear_lexer_is_stopped_off_the_main_thread() -> None:
    """No signal reaches a thread: there the block is coloured in a child that is killed."""
    found: list[str] = []
    worker = threading.Thread(
        target=lambda: found.append(highlight_block("a" + " " * 4000 + "b", "systemd"))
    )
    worker.start()
    worker.join(GUARD)
    assert not worker.is_alive()
    assert "a" + " " * 4000 + "b" in found[0]
    ok: list[str] = []
    worker = threading.Thread(target=lambda: ok.append(highlight_block("x = 1", "python")))
    worker.start()
    worker.join(GUARD)
    assert '<span class="n">x</span>' in ok[0]  # ordinary blocks are still coloured


def spin(seconds: float) -> str:
    """Work: CPU time, as a backtracking regex spends it."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "spun"


def test_limits_nest_and_the_outer_one_wins() -> None:
    if not deadline.can_stop():
        pytest.skip("needs SIGALRM in the main thread")  # pragma: no cover - Linux CI has it
    # an inner bound that runs out is the inner block's business
    assert deadline.bounded(0.05, spin, 5) is None
    # an outer limit that runs out inside an inner one is raised to its owner
    with pytest.raises(deadline.DeadlineExceeded), deadline.limit(0.05):
        deadline.bounded(10, time.sleep, 5)
    with pytest.raises(deadline.DeadlineExceeded), deadline.cpu_limit(0.05):
        deadline.bounded(10, spin, 5)
    # nothing is left armed afterwards
    time.sleep(0.1)
    spin(0.1)
    assert deadline.bounded(1, lambda: "done") == "done"


def test_a_block_is_bounded_by_its_work_not_by_waiting() -> None:
    """A block's bound counts the CPU the process spends, not the time it waits: on a machine
    busy with other work an ordinary block waits longer, and must not be cut short for it
    (its page would then differ from the one an idle machine makes)."""
    if not deadline.can_stop():
        pytest.skip("needs SIGALRM in the main thread")  # pragma: no cover - Linux CI has it
    assert deadline.bounded(0.05, lambda: time.sleep(0.3) or "waited") == "waited"
    assert deadline.bounded(0.05, spin, 2) is None


def test_garbage_collection_is_not_the_work() -> None:
    """A full collection of a big heap can take a second whatever block is running: it
    moves every limit, and the alarm never goes off inside a gc callback (where the
    exception would be lost, as it was inside Hypothesis's)."""
    import gc

    if not deadline.can_stop():
        pytest.skip("needs SIGALRM in the main thread")  # pragma: no cover - Linux CI has it

    def slow_collector(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            time.sleep(0.3)

    gc.callbacks.append(slow_collector)
    try:
        with deadline.limit(0.2):
            gc.collect()  # 0.3 s in the collector
            time.sleep(0.1)  # 0.1 s of work of the 0.2 s allowed
    finally:
        gc.callbacks.remove(slow_collector)
    with pytest.raises(deadline.DeadlineExceeded), deadline.limit(0.1):
        time.sleep(2)  # work past its limit is still stopped


def test_a_page_that_takes_too_long_is_written_plain(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(3000))
    out = tmp_path / "s.html"
    result = export_session(source, out, seconds=0.05)
    page = out.read_text()
    assert "shown as plain text" in page
    assert page.count('class="plain-entry"') == 3001  # every entry, none dropped
    assert "summary 2999" in page
    assert any("written as plain text" in d.message for d in result.session.diagnostics)


def test_a_page_stopped_midway_leaves_no_workers(tmp_path: Path) -> None:
    """Workers forked for a big page are ended when the page is stopped, not when the
    garbage collector reaches them: left alive they hold copies of the parent's pipes (a
    test run hung at exit on the browser driver's), and the GC stays frozen."""
    import gc
    import multiprocessing

    from piexport.export.pipeline import RenderOptions

    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(20_000))
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


def test_a_site_goes_on_past_a_slow_page(tmp_path: Path) -> None:
    root = tmp_path / "sessions" / "--c--"
    root.mkdir(parents=True)
    (root / "2025-01-01T00-00-00-000Z_a.jsonl").write_bytes(compactions(2000))
    report = build_site(tmp_path / "sessions", tmp_path / "site", jobs=1, page_seconds=0.01)
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


def test_a_killed_render_leaves_no_page_and_the_next_run_cleans_up(tmp_path: Path) -> None:
    source = tmp_path / "s.jsonl"
    source.write_bytes(compactions(20_000))
    out = tmp_path / "s.html"
    proc = subprocess.Popen(
        [sys.executable, "-m", "piexport", "render", str(source), "-o", str(out), "-j", "1"]
    )
    # wait for the temporary file to appear, then kill the run mid-write
    deadline_at = time.monotonic() + GUARD
    while not list(tmp_path.glob(".s.html.*.tmp")) and time.monotonic() < deadline_at:
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    assert list(tmp_path.glob(".s.html.*.tmp")), "the run never started writing"
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

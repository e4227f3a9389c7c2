"""A big page rendered by several processes is byte for byte the page one process makes,
also when the page's text and image budgets run out part way."""

from __future__ import annotations

import importlib.util
import multiprocessing
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import piexport.page.parallel
import piexport.page.render
from piexport import load_session
from piexport.page.render import RenderOptions, render_session

from tests.support.sessions import REPO, sample_files


def _bench_session(entries: int) -> bytes:
    """The benchmark's generator: every tool, ANSI output, branches, compactions, images."""
    spec = importlib.util.spec_from_file_location("make_sessions", REPO / "bench/make_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data: bytes = module.make_session(entries, seed=7)
    return data


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("parallel") / "big.jsonl"
    path.write_bytes(_bench_session(1500))  # 75 groups: past MIN_GROUPS three times over
    return path


@pytest.fixture
def forks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the pools the page's process starts (the test must not pass by staying
    sequential)."""
    started: list[int] = []
    real = multiprocessing.get_context

    def spy(method: str | None = None) -> Any:
        started.append(1)
        return real(method)

    monkeypatch.setattr(multiprocessing, "get_context", spy)
    return started


def _pages(path: Path, **options: Any) -> tuple[str, str]:
    session = load_session(path)
    one = render_session(session, RenderOptions(workers=1, **options))
    two = render_session(session, RenderOptions(workers=2, **options))
    return one, two


@pytest.mark.parametrize("highlight_chars", [0, 60_000])
def test_two_processes_make_the_page_one_makes(
    big: Path, forks: list[int], highlight_chars: int
) -> None:
    one, two = _pages(big, highlight_chars=highlight_chars)
    assert forks, "the page was not rendered in parallel"
    assert one == two
    assert one.count('data-entry-id="') > 1400
    if highlight_chars:
        assert '<span class="k">def</span>' in one  # the first reads are coloured


def test_budgets_that_run_out_midway_cut_at_the_same_place(
    big: Path, forks: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(piexport.page.render, "MAX_PAGE_TEXT_CHARS", 1_500_000)
    monkeypatch.setattr(piexport.page.render, "MAX_PAGE_IMAGE_BYTES", 150)  # one 99-byte image
    one, two = _pages(big, highlight_chars=20_000)
    assert len(forks) >= 2, "running out of budget forks again from the page's state"
    assert "more characters are not shown on this page" in one
    assert "image budget is used up" in one
    assert '<img class="attached"' in one  # the first image still fits
    assert one == two


def test_small_pages_stay_in_one_process(forks: list[int], tmp_path: Path) -> None:
    path = tmp_path / "small.jsonl"
    path.write_bytes(_bench_session(200))
    render_session(load_session(path), RenderOptions(workers=2))
    assert not forks


def test_a_page_does_not_depend_on_what_the_process_rendered_before(big: Path) -> None:
    """The highlight cache saves work across pages, never budget: a site's worker renders
    the same page whatever it rendered first."""
    from piexport.page import highlight

    session = load_session(big)
    options = RenderOptions(workers=1, highlight_chars=30_000)
    highlight._cache.clear()
    fresh = render_session(session, options)
    assert highlight._cache  # the second page finds its blocks coloured already
    assert render_session(session, options) == fresh


def test_a_small_page_does_not_import_multiprocessing(tmp_path: Path) -> None:
    """A page too small for worker processes does not pay for importing them."""
    sample = next(p for p in sample_files() if "01955f7c" in p.name)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from piexport.export.pipeline import export_session\n"
        f"export_session(Path({str(sample)!r}), Path({str(tmp_path / 'p.html')!r}))\n"
        "print('multiprocessing' in sys.modules, 'jinja2' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]

"""Interrupted builds keep their work: Ctrl+C ends a build with one line and exit 130 (no
traceback, from the workers either), the pages written are kept and recorded so the next run
renders only what is missing, and the site on disk stays consistent (a previous site stays
whole; no index links a page that is not there).

Ctrl+C comes at a counted point: ``PIEXPORT_TEST_INTERRUPT_AFTER=N`` sends SIGINT to the
build's worker processes and to itself once N pages are rendered (never after some time)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.site.build import INTERRUPT_AFTER
from piexport.site.manifest import MANIFEST

from tests.support.sessions import SAMPLES
from tests.support.sitelinks import local_links

SESSIONS = 9
AFTER = 3


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def _site(
    archive: Path, out: Path, jobs: int, after: int | None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != INTERRUPT_AFTER}
    if after is not None:
        env[INTERRUPT_AFTER] = str(after)
    argv = [sys.executable, "-m", "piexport", "site", str(archive), "-o", str(out)]
    return subprocess.run(
        [*argv, "-j", str(jobs)], capture_output=True, text=True, env=env, check=False
    )


def _recorded(out: Path) -> dict[str, str]:
    data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    return {r["source"]: r["page"] for r in data["sessions"]}


def _counts(stderr: str) -> tuple[int, int]:
    found = re.search(r"(\d+) rendered, (\d+) unchanged", stderr)
    assert found, stderr
    return int(found.group(1)), int(found.group(2))


def _whole(out: Path) -> None:
    for page in out.rglob("*.html"):
        for target in local_links(page):
            assert target.is_file(), f"{page} links to missing {target}"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_first_build_interrupted_keeps_its_pages_and_resumes(
    archive: Path, tmp_path: Path, jobs: int
) -> None:
    out = tmp_path / "site"
    stopped = _site(archive, out, jobs, AFTER)
    assert stopped.returncode == 130, stopped.stderr
    lines = stopped.stderr.strip().splitlines()
    assert len(lines) == 1, stopped.stderr  # one line: no traceback, from any process
    assert lines[0].startswith(f"piexport: interrupted: {AFTER} page(s) written this run")
    assert "Traceback" not in stopped.stderr and "KeyboardInterrupt" not in stopped.stderr
    recorded = _recorded(out)
    assert len(recorded) == AFTER  # the pages written, recorded; nothing else claimed
    assert all((out / page).is_file() for page in recorded.values())
    assert not (out / "index.html").exists()  # no index of a site not yet built
    resumed = _site(archive, out, jobs, None)
    assert resumed.returncode == 0, resumed.stderr
    assert _counts(resumed.stderr) == (SESSIONS - AFTER, AFTER)  # only what was missing
    assert len(_recorded(out)) == SESSIONS
    _whole(out)


def test_an_interrupted_rebuild_leaves_the_previous_site_whole(
    archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    assert _site(archive, out, 2, None).returncode == 0
    index = (out / "index.html").read_bytes()
    for path in archive.rglob("*.jsonl"):  # every session changed: every page is made again
        with path.open("a", encoding="utf-8") as f:
            f.write("\n")
    stopped = _site(archive, out, 2, AFTER)
    assert stopped.returncode == 130 and len(stopped.stderr.strip().splitlines()) == 1
    assert (out / "index.html").read_bytes() == index  # the previous indexes, untouched
    assert len(_recorded(out)) == SESSIONS
    _whole(out)
    resumed = _site(archive, out, 2, None)
    assert _counts(resumed.stderr) == (SESSIONS - AFTER, AFTER)
    _whole(out)


def test_ctrl_c_in_any_command_is_one_line_and_exit_130(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import piexport.export.outputs as outputs

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs, "export_output", interrupted)
    session = next(SAMPLES.glob("*/*.jsonl"))
    result = CliRunner().invoke(cli, ["render", str(session), "-o", str(tmp_path / "p.html")])
    assert result.exit_code == 130
    assert result.stderr == "piexport: interrupted\n"


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc")
def test_page_workers_leave_ctrl_c_to_the_build(tmp_path: Path) -> None:
    """Each worker process ignores SIGINT (the build ends them), read from the kernel's
    view of each live worker: without this, a Ctrl+C printed a worker's traceback."""
    import multiprocessing
    import signal

    from piexport.page.render import RenderOptions
    from piexport.site import build

    sources = sorted(SAMPLES.glob("*/*.jsonl"))[:3]
    todo = [
        build._Job(s.name, s, tmp_path / f"{i}.html", None, (), RenderOptions())
        for i, s in enumerate(sources)
    ]
    before = {p.pid for p in multiprocessing.active_children()}  # other tests' leftovers
    results = build._run(todo, 2)
    assert next(results).error is None  # the pool is up, its workers alive
    workers = [p for p in multiprocessing.active_children() if p.pid not in before]
    assert workers
    for worker in workers:
        # ignored once its initializer ran; blocked from its birth until then (a worker the
        # pool forked a moment ago may not have run it yet): either way no Ctrl+C reaches it
        status = Path(f"/proc/{worker.pid}/status").read_text(encoding="utf-8")
        held = 0
        for field in ("SigIgn", "SigBlk"):
            found = re.search(rf"^{field}:\s*([0-9a-f]+)$", status, re.MULTILINE)
            assert found is not None, status
            held |= int(found.group(1), 16)
        assert held & (1 << (signal.SIGINT - 1)), worker
    assert [r.error for r in results] == [None, None]


def test_ctrl_c_after_the_indexes_leaves_every_link_whole(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of deleted sessions are removed only once the new indexes no longer link
    them: a build stopped between the two leaves both kinds of index whole, and the
    manifest still names the page to remove, so the next run removes it."""
    from piexport.site import build

    out = tmp_path / "site"
    build.build_site(archive, out, jobs=1)
    gone = next(archive.rglob("*0196ec1e*.jsonl"))
    gone.unlink()

    def ctrl_c(pages: list[Path]) -> None:
        assert len(pages) == 1 and pages[0].is_file()
        raise KeyboardInterrupt

    with monkeypatch.context() as patched:
        patched.setattr(build, "_remove", ctrl_c)
        with pytest.raises(build.SiteInterrupted):
            build.build_site(archive, out, jobs=1)
    _whole(out)
    assert any("0196ec1e" in page for page in _recorded(out).values())
    again = build.build_site(archive, out, jobs=1)
    assert again.removed == 1 and again.rendered == 0
    assert not any("0196ec1e" in page for page in _recorded(out).values())
    assert not list(out.rglob("*0196ec1e*.html"))
    _whole(out)


def _sigint_ignored(_index: object = None) -> bool:
    """Whether this process ignores SIGINT, as the kernel sees it."""
    import signal

    status = Path("/proc/self/status").read_text(encoding="utf-8")
    found = re.search(r"^SigIgn:\s*([0-9a-f]+)$", status, re.MULTILINE)
    assert found is not None, status
    return bool(int(found.group(1), 16) & (1 << (signal.SIGINT - 1)))


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc")
def test_forked_workers_leave_ctrl_c_to_their_parent() -> None:
    """The gate's slices (``forked_map``) and a big page's groups (``render_groups``) are
    made in forked workers too: each ignores SIGINT, the parent does not."""
    import os

    from piexport.page.highlight import HighlightBudget
    from piexport.page.parallel import MIN_GROUPS, PageBudgets, render_groups
    from piexport.workers import forked_map

    parent = os.getpid()
    assert not _sigint_ignored()
    assert (
        forked_map(lambda i: (os.getpid() != parent, _sigint_ignored()), 4, 2) == [(True, True)] * 4
    )

    def render(_group: object) -> str:
        return f"{os.getpid() != parent}:{_sigint_ignored()}"

    budgets = PageBudgets(HighlightBudget(chars=0), text_left=10**9, images_left=10**9)
    made = list(render_groups(list(range(MIN_GROUPS + 6)), render, budgets, workers=2))
    from_workers = [m for m in made[1:] if m.startswith("True")]
    assert from_workers and all(m == "True:True" for m in from_workers)
    assert not _sigint_ignored()

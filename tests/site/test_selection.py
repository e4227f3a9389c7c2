"""A build deletes only what it made for the same selection: ``--project``, ``--since`` and
``--until`` never remove the pages of sessions outside them, and the indexes stay whole."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from piexport.site.build import build_site
from piexport.site.manifest import MANIFEST

from tests.support.sessions import SAMPLES
from tests.support.sitelinks import local_links


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root, ignore=shutil.ignore_patterns("*.md"))
    return root


def _pages(out: Path) -> set[str]:
    return {p.relative_to(out).as_posix() for p in out.rglob("*.html")}


def _whole(out: Path) -> None:
    """Every local link of every page of the site resolves."""
    for page in out.rglob("*.html"):
        for target in local_links(page):
            assert target.is_file(), f"{page} links to missing {target}"


def _listed(out: Path) -> set[str]:
    data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    return {r["page"] for r in data["sessions"]}


def test_a_filtered_build_keeps_every_other_project(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    full = build_site(archive, out, jobs=1)
    assert full.sessions == 9
    before = _pages(out)
    assert len(before) == 15
    report = build_site(archive, out, jobs=1, project="/home/alice/*")
    assert report.removed == 0 and report.outside == 6 and report.rendered == 0
    assert _pages(out) == before  # 15 before, 15 after (it was 7)
    assert len(_listed(out)) == 9
    root_index = (out / "index.html").read_text(encoding="utf-8")
    assert "/home/bob/projects/data pipeline" in root_index  # still listed
    _whole(out)


def test_a_filtered_build_removes_only_its_own_deleted_sessions(
    archive: Path, tmp_path: Path
) -> None:
    out = tmp_path / "site"
    build_site(archive, out, jobs=1)
    mine = next((archive / "--home-alice-src-piexport-demo--").glob("*.jsonl"))
    theirs = next((archive / "--srv-ci-build-bot--").glob("*.jsonl"))
    pages = {p.name: p for p in out.rglob("*.html")}
    mine_page = next(p for n, p in pages.items() if mine.stem[:19] in n)
    theirs_page = next(p for n, p in pages.items() if theirs.stem[:19] in n)
    mine.unlink()
    theirs.unlink()
    report = build_site(archive, out, jobs=1, project="*piexport-demo*")
    assert report.removed == 1
    assert not mine_page.exists()  # in the selection, its file gone: removed
    assert theirs_page.exists()  # outside it: kept, for a build that chooses it
    _whole(out)
    # an unfiltered build then removes the other one too, and no index links it
    report = build_site(archive, out, jobs=1)
    assert report.removed == 1 and not theirs_page.exists()
    _whole(out)


def test_since_and_until_keep_what_they_leave_out(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(archive, out, jobs=1)
    before = _pages(out)
    report = build_site(archive, out, jobs=1, until="2024-12-31")  # 2 of 9 started by then
    assert report.removed == 0 and report.outside == 7
    assert _pages(out) == before
    old = next(archive.rglob("*0196ec1e*.jsonl"))
    os.utime(old, (1_577_836_800, 1_577_836_800))  # 2020: before --since
    report = build_site(archive, out, jobs=1, since="2021-01-01")
    assert report.removed == 0 and report.outside == 1
    assert _pages(out) == before
    _whole(out)


def test_outside_pages_made_with_other_options_stay_but_are_not_listed(
    archive: Path, tmp_path: Path
) -> None:
    """Pages of another build's options (here: no search) are not this build's to list
    (their rows were made otherwise) nor to delete; no index links a page that is gone."""
    out = tmp_path / "site"
    build_site(archive, out, jobs=1, search=False)
    before = _pages(out)
    report = build_site(archive, out, jobs=1, project="/home/alice/*")
    assert report.removed == 0 and report.outside == 6
    assert before <= _pages(out)
    assert len(_listed(out)) == 9  # the manifest still knows them
    _whole(out)

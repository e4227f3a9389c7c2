"""Issue 38, item 3: every error count of a session is the same number, from one definition
(``report.stats.failure``): the index and project rows, the header, the branch cards, the
summary, the tree's marks and the entries the errors-only view shows (its count in the
browser: tests/browser/test_reader_errors.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.cli import cli
from piexport.page.render import render_session
from piexport.read.loader import load_session
from piexport.report.branches import list_branches
from piexport.site.build import build_site

from tests.support.errors_session import (
    FILE_ERRORS,
    OTHER_BRANCH_ERRORS,
    PATH_ERRORS,
    errors_session,
)


def _errors_cell(index: Path) -> str:
    table = BeautifulSoup(index.read_text(), "html.parser").select_one("table.sessions")
    assert table is not None, index
    heads = [th.get_text(strip=True) for th in table.select("thead th")]
    row = table.select("tbody tr")[0].find_all("td")
    return str(row[heads.index("Errors")].get_text(strip=True))


def test_every_place_counts_the_same_errors(tmp_path: Path) -> None:
    path = errors_session(tmp_path / "root" / "p")

    data = json.loads(CliRunner().invoke(cli, ["summary", str(path), "--format", "json"]).stdout)
    assert data["all"]["errors"] + data["all"]["toolErrors"] == FILE_ERRORS
    assert data["path"]["errors"] + data["path"]["toolErrors"] == PATH_ERRORS

    session = load_session(path)
    soup = BeautifulSoup(render_session(session), "html.parser")
    table = soup.select_one("header.session-header table.figures")
    assert table is not None
    header = {
        row.th.get_text(strip=True): row.select_one("td.errors").get_text(strip=True)  # type: ignore[union-attr]
        for row in table.select("tbody tr")
    }
    assert header == {"Current branch": str(PATH_ERRORS), "Whole file": str(FILE_ERRORS)}

    # the branch cards: the current branch's whole path, each other branch its own part
    cards = [p.get_text() for p in soup.select("p.branch-figures")]
    counts = [int(m.group(1)) for c in cards if (m := re.search(r"(\d+) errors?\b", c))]
    assert counts == [PATH_ERRORS, OTHER_BRANCH_ERRORS]
    branches = list_branches(session)
    assert [b.figures.error_count for b in branches] == counts

    # the tree marks every failed entry of the file, the transcript holds each once, and
    # those on the current path are the ones the errors-only view shows
    assert len(soup.select("nav.outline li.failed .fail-mark")) == FILE_ERRORS
    failed = soup.select("[data-failure]")
    assert len(failed) == FILE_ERRORS
    on_path = set(session.tree.path)
    assert sum(f["data-entry-id"] in on_path for f in failed) == PATH_ERRORS

    out = tmp_path / "site"
    build_site(tmp_path / "root", out, jobs=1)
    assert _errors_cell(out / "index.html") == str(FILE_ERRORS)
    assert _errors_cell(next(out.glob("*/index.html"))) == str(FILE_ERRORS)

"""One start time per session: ``summary``, ``usage --by session`` and the site's rows give
the same figure, from one place (``report.summary.session_span``). A fork's start is its own
first entry, not the history it copied (the bundled shop fork differed by a day)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport import load_session
from piexport.cli import cli
from piexport.read.figures import iso_time
from piexport.report.summary import session_span
from piexport.site.summary import session_summary

from tests.support.sessions import SAMPLES

FILES = sorted(SAMPLES.glob("*/*.jsonl"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:30])
def test_summary_usage_and_site_agree_on_when_a_session_started(path: Path) -> None:
    runner = CliRunner()
    summary = runner.invoke(cli, ["summary", str(path), "--format", "json"])
    usage = runner.invoke(cli, ["usage", str(path), "--by", "session", "--format", "json"])
    assert summary.exit_code == 0 and usage.exit_code == 0, (summary.output, usage.output)
    started = json.loads(summary.stdout)["session"]["started"]
    (row,) = json.loads(usage.stdout)["rows"]
    session = load_session(path)
    assert row["started"] == started == iso_time(session_span(session).start)
    assert iso_time(session_summary(session, path)["started"]) == started


def test_a_fork_starts_at_its_own_first_entry() -> None:
    """The shop fork copies a day-old history: its start is after the header."""
    forks = [p for p in FILES if session_span(load_session(p)).copied_from is not None]
    assert forks, "the samples hold a fork"
    for path in forks:
        span = session_span(load_session(path))
        assert span.copied_from is not None and span.start is not None
        assert span.start > span.copied_from

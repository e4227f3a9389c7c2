"""Cost estimates for messages whose provider reported none (issue 28): genai-prices, offline,
marked "est." and never added to the reported cost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from click.testing import CliRunner

from piexport.cli import cli
from piexport.report.prices import estimate, estimate_message

from tests.support.sessions import SAMPLES, MakeSession, msg


def _assistant(eid: str, parent: str | None, second: int, cost: Any) -> dict[str, Any]:
    usage: dict[str, Any] = {"input": 1000, "output": 100, "cacheRead": 500, "cacheWrite": 200}
    if cost is not None:
        usage["cost"] = {"total": cost}
    rec = msg(eid, parent, "assistant", [{"type": "text", "text": "ok"}], second, usage=usage)
    rec["message"].update(provider="anthropic", model="claude-sonnet-4-5", timestamp=1746093600000)
    return rec


def test_estimate_by_hand() -> None:
    """Claude Sonnet 4.5 on 1 May 2025: $3 input, $15 output, $0.30 cache read and $3.75 cache
    write per million tokens. pi's input (1,000) leaves the 500 read and 200 written out;
    genai-prices' input_tokens holds them (1,700), so a wrong mapping gives $0.0033."""
    by_hand = 1000 * 3e-6 + 100 * 15e-6 + 500 * 0.30e-6 + 200 * 3.75e-6
    assert by_hand == pytest.approx(0.0054)
    assert estimate("anthropic", "claude-sonnet-4-5", "2025-05-01", 1000, 100, 500, 200) == (
        pytest.approx(by_hand)
    )


def test_only_messages_without_a_reported_cost_get_an_estimate() -> None:
    def est(cost: Any, **change: Any) -> float | None:
        rec = _assistant("a", None, 1, cost)
        return estimate_message(rec["message"] | change, rec["timestamp"])

    assert est(0.01) is None
    assert est(0) == pytest.approx(0.0054) and est(None) == pytest.approx(0.0054)
    assert est(0, provider="mine", model="llama-x") is None  # not in the price table
    assert est(0, timestamp=None) == pytest.approx(0.0054)  # the entry's time then
    assert estimate_message(msg("u", None, "user", "hi", 1)["message"]) is None


def test_estimates_are_apart_and_marked_everywhere(
    make_session: MakeSession, runner: CliRunner, tmp_path: Path
) -> None:
    from piexport.page.render import render_session
    from piexport.read.loader import load_session
    from piexport.site.build import build_site

    root = tmp_path / "root" / "--w--"
    root.mkdir(parents=True)
    path = make_session(
        [_assistant("a1", None, 1, 0), _assistant("a2", "a1", 2, 0.5)], name="root/--w--/s.jsonl"
    )
    # summary: reported cost and the estimate apart
    data = json.loads(runner.invoke(cli, ["summary", str(path), "--format", "json"]).stdout)
    assert data["all"]["cost"] == 0.5 and data["all"]["costEstimated"] == pytest.approx(0.0054)
    md = runner.invoke(cli, ["summary", str(path)]).stdout
    assert "$0.5000 (+ ~$0.0054 est.)" in md
    # usage: its own column and JSON key
    usage = json.loads(runner.invoke(cli, ["usage", str(root), "--format", "json"]).stdout)
    assert usage["total"]["cost"] == 0.5
    assert usage["total"]["costEstimated"] == pytest.approx(0.0054)
    table = runner.invoke(cli, ["usage", str(root)]).stdout
    assert table.splitlines()[0].split()[-2:] == ["Cost", "Est."] and "not included" in table
    # the page: figures table and the message's usage line
    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    cost = [td.get_text(" ", strip=True) for td in soup.select("table.figures tbody td.cost")]
    assert cost == ["$0.5000 + ~$0.0054 est."] * 2
    assert "~$0.0054 est." in soup.select(".usage")[0].get_text()
    # the context chart: each turn's cost, its estimate marked, and the same total
    chart = soup.select_one("figure.chart-context")
    assert chart is not None
    cells = [tr.find_all("td")[-1].get_text() for tr in chart.select("tbody tr")]
    assert cells == ["~$0.0054 est.", "$0.5000"]
    assert chart.select("tfoot td")[-1].get_text() == "$0.5000 + ~$0.0054 est."
    # the indexes
    build_site(tmp_path / "root", tmp_path / "site", jobs=1)
    index = BeautifulSoup((tmp_path / "site" / "index.html").read_text(), "html.parser")
    cell = index.select_one("#recent-table tbody td.cost")
    assert cell.get_text(" ", strip=True) == "$0.5000 + ~$0.0054 est."
    # issue 38: every other place a cost is shown: the projects chart (its bars and its
    # table), the project page's row, a branch card and the compare view's figures
    chart = index.select_one("#chart-projects, figure.chart-projects")
    assert chart is not None
    assert "$0.5000 + ~$0.0054 est." in chart.get_text(" ", strip=True)
    project = BeautifulSoup(
        next((tmp_path / "site").glob("*/index.html")).read_text(), "html.parser"
    )
    row = project.select_one("table.sessions tbody td.cost")
    assert row is not None and row.get_text(" ", strip=True) == "$0.5000 + ~$0.0054 est."
    from piexport.report.branches import figures_line, list_branches

    [branch] = list_branches(load_session(path))
    assert "cost $0.5000 + ~$0.0054 est." in figures_line(branch)


NO_NETWORK = """
import socket, sys
def hook(event, args):
    if event.startswith(("socket.", "http.client.")) or event in ("urllib.Request",):
        raise RuntimeError(f"network: {event}")
sys.addaudithook(hook)
from piexport.report.prices import estimate
value = estimate("anthropic", "claude-sonnet-4-5", "2025-05-01", 1000, 100, 500, 200)
assert value is not None and abs(value - 0.0054) < 1e-9, value
import genai_prices.update_prices as u
assert u._shared_updater.ref_count == 0  # its updater never started
print("ok")
"""


def test_estimates_never_touch_the_network() -> None:
    done = subprocess.run([sys.executable, "-c", NO_NETWORK], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
    # the hook does catch a connection attempt
    probe = NO_NETWORK.split("from piexport")[0] + "socket.create_connection(('127.0.0.1', 9))"
    caught = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert caught.returncode != 0 and "network: socket." in caught.stderr


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_the_price_table_loads_only_when_an_estimate_is_needed(make_session: MakeSession) -> None:
    priced = next(SAMPLES.rglob("*0196202a*.jsonl"))  # every message reported a cost
    unpriced = make_session([_assistant("a1", None, 1, 0)])
    code = "from piexport.read.loader import load_session\nfrom piexport.report.summary import summary_json\n"
    assert "genai_prices" not in _modules_after(
        code + f"summary_json(load_session({str(priced)!r}))"
    )
    assert "genai_prices" in _modules_after(code + f"summary_json(load_session({str(unpriced)!r}))")


@pytest.mark.parametrize(
    "tokens",
    [
        {"input": 2**52},  # every count valid (under 2^53), the dollars not
        {"output": 10**13},
        {"cacheRead": 2**50, "cacheWrite": 2**50},
    ],
)
def test_an_estimate_that_cannot_be_true_is_left_out_and_named(
    tokens: dict[str, int], make_session: MakeSession
) -> None:
    """Reported costs over MAX_COST are left out with a diagnostic; estimates obey the same
    bound (an unbounded estimate once read "~$993043717835.19 est." for one turn)."""
    from piexport.read.figures import MAX_COST
    from piexport.read.loader import load_session
    from piexport.report.prices import estimate_problems
    from piexport.report.stats import file_figures

    big = _assistant("a2", "a1", 2, None)
    big["message"]["usage"] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0} | tokens
    path = make_session([_assistant("a1", None, 1, None), big])
    session = load_session(path)
    assert estimate_message(big["message"], big["timestamp"]) is None
    figures = file_figures(session)
    assert figures.estimated == 1  # only the plausible one
    assert figures.cost_estimated == pytest.approx(0.0054)
    assert 0 <= figures.cost_estimated <= MAX_COST
    (problem,) = estimate_problems(session)
    assert problem.line == 3 and "left out of every total" in problem.message
    assert "over 100,000" in problem.message
    # every output's first step names it, once, as the loader names a reported cost
    from piexport.export.shown import load_shown

    shown = load_shown(path)
    assert [str(d) for d in shown.session.diagnostics].count(str(problem)) == 1


def test_no_estimate_from_a_usage_the_loader_refused() -> None:
    rec = _assistant("a", None, 1, None)
    rec["message"]["usage"]["input"] = -5
    assert estimate_message(rec["message"], rec["timestamp"]) is None
    rec["message"]["usage"]["input"] = 2**60
    assert estimate_message(rec["message"], rec["timestamp"]) is None

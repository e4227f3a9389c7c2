"""Forks, subagents and sessions started from another: told apart, linked, and counted apart."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from bs4 import BeautifulSoup

from piexport import load_session
from piexport.read.lineage import SessionFile, read_session_file, relate
from piexport.report.stats import file_figures
from piexport.site.build import build_site

from tests.support.sessions import DATA, HEADER, MakeSession, msg

SHOP = DATA / "pi15" / "--home-ana-src-shop--"
PARENT = next(SHOP.glob("*-000000000009.jsonl"))
NAMED = next(SHOP.glob("*-000000000010.jsonl"))
TIMED = next(SHOP.glob("*-000000000011.jsonl"))
FORK = next(SHOP.glob("*-000000000012.jsonl"))


def facts(path: Path) -> SessionFile:
    first = path.read_bytes().split(b"\n", 1)[0]
    return read_session_file(path, orjson.loads(first) if first else {})


def result_naming(parent: Path, text: str) -> str:
    for line in parent.read_text().splitlines():
        record = orjson.loads(line)
        if record.get("message", {}).get("role") == "toolResult" and text in line:
            return str(record["id"])
    raise AssertionError(text)


def test_a_fork_a_subagent_named_by_its_call_and_one_found_by_time() -> None:
    links = relate(facts(PARENT), [facts(NAMED), facts(TIMED), facts(FORK)])
    assert links[FORK].relation == "fork"
    named, timed = links[NAMED], links[TIMED]
    assert (named.relation, named.how) == ("subagent", "named")
    assert named.call == result_naming(PARENT, NAMED.name)
    assert (timed.relation, timed.how) == ("subagent", "time")
    # the call naming the first child is not the one the second began under
    assert timed.call == result_naming(PARENT, "Could not finish")


def test_a_session_begun_elsewhere_is_started_from_its_parent(make_session: MakeSession) -> None:
    parent = make_session(
        [
            msg("u1", None, "user", "hi", 1),
            msg("a1", "u1", "assistant", [{"type": "text", "text": "hello"}], 2),
        ],
        name="parent.jsonl",
    )
    other_folder = {**HEADER, "cwd": "/elsewhere", "timestamp": "2025-01-01T10:00:01.500Z"}
    later = {**HEADER, "timestamp": "2025-01-01T11:00:00.000Z"}
    children = [
        make_session(
            [msg("c1", None, "user", "go on", 3)],
            header={**h, "parentSession": str(parent)},
            name=f"c{i}.jsonl",
        )
        for i, h in enumerate([other_folder, later])
    ]
    links = relate(facts(parent), [facts(c) for c in children])
    assert [links[c].relation for c in children] == ["started", "started"]


def test_an_unreadable_parent_starts_its_children(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    child = tmp_path / "child.jsonl"
    child.write_bytes(orjson.dumps({**HEADER, "parentSession": str(empty)}) + b"\n")
    assert relate(facts(empty), [facts(child)])[child].relation == "started"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sessions")
    shutil.copytree(SHOP, root / SHOP.name)
    out = tmp_path_factory.mktemp("site")
    report = build_site(root, out, jobs=1, search=False)
    assert not report.failed
    return out


def page(site: Path, source: Path) -> BeautifulSoup:
    found = next(site.rglob(source.stem + ".html"))
    return BeautifulSoup(found.read_text(), "html.parser")


def test_a_parent_page_lists_its_subagents_apart_from_its_own_figures(site: Path) -> None:
    soup = page(site, PARENT)
    panel = soup.select_one("#subagents")
    rows = panel.select("tbody tr")
    assert [r.th.get_text(strip=True) for r in rows] == [
        "Review src/payment.py for bugs",
        "Review src/cart.py for bugs",
    ]
    assert [r.select("td")[0].get_text(strip=True) for r in rows] == [
        "finished",
        "stopped at the output limit",
    ]
    cost = {p: file_figures(load_session(p)).cost for p in (PARENT, NAMED, TIMED)}
    assert [r.select("td")[1].get_text() for r in rows] == [
        f"${cost[NAMED]:.4f}",
        f"${cost[TIMED]:.4f}",
    ]
    with_subagents = f"${sum(cost.values()):.4f} with subagents (${cost[PARENT]:.4f} this session)"
    assert with_subagents in panel.summary.get_text()
    # the session's own figures stay its own
    own = soup.select("table.figures")[0].select("tbody tr")[1].select_one("td.cost").get_text()
    assert own == f"${cost[PARENT]:.4f}"
    # each call's result links its session; the fork is a fork, not a subagent
    links = [a.get_text() for a in soup.select(".subagent-link a")]
    assert links == ["Review src/payment.py for bugs", "Review src/cart.py for bugs"]
    forks = soup.find("dt", string="Forks")
    assert forks is not None and FORK.stem in forks.find_next("dd").get_text()


def test_a_child_page_links_the_call_that_started_it(site: Path) -> None:
    parent = page(site, PARENT)
    for child, how in ((NAMED, "its result names this session"), (TIMED, "began while it ran")):
        soup = page(site, child)
        row = soup.find("dt", string="Subagent of").find_next("dd")
        assert how in row.get_text()
        href = row.find("a", string="this tool call")["href"]
        assert href.split("#")[0].endswith(PARENT.stem + ".html")
        assert parent.find(id=href.split("#")[1]) is not None
    assert page(site, FORK).find("dt", string="Forked from") is not None


def test_a_parent_page_is_made_again_when_a_subagent_changes(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(SHOP, root / SHOP.name)
    out = tmp_path / "site"
    build_site(root, out, jobs=1, search=False)
    child = root / SHOP.name / NAMED.name
    with child.open("ab") as f:  # the subagent answers once more
        record = msg("zz", None, "assistant", [{"type": "text", "text": "one more"}], 9)
        f.write(orjson.dumps(record) + b"\n")
    os.utime(child, ns=(1, 1))
    again = build_site(root, out, jobs=1, search=False)
    assert again.rendered == 2  # the child, and its parent's page that lists it

"""Branches and compare: figures per branch, alignment, file versions, CLI and the page."""

from __future__ import annotations

from typing import Any

import orjson
from click.testing import CliRunner

from piexport import load_session
from piexport.cli import cli
from piexport.page.branches import branch_panel
from piexport.page.render import render_session
from piexport.page.view import build_view
from piexport.report.branches import branch_summaries, branches_json, list_branches
from piexport.report.compare import align, compare, compare_markdown

from tests.support.branch_trees import fork_tree, many_leaves
from tests.support.pages import static_checks
from tests.support.sessions import HEADER, SAMPLES, MakeSession, msg

OWN = {
    "x-end": ["u1", "a1", "r1", "a2", "u2", "a3", "r3", "x-end"],  # the current: its whole path
    "y-end": ["u3", "a5", "r5", "a6", "c1", "u4", "a7", "y-end"],
    "z-end": ["s1", "u5", "a8", "z-end"],
}


def expected(records: list[dict[str, Any]], ids: list[str]) -> dict[str, Any]:
    """Figures added up here, from the records, without piexport's stats."""
    by_id = {r["id"]: r for r in records}
    tokens = cost = calls = errors = turns = 0
    modified: set[str] = set()
    for i in ids:
        m = by_id[i].get("message") or {}
        turns += m.get("role") == "user"
        errors += m.get("isError") is True
        if m.get("role") == "assistant":
            tokens += m["usage"]["totalTokens"]
            cost += m["usage"]["cost"]["total"]
            for block in m["content"]:
                if block["type"] == "toolCall":
                    calls += 1
                    if block["name"] in ("edit", "write"):
                        modified.add(block["arguments"]["path"])
    return {
        "tokens": tokens,
        "cost": round(cost, 6),
        "calls": calls,
        "errors": errors,
        "turns": turns,
        "modified": sorted(modified),
    }


def test_figures_of_each_branch_are_those_of_its_own_part(make_session: MakeSession) -> None:
    records = fork_tree()
    session = load_session(make_session(records))
    data = branches_json(session)
    leaves = {leaf["id"]: leaf for leaf in data["leaves"]}
    assert list(leaves) == ["x-end", "y-end", "z-end"]  # the tree's order: current first
    for leaf, own in OWN.items():
        want, got = expected(records, own), leaves[leaf]["figures"]
        assert got["entries"] == len(own)
        assert got["tokens"]["total"] == want["tokens"]
        assert got["cost"] == want["cost"]
        assert sum(got["toolCalls"].values()) == want["calls"]
        assert got["toolErrors"] == want["errors"]
        assert got["messages"].get("user", 0) == want["turns"]
        assert got["filesModified"] == want["modified"]
    assert leaves["x-end"]["current"] and leaves["x-end"]["forkFrom"] is None
    assert leaves["y-end"]["forkFrom"] == "a2" and leaves["y-end"]["sharedEntries"] == 4
    assert leaves["y-end"]["entries"] == 4 + len(OWN["y-end"])
    # the compaction inside Y counts on Y only; the abort ends Y; the summary is shown on Y
    assert leaves["y-end"]["figures"]["compactions"] == 1
    assert (
        leaves["x-end"]["figures"]["compactions"] == leaves["z-end"]["figures"]["compactions"] == 0
    )
    assert leaves["y-end"]["endedInError"] and leaves["y-end"]["stopReason"] == "aborted"
    assert leaves["y-end"]["summaries"] == ["Tried approach two; docs half done."]
    assert leaves["z-end"]["summaries"] == [] and leaves["x-end"]["summaries"] == []
    assert leaves["y-end"]["lastUser"] == "AND add docs"
    assert leaves["x-end"]["lastAssistant"] == "Done with one."
    assert leaves["z-end"]["lastAssistant"] is None  # no text of its own
    assert list(leaves["x-end"])[:7] == [
        "id",
        "current",
        "labels",
        "forkFrom",
        "sharedEntries",
        "entries",
        "figures",
    ]


def test_alignment_uses_requests_as_anchors() -> None:
    assert align(["a", "b", "c"], ["a", "b", "c"]) == [
        (0, 0, "same"),
        (1, 1, "same"),
        (2, 2, "same"),
    ]
    assert align(["a", "x", "c"], ["a", "y", "z", "c"]) == [
        (0, 0, "same"),
        (1, 1, "changed"),
        (None, 2, "onlyB"),
        (2, 3, "same"),
    ]
    assert align(["a", "b"], []) == [(0, None, "onlyA"), (1, None, "onlyA")]
    assert align([], []) == []


def test_compare_aligns_turns_and_diffs_rebuilt_files(make_session: MakeSession) -> None:
    session = load_session(make_session(fork_tree()))
    c = compare(session, "x-end", "z-end")
    assert (c.fork, c.shared) == ("a2", 4)
    # X: "Use approach one"; Z: the summary (no request), then "use approach ONE": same request
    assert [t.user for t in c.a.turns] == ["Use approach one"]
    assert [t.user for t in c.b.turns] == [None, "use approach ONE"]
    assert c.alignment == [(None, 0, "onlyB"), (0, 1, "same")]
    assert c.only_a == ["f.py"] and c.only_b == [] and c.both == []

    c = compare(session, "x-end", "y-end")
    assert c.alignment == [(0, 0, "changed"), (None, 1, "onlyB")]
    assert c.only_b == ["docs.md"]
    (f,) = c.both
    assert f.path == "f.py" and f.status == "different"
    assert f.diff is not None
    assert "-ONE\n" in f.diff and "+TWO\n" in f.diff and " line2\n" in f.diff
    md = compare_markdown(session, c)
    assert "```diff" in md and "| ≠ | Use approach one" in md


def test_compare_says_when_a_file_cannot_be_rebuilt(make_session: MakeSession) -> None:
    records = fork_tree()
    for r in records:  # the read becomes partial: no whole f.py anywhere
        if r["id"] == "a1":
            r["message"]["content"][1]["arguments"]["limit"] = 1
    session = load_session(make_session(records))
    (f,) = compare(session, "x-end", "y-end").both
    assert f.status == "unknown" and f.diff is None
    assert f.reason is not None and "x-end" in f.reason and "y-end" in f.reason


def test_one_leaf_many_leaves_and_a_fork(make_session: MakeSession) -> None:
    one = load_session(make_session(fork_tree()[:4]))
    (only,) = list_branches(one)
    assert only.current and only.shared == 0
    html = render_session(build_view(one))
    static_checks(html)
    # one path: no panel (issue 28), the header says so
    assert 'id="branches"' not in html and 'id="branch-data"' not in html
    assert "<dt>Branches</dt><dd>one branch</dd>" in html

    many = load_session(make_session(many_leaves(25)))
    branches = list_branches(many)
    assert len(branches) == 25
    assert all(b.fork_from == "ans" and b.shared == 2 for b in branches if not b.current)
    assert [b.figures.tokens["total"] for b in branches if b.leaf == "leaf7"] == [(7 + 1) + 1]
    view = build_view(many)
    panel = branch_panel(view)
    data = orjson.loads(str(panel.island).split(">", 1)[1].rsplit("<", 1)[0])
    assert len(data["pairs"]) == 25 * 24 // 2
    # every leaf forks at "ans": its side is the same in all 24 of its pairs, held once
    assert len(data["sides"]) == 25
    assert sorted({data["pairs"][k][s] for k in data["pairs"] for s in "ab"}) == list(range(25))
    html = render_session(view)
    static_checks(html)
    assert html.count('class="branch-card') == 25
    for k in range(25):
        assert f'href="#entry-leaf{k}"' in html

    forked = load_session(
        make_session(fork_tree()[:4], header={**HEADER, "parentSession": "/x/parent.jsonl"})
    )
    view = build_view(forked, parent_href="./parent.html")
    html = render_session(view)
    assert '<dt>Forked from</dt><dd><a href="./parent.html">' in html
    html = render_session(build_view(forked))
    assert "<dt>Forked from</dt><dd><code>/x/parent.jsonl</code>" in html


def test_cli_branches_and_compare(make_session: MakeSession, runner: CliRunner) -> None:
    path = str(make_session(fork_tree()))
    out = runner.invoke(cli, ["branches", path, "--format", "json"])
    assert out.exit_code == 0, out.output
    data = orjson.loads(out.output)
    assert [leaf["id"] for leaf in data["leaves"]] == ["x-end", "y-end", "z-end"]
    text = runner.invoke(cli, ["branches", path]).output
    assert "* current x-end" in text and "forks from a2 after 4 shared entries" in text
    assert "ended in aborted" in text and "summary when left: Tried approach two" in text

    out = runner.invoke(cli, ["compare", path, "x-end", "y-end", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = orjson.loads(out.output)
    assert data["forkFrom"] == "a2" and data["sharedEntries"] == 4
    assert data["turns"] == [
        {"a": 0, "b": 0, "match": "changed"},
        {"a": None, "b": 1, "match": "onlyB"},
    ]
    assert data["files"]["both"][0]["status"] == "different"
    md = runner.invoke(cli, ["compare", path, "x-end", "y-end"]).output
    assert md.startswith("### Branches compared") and "only B: `docs.md`" in md
    bad = runner.invoke(cli, ["compare", path, "x-end", "nope"])
    assert bad.exit_code == 2 and "nope" in bad.output


def test_hostile_text_stays_text_in_panel_and_island(make_session: MakeSession) -> None:
    evil = "</script><script>alert(1)</script><img src=x onerror=alert(1)> \u202e"
    records = fork_tree()
    for r in records:
        m = r.get("message")
        if m and m["role"] == "user":
            m["content"] = evil + m["content"]
        if r["id"] == "a5":
            r["message"]["content"][0]["arguments"]["newText"] = evil
    records.append(
        {
            "type": "label",
            "id": "lb",
            "parentId": "x-end",
            "timestamp": "2025-01-01T10:01:00.000Z",
            "targetId": "u3",
            "label": evil,
        }
    )
    html = render_session(build_view(load_session(make_session(records))))
    static_checks(html)  # one island, no "<" in it, strict JSON; no hidden characters shown
    assert "<img src=x" not in html and "\u202e" not in html


def test_sample_shop_session_compare_has_a_diff() -> None:
    shop = next(SAMPLES.rglob("*01955b2a*.jsonl"))
    session = load_session(shop)
    c = compare(session, "4883cfc2", "38c84050")
    assert c.fork == "ac09fa31"
    assert [m for _i, _j, m in c.alignment] == ["changed"]


def test_a_sides_cost_is_the_same_float_whether_or_not_stretches_are_shared(
    make_session: MakeSession,
) -> None:
    """The page sums a side's figures per stretch of the tree between forks (each counted
    once per page); its cost must still be added in one order, or a last bit can change the
    rounded cost shown ($0.0013 on the page where `piexport compare` says $0.0012)."""
    from piexport.report.compare import Cache

    def asst(eid: str, parent: str, second: int, cost: float) -> dict[str, Any]:
        return msg(
            eid, parent, "assistant", [{"type": "text", "text": eid}], second,
            model="m", provider="p", stopReason="stop",
            usage={"input": 1, "output": 1, "totalTokens": 2, "cost": {"total": cost}},
        )  # fmt: skip

    session = load_session(
        make_session(
            [
                msg("u0", None, "user", "hi", 1),
                asst("a0", "u0", 2, 0.000401),  # a fork
                asst("b1", "a0", 3, 0.0002926),
                asst("b2", "b1", 4, 0.0005559),
                asst("c1", "a0", 5, 0.001),
                asst("x0", "u0", 6, 0.002),  # u0 forks too
            ]
        )
    )
    plain = compare(session, "b2", "x0")
    shared = compare(session, "b2", "x0", Cache())
    assert plain.a.own == ["a0", "b1", "b2"]
    assert shared.a.figures.cost == plain.a.figures.cost  # the same float, not just close
    assert shared.a.figures.as_json() == plain.a.figures.as_json()


def test_a_branch_summary_names_the_leaf_it_left(make_session: MakeSession) -> None:
    """pi 1.5's fromId is the leaf the user left; older pi wrote the entry it went back to,
    and then the entry before the summary in the file is the one left."""
    records = [
        msg("u1", None, "user", "plan A or B?", 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "A"}], 2),
        msg("u2", "a1", "user", "try A", 3),
        msg("a2", "u2", "assistant", [{"type": "text", "text": "A failed"}], 4),
        # a label written after the leaf: the entry before the summary is not the leaf left
        {
            "type": "label",
            "id": "l1",
            "parentId": "a2",
            "timestamp": "2025-01-01T10:00:05.000Z",
            "targetId": "a2",
            "label": "dead end",
        },
        {
            "type": "branch_summary",
            "id": "s1",
            "parentId": "a1",
            "fromId": "a2",
            "timestamp": "2025-01-01T10:00:06.000Z",
            "summary": "A failed",
        },
        msg("u3", "s1", "user", "try B", 7),
        # an older file: fromId is where it went back to
        {
            "type": "branch_summary",
            "id": "s2",
            "parentId": "a1",
            "fromId": "a1",
            "timestamp": "2025-01-01T10:00:08.000Z",
            "summary": "B was left too",
        },
    ]
    session = load_session(make_session(records))
    assert branch_summaries(session) == {"s1": "a2", "s2": "u3"}

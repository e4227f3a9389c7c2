"""piexport reads what pi 1.5 writes exactly as pi 1.5 does, on every leaf of every file.

The corpus (tests/data/pi15/) was written by pi 1.5.2's own SessionManager and the goldens
(tests/reference/pi15/expected/) by pi 1.5.2 itself: its buildSessionContext, the source entry
of each message of buildSessionProjection, getCurrentSystemMessage over the context, and the
session totals of /session. tests/reference/pi15/update.py makes both; this test needs no Node.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from piexport import build_session_context, load_session
from piexport.read.context import projection
from piexport.read.jsonutil import dumps
from piexport.read.system import current_system
from piexport.report.stats import file_figures

from tests.support.sessions import REPO, TESTS

EXPECTED = sorted((TESTS / "reference" / "pi15" / "expected").glob("*.json"))


def _name(p: Path) -> str:
    return p.name.split("_")[-1][:36]


def _json(value: Any) -> Any:
    """As ``piexport context`` prints it, and as pi's goldens were written."""
    return json.loads(dumps(value))


def test_the_corpus_covers_what_pi_15_writes() -> None:
    kinds: set[str] = set()
    for golden in EXPECTED:
        for line in (REPO / json.loads(golden.read_text())["file"]).read_text().splitlines():
            record = json.loads(line)
            kinds.add(record["type"])
            message = record.get("message") or {}
            kinds.add(f"role:{message.get('role')}")
            kinds.update(f"message.{k}" for k in message)
            kinds.update(f"{record['type']}.{k}" for k in record)
            if message.get("stopReason"):
                kinds.add(f"stop:{message['stopReason']}")
    assert len(EXPECTED) >= 12
    for wanted in (
        "context_edit",
        "usage",
        "role:system",
        "compaction.systemMessage",
        "compaction.usage",
        "branch_summary.usage",
        "message.nestedCalls",
        "message.usage",
        "message.responseModel",
        "message.thinkingLevel",
        "message.diagnostics",
        "message.deferred",
        "stop:deferred",
        "message.excludeFromContext",
        "session.parentSession",
    ):
        assert wanted in kinds, wanted


@pytest.mark.parametrize("golden", EXPECTED, ids=_name)
def test_context_sources_and_system_prompt_match_pi_15_on_every_leaf(golden: Path) -> None:
    expected = json.loads(golden.read_text(encoding="utf-8"))
    session = load_session(REPO / expected["file"])
    assert not session.diagnostics
    leaves = [None, *session.tree.leaves]
    wanted = [expected["defaultLeaf"], *expected["leaves"]]
    assert len(leaves) == len(wanted)
    for leaf, item in zip(leaves, wanted, strict=True):
        if leaf is not None:
            assert leaf == item["id"]
        context = _json(build_session_context(session, leaf))
        assert context == item["context"], f"leaf {leaf}"
        sources = [p.entry.id for p in projection(session, leaf) for _ in p.messages]
        assert sources == item["sources"], f"leaf {leaf}"
        system = current_system(context["messages"]).as_message()
        assert _json(system) == item["system"], f"leaf {leaf}"


@pytest.mark.parametrize("golden", EXPECTED, ids=_name)
def test_file_totals_match_pi_15s_session_totals(golden: Path) -> None:
    """pi's /session adds every usage in the file: assistant turns, usage entries of any kind,
    compaction and branch-summary usage, and a tool result's own usage."""
    expected = json.loads(golden.read_text(encoding="utf-8"))["totals"]
    f = file_figures(load_session(REPO / json.loads(golden.read_text())["file"]))
    assert {k: f.tokens[k] for k in ("input", "output", "cacheRead", "cacheWrite", "total")} == (
        expected["tokens"]
    )
    assert f.cost == pytest.approx(expected["cost"], rel=1e-12, abs=1e-15)
    assert f.messages["user"] == expected["userMessages"]
    assert f.messages["assistant"] == expected["assistantMessages"]
    assert f.messages["toolResult"] == expected["toolResults"]
    assert f.message_count == expected["totalMessages"]
    assert sum(f.tool_calls.values()) == expected["toolCalls"]
    # the breakdown adds up to the totals, and says what is not a turn
    assert sum(t.cost for t in f.by_kind.values()) == pytest.approx(f.cost, rel=1e-12, abs=1e-15)
    assert sum(t.tokens["total"] for t in f.by_kind.values()) == f.tokens["total"]


def test_the_corpus_has_usage_beyond_turns() -> None:
    kinds: set[str] = set()
    for golden in EXPECTED:
        f = file_figures(load_session(REPO / json.loads(golden.read_text())["file"]))
        kinds |= {k for k, t in f.by_kind.items() if t.cost}
    assert {"turns", "tool work", "compaction summaries", "branch summaries", "cache_warm"} <= kinds

"""`piexport context` agrees with pi's own buildSessionContext on every leaf of every sample.

The goldens come from pi itself (tests/reference/update_goldens.py runs pi 0.73's exported
loader, migration and buildSessionContext); this test never needs Node.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from piexport import build_session_context, load_session
from piexport.read.jsonutil import dumps

from tests.support.sessions import REPO, TESTS

GOLDENS = sorted((TESTS / "reference" / "contexts").glob("*.json"))


def test_there_are_goldens_for_the_samples() -> None:
    assert len(GOLDENS) >= 6


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.name.split("__")[-1][:40])
def test_context_matches_pi_on_every_leaf(golden: Path) -> None:
    expected = json.loads(golden.read_text(encoding="utf-8"))
    session = load_session(REPO / expected["file"])
    # Round-trip through JSON, as `piexport context` prints it and as pi's goldens were written.
    ours = lambda leaf: json.loads(dumps(build_session_context(session, leaf)))  # noqa: E731
    assert ours(None) == expected["defaultLeaf"]
    assert len(session.tree.leaves) == len(expected["leaves"])
    for leaf_id, item in zip(session.tree.leaves, expected["leaves"], strict=True):
        if item["id"] is not None:
            assert leaf_id == item["id"]
        assert ours(leaf_id) == item["context"], f"leaf {leaf_id}"

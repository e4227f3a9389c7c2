"""Each kind's fixture folder (``fixtures/<kind>/``): ``input.jsonl``, and the Markdown
(``expected.md``) and ``piexport tree --ids`` text (``expected.tree``) it gives.

To write the expected files again after an intended change, run
``PIEXPORT_REGENERATE_FIXTURES=1 .venv/bin/pytest -n 0 tests/kinds/test_fixtures.py`` and
read the diff (fixtures/README.md)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from piexport.kinds import BY_NAME
from piexport.read.loader import load_session
from piexport.read.model import Session
from piexport.report.formats import session_markdown
from piexport.report.outline import render_tree_text

FIXTURES = Path(__file__).resolve().parent / "fixtures"
REGENERATE = os.environ.get("PIEXPORT_REGENERATE_FIXTURES") == "1"
OUTPUTS: dict[str, Callable[[Session], str]] = {
    "expected.md": session_markdown,
    "expected.tree": lambda session: render_tree_text(session, ids=True),
}


def test_every_kind_has_a_fixture_folder() -> None:
    folders = {p.name for p in FIXTURES.iterdir() if (p / "input.jsonl").is_file()}
    assert folders == set(BY_NAME)


@pytest.mark.parametrize("name", sorted(BY_NAME))
@pytest.mark.parametrize("output", sorted(OUTPUTS))
def test_fixture(name: str, output: str) -> None:
    folder = FIXTURES / name
    made = OUTPUTS[output](load_session(folder / "input.jsonl"))
    expected = folder / output
    if REGENERATE:
        expected.write_text(made, encoding="utf-8", newline="\n")
    assert expected.is_file(), f"{expected} is missing: PIEXPORT_REGENERATE_FIXTURES=1 makes it"
    assert made == expected.read_text(encoding="utf-8"), f"{name}: {output} differs"

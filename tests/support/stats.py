"""The security harness's figures, counted by the tests that make them and printed in one
line at the end of the run (tests/conftest.py adds up those of every xdist worker)."""

from __future__ import annotations

STATS = {"placements": 0, "executed": 0, "requests": 0, "pages": 0}
"""The XSS harness (tests/browser/test_security.py): payloads placed, pages opened, what ran."""
CORPUS_STATS = {"files": 0, "crashes": 0, "lost": 0}
"""The malformed-file corpus (tests/corpus/test_corpus.py)."""


def figures() -> dict[str, int]:
    """Both tables in one, to send from a worker to the controller."""
    return {**STATS, **CORPUS_STATS}


def add(figures: dict[str, int]) -> None:
    """Count a worker's figures in this process's."""
    for table in (STATS, CORPUS_STATS):
        for key in table:
            table[key] += figures.get(key, 0)

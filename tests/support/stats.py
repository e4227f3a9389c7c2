"""The security harness's figures, counted by the tests that make them and printed in one
line at the end of the run (tests/conftest.py)."""

from __future__ import annotations

STATS = {"placements": 0, "executed": 0, "requests": 0, "pages": 0}
"""The XSS harness (browser/test_security.py): payloads placed, pages opened, what ran."""
CORPUS_STATS = {"files": 0, "crashes": 0, "lost": 0}
"""The malformed-file corpus (test_corpus.py)."""

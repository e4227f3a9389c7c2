"""The fuzz target runs (a fixed number of cases) in CI, and every saved crash input is replayed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.sessions import TESTS

FUZZ = TESTS / "fuzz"


RUNS = 150
"""Inputs the fuzzer tries: the seeds (about 200: the hostile corpus and the samples), then
mutations of them. A fixed number from a fixed seed, not a time: the same cases on any
machine (longer runs are for ``fuzz_session.py`` by hand)."""


def test_fuzz_target_runs_clean_for_a_fixed_number_of_cases(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    result = subprocess.run(
        [
            sys.executable,
            str(FUZZ / "fuzz_session.py"),
            f"-runs={RUNS}",
            "-seed=1",
            "-rss_limit_mb=4096",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert f"Done {RUNS} runs" in result.stderr and any(corpus.iterdir())


def test_saved_crash_inputs_stay_fixed() -> None:
    sys.path.insert(0, str(FUZZ))
    from fuzz_session import check

    for crash in sorted((FUZZ / "crashes").glob("crash-*")):
        check(crash.read_bytes())

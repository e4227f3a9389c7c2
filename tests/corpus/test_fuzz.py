"""The fuzz target runs (bounded) in CI, and every saved crash input is replayed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.sessions import TESTS

FUZZ = TESTS / "fuzz"


def test_fuzz_target_runs_clean_for_a_while(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    result = subprocess.run(
        [
            sys.executable,
            str(FUZZ / "fuzz_session.py"),
            "-max_total_time=20",
            "-rss_limit_mb=4096",
            f"-artifact_prefix={tmp_path}/",
            str(corpus),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Done" in result.stderr and any(corpus.iterdir())


def test_saved_crash_inputs_stay_fixed() -> None:
    sys.path.insert(0, str(FUZZ))
    from fuzz_session import check

    for crash in sorted((FUZZ / "crashes").glob("crash-*")):
        check(crash.read_bytes())

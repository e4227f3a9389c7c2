"""The package stays lint-clean and strictly typed (ruff and mypy, configured in pyproject)."""

from __future__ import annotations

import subprocess
import sys

from tests.support.sessions import REPO


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True)


def test_ruff() -> None:
    result = run("ruff", "check", "piexport", "tests")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict() -> None:
    result = run("mypy", "piexport")
    assert result.returncode == 0, result.stdout + result.stderr

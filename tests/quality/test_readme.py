"""The README's two commands are what CI runs and what a new user types."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.sessions import REPO


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)[:2]


def test_ci_runs_the_readme_test_command() -> None:
    _, test_command = readme_commands()
    assert test_command in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_readme_first_command_runs_on_the_samples(tmp_path) -> None:  # type: ignore[no-untyped-def]
    first, _ = readme_commands()
    assert "piexport site sample_sessions" in first
    # the part after the install, with the installed package of this test run
    out = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "piexport", "site", str(REPO / "sample_sessions"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (out / "index.html").is_file()

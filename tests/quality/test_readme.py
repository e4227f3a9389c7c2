"""The README's two commands are what CI runs and what a new user types."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.sessions import REPO


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)[:2]


def ci_commands() -> list[str]:
    """The commands of .ci/run, one a line (comments and shell settings left out)."""
    text = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    return [
        line
        for line in text.splitlines()
        if line and not line.startswith(("#", "set ", "cd ", "export "))
    ]


def test_ci_runs_the_readme_test_command() -> None:
    _, test_command = readme_commands()
    assert test_command in ci_commands()  # a line of its own, exactly as written


def test_ci_runs_the_checks_that_are_not_tests() -> None:
    """Lint, format, strict types and the layer contract left the suite (they are not
    tests, and took a minute of it) for a step of their own in CI, after the suite."""
    _, test_command = readme_commands()
    commands = ci_commands()
    checks = commands[commands.index(test_command) + 1 :]
    assert len(checks) == 1
    steps = checks[0].split(" && ")
    assert steps == [
        ".venv/bin/ruff check piexport tests",
        ".venv/bin/ruff format --check piexport tests",
        ".venv/bin/mypy piexport",
        ".venv/bin/lint-imports --no-cache",
    ]
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.mypy]" in text and "strict = true" in text
    assert "[tool.importlinter]" in text


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

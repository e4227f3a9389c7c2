"""The README's GitHub Actions step, run as a shell script against a sample session."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.sessions import REPO, sample_files


def github_step_lines() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("- name: Export the transcript", 1)[1]
    run = block.split("run: |\n", 1)[1]
    lines = []
    for line in run.splitlines():
        if not line.startswith(" " * 10):
            break
        lines.append(line.strip())
    return lines


def run_step(tmp_path: Path, sample: str) -> subprocess.CompletedProcess[str]:
    """The step's lines (less the install: this test run's piexport is on PATH)."""
    script = "\n".join(
        line for line in github_step_lines() if not line.startswith("python3 -m pip install")
    )
    sessions = tmp_path / ".pi-sessions"
    sessions.mkdir()
    src = next(p for p in sample_files() if sample in p.name)
    shutil.copy(src, sessions / src.name)
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_RUN_ID": "7",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )


def test_readme_ci_step_runs(tmp_path: Path) -> None:
    assert any(line.startswith("piexport render") for line in github_step_lines())
    result = run_step(tmp_path, "01955f7c")  # ends well: --fail-on passes
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "transcript.html").stat().st_size > 10_000
    summary = (tmp_path / "summary.md").read_text()
    assert (
        summary.startswith("### pi session")
        and "https://github.example/o/r/actions/runs/7" in summary
    )
    assert re.search(r'"filesModified"', (tmp_path / "transcript.json").read_text())


def test_readme_ci_step_fails_the_job_on_an_error_turn(tmp_path: Path) -> None:
    result = run_step(tmp_path, "0196ec1e")  # has an error turn
    assert result.returncode == 1
    assert (tmp_path / "transcript.html").is_file()  # the page is still there for the artifact

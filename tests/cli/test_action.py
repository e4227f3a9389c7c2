"""The composite GitHub Action (action.yml), its shell steps run here as a runner would run
them: ``bash --noprofile --norc -eo pipefail`` with ``${{ … }}`` filled in from the inputs,
the steps' outputs (read back from ``$GITHUB_OUTPUT``) and a fake run's environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.support.secrets import Plant, assert_no_leak, planted_session
from tests.support.sessions import REPO, sample_files, to_lines

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
RUN_URL = "https://github.example/o/r/actions/runs/7"
EXPR = re.compile(r"\$\{\{\s*(.+?)\s*\}\}")


@dataclass
class Run:
    """What running the action's steps left behind."""

    steps: list[tuple[str, int]] = field(default_factory=list)
    """(step name, exit code) in the order they ran."""
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    uploaded: dict[str, str] = field(default_factory=dict)
    stderr: str = ""
    failed: bool = False

    def action_outputs(self, context: dict[str, str]) -> dict[str, str]:
        return {
            name: substitute(spec["value"], context) for name, spec in ACTION["outputs"].items()
        }


def substitute(text: str, context: dict[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        assert m.group(1) in context, f"action.yml uses ${{{{ {m.group(1)} }}}}, unknown here"
        return context[m.group(1)]

    return EXPR.sub(value, text)


def read_outputs(path: Path) -> dict[str, str]:
    if not path.exists():
        return {}
    return dict(
        line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if line
    )


def should_run(step: dict[str, Any], inputs: dict[str, str], failed: bool) -> bool:
    condition = step.get("if")
    if condition is None:
        return not failed
    if condition == "always()":
        return True
    m = re.fullmatch(r"inputs\.([\w-]+) != ''", condition)
    assert m, f"a condition this test cannot read: {condition}"
    return not failed and inputs[m.group(1)] != ""


def run_action(tmp_path: Path, **given: str) -> tuple[Run, dict[str, str]]:
    inputs = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, unknown
    inputs.update(given)
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()
    summary = tmp_path / "step-summary.md"
    env = {
        **os.environ,
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "o/r",
        "GITHUB_RUN_ID": "7",
        "RUNNER_TEMP": str(runner_temp),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    context = {f"inputs.{k}": v for k, v in inputs.items()}
    context["github.action_path"] = str(REPO)
    context["runner.temp"] = str(runner_temp)
    run = Run()
    for n, step in enumerate(ACTION["runs"]["steps"]):
        name = step.get("name", step.get("id", str(n)))
        if not should_run(step, inputs, run.failed):
            continue
        if step.get("id") == "install":
            # this test run's piexport stands in for the one the step installs from the
            # action's own checkout
            assert step["env"]["ACTION_PATH"] == "${{ github.action_path }}"
            assert '"$ACTION_PATH"' in step["run"] and "pip install" in step["run"]
            run.outputs["install"] = {"piexport": shutil.which("piexport", path=env["PATH"])}
            for k, v in run.outputs["install"].items():
                context[f"steps.install.outputs.{k}"] = v or ""
            run.steps.append((name, 0))
            continue
        if "uses" in step:
            assert step["uses"].startswith("actions/upload-artifact@v")
            run.uploaded = {k: substitute(str(v), context) for k, v in step["with"].items()}
            run.steps.append((name, 0))
            continue
        output_file = tmp_path / f"output-{n}"
        output_file.touch()
        step_env = {k: substitute(str(v), context) for k, v in step.get("env", {}).items()}
        assert "${{" not in step["run"], "inputs reach the script through env, never inline"
        script = tmp_path / f"step-{n}.sh"
        script.write_text(step["run"])
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=tmp_path,
            env={**env, **step_env, "GITHUB_OUTPUT": str(output_file)},
            capture_output=True,
            text=True,
        )
        run.stderr += done.stdout + done.stderr
        run.steps.append((name, done.returncode))
        if step.get("id"):
            run.outputs[step["id"]] = read_outputs(output_file)
            for k, v in run.outputs[step["id"]].items():
                context[f"steps.{step['id']}.outputs.{k}"] = v
        if done.returncode != 0:
            run.failed = True
    for output in ACTION["outputs"].values():  # an output of a step that never wrote it
        for expr in EXPR.findall(output["value"]):
            context.setdefault(expr, "")
    return run, context


def sessions_folder(tmp_path: Path, *samples: str, planted: Plant | None = None) -> Path:
    """A .pi-sessions folder in pi's layout; the last file given is the newest."""
    tmp_path.mkdir(exist_ok=True)
    folder = tmp_path / ".pi-sessions"
    files = []
    for sample in samples:
        src = next(p for p in sample_files() if sample in p.name)
        dest = folder / src.parent.name / src.name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, dest)
        files.append(dest)
    if planted is not None:
        dest = folder / "--work--" / "2025-06-01T00-00-00-000Z_planted.jsonl"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(to_lines(planted_session(planted)))
        files.append(dest)
    for i, f in enumerate(files):
        os.utime(f, (1_700_000_000 + i * 60, 1_700_000_000 + i * 60))
    return folder


def test_action_metadata() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"sessions", "redact", "fail-on", "site", "artifact-name"}
    defaults = {k: v.get("default") for k, v in ACTION["inputs"].items()}
    assert defaults["sessions"] == ".pi-sessions" and defaults["redact"] == "true"
    assert defaults["site"] == "false"
    assert set(ACTION["outputs"]) >= {"page", "summary-json", "tool-errors"}
    for step in ACTION["runs"]["steps"]:
        assert "run" not in step or step["shell"] == "bash"
        assert "uses" not in step or re.search(r"@v\d", step["uses"])


def test_action_renders_redacts_and_summarises(tmp_path: Path) -> None:
    plant = Plant()
    sessions_folder(tmp_path, "01955f7c", planted=plant)  # the planted one is the newest
    run, context = run_action(tmp_path)
    assert not run.failed, run.stderr
    assert [name for name, _ in run.steps] == [
        "Install piexport",
        "Render and summarise the session",
        "Upload the page",
    ]  # no fail-on: no gate step
    outputs = run.action_outputs(context)
    page, summary_json = Path(outputs["page"]), Path(outputs["summary-json"])
    assert outputs["session"].endswith("_planted.jsonl")
    assert page.name == "transcript.html" and page.stat().st_size > 10_000
    text = page.read_text(encoding="utf-8")
    assert "[REDACTED:" in text and "secrets redacted (" in text
    figures = orjson.loads(summary_json.read_bytes())
    assert outputs["tool-errors"] == str(figures["path"]["toolErrors"])
    summary = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert summary.startswith("### pi session") and f"(<{RUN_URL}>)" in summary
    # redaction is on everywhere: page, job summary, JSON
    assert_no_leak([page, summary_json, tmp_path / "step-summary.md"], plant.secrets)
    assert "redacted " in run.stderr
    assert run.uploaded["name"] == "pi-transcript"
    assert Path(run.uploaded["path"]) == page.parent == summary_json.parent


def test_action_with_redaction_off_says_so(tmp_path: Path) -> None:
    plant = Plant()
    sessions_folder(tmp_path, planted=plant)
    run, context = run_action(tmp_path, redact="false")
    assert not run.failed, run.stderr
    assert "::warning::piexport: redaction is off" in run.stderr
    page = Path(run.action_outputs(context)["page"]).read_text(encoding="utf-8")
    assert any(secret in page for secret in plant.secrets)

    again = tmp_path / "again"
    sessions_folder(again, planted=Plant())
    run, _ = run_action(again, redact="yes")
    assert run.failed and "redact must be true or false, not 'yes'" in run.stderr


@pytest.mark.parametrize("fail_on", ["error,aborted", " aborted , error ", "tool-error"])
def test_action_fails_the_job_after_uploading(tmp_path: Path, fail_on: str) -> None:
    sessions_folder(tmp_path, "01955f7c", "0196ec1e")  # the newest has an error turn
    run, context = run_action(tmp_path, **{"fail-on": fail_on, "artifact-name": "t"})
    names = [name for name, _ in run.steps]
    assert names[-2:] == ["Upload the page", "Fail on what the session shows"]
    outputs = run.action_outputs(context)
    assert Path(outputs["page"]).is_file() and run.uploaded["name"] == "t"
    figures = orjson.loads(Path(outputs["summary-json"]).read_bytes())
    shows_tool_error = figures["path"]["toolErrors"] > 0
    expected = 0 if fail_on == "tool-error" and not shows_tool_error else 1
    assert run.steps[-1][1] == expected, run.stderr
    if expected:
        assert "(--fail-on)" in run.stderr


def test_action_passes_a_clean_session(tmp_path: Path) -> None:
    sessions_folder(tmp_path, "0196ec1e", "01955f7c")  # the newest ends well
    run, _ = run_action(tmp_path, **{"fail-on": "error,aborted"})
    assert not run.failed, run.stderr
    assert run.steps[-1] == ("Fail on what the session shows", 0)


def test_action_builds_the_site(tmp_path: Path) -> None:
    sessions_folder(tmp_path, "01955f7c", "0196ec1e", "0196f5fc")
    run, context = run_action(tmp_path, site="true")
    assert not run.failed, run.stderr
    outputs = run.action_outputs(context)
    page = Path(outputs["page"])
    assert page.name == "index.html" and page.parent.name == "site"
    pages = {p.name for p in page.parent.rglob("*.html")}
    for sample in ("01955f7c", "0196ec1e", "0196f5fc"):
        assert any(sample in name for name in pages), sample
    assert outputs["session"].endswith(next(p.name for p in sample_files() if "0196f5fc" in p.name))


def test_action_without_sessions_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / ".pi-sessions").mkdir()
    run, _ = run_action(tmp_path)
    assert run.failed
    assert "::error::piexport: no session files (*.jsonl) under '.pi-sessions'" in run.stderr
    assert [name for name, _ in run.steps][-1] == "Upload the page"  # still runs, warns

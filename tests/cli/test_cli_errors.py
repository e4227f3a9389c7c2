"""How the CLI ends (``piexport.cli.errors``): one place gives each ending its exit code, and
the commands stay thin (no command raises SystemExit itself; no body grows back)."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import click
import pytest

from piexport.cli.errors import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    Interrupted,
    RunFailed,
    UsageProblem,
    failure,
)
from piexport.errors import InputError, OutputError
from piexport.read.selection import SelectionError

from tests.support.sessions import REPO

CLI = REPO / "piexport" / "cli"


@pytest.mark.parametrize(
    ("error", "ending", "code"),
    [
        (InputError("a.jsonl: no session entries"), UsageProblem, EXIT_USAGE),
        (SelectionError("a.jsonl: no entry with id 'x'"), UsageProblem, EXIT_USAGE),
        (OutputError("out: cannot write"), RunFailed, EXIT_FAILED),
    ],
)
def test_library_errors_map_to_one_ending_each(
    error: Exception, ending: type[click.ClickException], code: int
) -> None:
    made = failure(error)
    assert type(made) is ending and made.exit_code == code
    assert made.message == str(error)
    assert failure(error, "shown instead").message == "shown instead"


def _shown(error: click.ClickException) -> str:
    out = io.StringIO()
    error.show(out)
    return out.getvalue()


def test_an_ending_says_its_message_once_or_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert _shown(RunFailed("3 warning(s) and --strict")) == "Error: 3 warning(s) and --strict\n"
    assert _shown(RunFailed()) == ""  # the command said what failed already
    Interrupted("stopped").show()
    assert capsys.readouterr().err == "stopped\n"
    assert Interrupted("stopped").exit_code == EXIT_INTERRUPTED == 130


def _commands() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for path in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "command"
                for d in node.decorator_list
            ):
                found.append((path.name, node))
    return found


def test_every_command_is_found() -> None:
    from piexport.cli import cli

    assert {node.name for _, node in _commands()} == {
        c.callback.__name__ for c in cli.commands.values() if c.callback is not None
    }


def test_no_command_exits_by_itself() -> None:
    """Exit codes come from ``cli.errors`` only: no SystemExit, no sys.exit in the CLI."""
    for path in sorted(CLI.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        calls = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert "SystemExit" not in names and "exit" not in calls, path.name


MAX_BODY = 25
"""Lines of a command's body (its docstring aside): options mapped to library calls."""


def test_command_bodies_stay_thin() -> None:
    for name, node in _commands():
        body = node.body
        if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        assert node.end_lineno is not None
        lines = node.end_lineno - body[0].lineno + 1
        assert lines <= MAX_BODY, f"{name}: {node.name} is {lines} lines"


STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_render_says_an_unusable_file_the_same_way_in_every_format(
    tmp_path: Path, fmt: str
) -> None:
    """A page used to print the loader's error as it was; Markdown and JSON made it safe
    for a terminal and redacted it. Every format now says it as the others do."""
    from click.testing import CliRunner

    from piexport.cli import cli

    bad = tmp_path / f"leak-{STRIPE}-\x1b[2J.jsonl"
    bad.write_text("not json at all\n", encoding="utf-8")
    out = tmp_path / f"page.{fmt}"
    args = ["render", str(bad), "--format", fmt, "-o", str(out), "--redact"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == EXIT_USAGE, result.output
    assert result.stderr.startswith("Error: ") and "leak-" in result.stderr
    assert STRIPE not in result.stderr and "\x1b" not in result.stderr
    assert not out.exists()

"""Every command's error paths: a missing, unreadable or wrong-kind input, and an unusable
output path, each end with one line on stderr naming the path and the documented exit code
(README: 2 for unusable input), never a traceback; ``render -o FOLDER`` writes into it."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.cli.errors import EXIT_OK, EXIT_USAGE

from tests.support.sessions import SAMPLES

SESSION = sorted(SAMPLES.glob("*/*.jsonl"))[0]

ARGS = {
    "render": ["render", "{input}", "-o", "{out}/page.html"],
    "summary": ["summary", "{input}"],
    "context": ["context", "{input}"],
    "tree": ["tree", "{input}"],
    "info": ["info", "{input}"],
    "branches": ["branches", "{input}"],
    "files": ["files", "{input}"],
    "compare": ["compare", "{input}", "a", "b"],
    "share": ["share", "{input}"],
    "site": ["site", "{input}", "-o", "{out}/site"],
    "serve": ["serve", "{input}", "-o", "{out}/site", "--port", "0"],
    "usage": ["usage", "{input}"],
    "list": ["list", "{input}"],
    "search": ["search", "anything", "{input}"],
}
"""How each command that reads an input is given one (``shares`` reads none)."""
FOLDER_ROOTS = {"site", "serve", "usage", "list", "search"}
"""Commands whose input may be a folder (of sessions)."""


def test_every_command_is_walked() -> None:
    assert set(ARGS) | {"shares"} == set(cli.commands)


def _inputs(tmp: Path) -> dict[str, tuple[Path, str]]:
    """Each bad input, and what the line says about it."""
    (tmp / "folder.jsonl").mkdir()
    (tmp / "loop.jsonl").symlink_to(tmp / "loop.jsonl")  # unreadable, for root too
    (tmp / "other.jsonl").write_text('{"level": "info", "msg": "a log"}\n{"level": "warn"}\n')
    (tmp / "empty.jsonl").write_text("")
    return {
        "missing": (tmp / "nope.jsonl", "no such "),
        "folder": (tmp / "folder.jsonl", "is a folder"),
        "symlink-loop": (tmp / "loop.jsonl", ""),
        "not-pi": (tmp / "other.jsonl", "not a pi session file"),
        "empty": (tmp / "empty.jsonl", "the file is empty"),
    }


def _one_line_exit_2(result: object, *names: str) -> None:
    code, err, out = result.exit_code, result.stderr, result.stdout  # type: ignore[attr-defined]
    assert code == EXIT_USAGE, (code, err)
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "Usage:" not in err
    for name in names:
        assert name.lower() in lines[0].lower(), (name, lines[0])
    assert out == ""


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        (command, kind)
        for command in sorted(ARGS)
        for kind in ("missing", "folder", "symlink-loop", "not-pi", "empty")
        if not (kind == "folder" and command in FOLDER_ROOTS)  # a folder is their input
    ],
)
def test_bad_input_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, command: str, kind: str
) -> None:
    path, says = _inputs(tmp_path)[kind]
    argv = [a.format(input=path, out=tmp_path) for a in ARGS[command]]
    result = CliRunner().invoke(cli, argv)
    _one_line_exit_2(result, path.name, says)
    if command == "render":
        assert not (tmp_path / "page.html").exists()


@pytest.mark.parametrize("command", sorted(ARGS))
def test_a_file_without_read_permission(
    tmp_path: Path, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "locked.jsonl"
    path.write_bytes(SESSION.read_bytes())
    path.chmod(0)
    # root reads a file whatever its mode (CI runs as root): opening it is refused as the
    # kernel refuses anyone else, so the test means the same for every user
    real_open = Path.open

    def refusing_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name == path.name:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refusing_open)
    argv = [a.format(input=path, out=tmp_path) for a in ARGS[command]]
    _one_line_exit_2(CliRunner().invoke(cli, argv), path.name, "cannot read")


@pytest.mark.parametrize(
    "argv",
    [
        ["render", "{session}", "-o", "{file}/page.html"],
        ["render", "{session}", "-o", "{file}/deeper/page.md", "--format", "md"],
        ["site", "{sessions}", "-o", "{file}/site"],
        ["site", "{sessions}", "-o", "{file}"],
        ["serve", "{sessions}", "-o", "{file}/site", "--port", "0"],
    ],
    ids=["render-under-file", "render-deeper", "site-under-file", "site-is-file", "serve"],
)
def test_an_unusable_output_path_is_one_line_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    """``site -o`` under a regular file ended in a NotADirectoryError traceback and
    ``render -o`` said "File exists"."""
    file = tmp_path / "a-file"
    file.write_text("not a folder")
    args = [a.format(session=SESSION, sessions=SAMPLES, file=file) for a in argv]
    _one_line_exit_2(CliRunner().invoke(cli, args), str(file), "is a file")
    assert file.read_text() == "not a folder"


@pytest.mark.parametrize("fmt", ["html", "md", "json"])
def test_render_into_an_existing_folder_writes_in_it(tmp_path: Path, fmt: str) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    result = CliRunner().invoke(cli, ["render", str(SESSION), "-o", str(folder), "--format", fmt])
    assert result.exit_code == EXIT_OK, result.stderr
    written = folder / f"{SESSION.stem}.{fmt}"
    assert written.is_file() and written.stat().st_size > 0
    assert list(folder.iterdir()) == [written]


def test_a_jsonl_that_is_not_a_session_never_gets_a_page(tmp_path: Path) -> None:
    """It got a page showing Python's ``None``, and exit 0."""
    other = tmp_path / "events.jsonl"
    other.write_text('{"event": "start", "ts": 1}\n{"event": "stop", "ts": 2}\n')
    result = CliRunner().invoke(cli, ["render", str(other), "-o", str(tmp_path / "p.html")])
    _one_line_exit_2(result, "events.jsonl", "not a pi session file")
    assert not (tmp_path / "p.html").exists()
    # in a folder of sessions, such a file is one failed session among the others (exit 1)
    root = tmp_path / "root"
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "good.jsonl").write_bytes(SESSION.read_bytes())
    (root / "proj" / "events.jsonl").write_bytes(other.read_bytes())
    site = CliRunner().invoke(cli, ["site", str(root), "-o", str(tmp_path / "site"), "-j", "1"])
    assert site.exit_code == 1 and "not a pi session file" in site.stderr
    assert "Traceback" not in site.stderr

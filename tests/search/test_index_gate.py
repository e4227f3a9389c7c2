"""The search index under ``--redact``: a row's terms are a bag of words, read by the output
gate one word at a time, so two neighbours there never read as an assignment no text holds
(a whole session's search part was refused for "password" beside a build id)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport.cli import cli

from tests.support.sessions import MakeSession, msg

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.mark.parametrize(
    "text",
    [
        "password\n\nab12cd34ef is the build",
        "Token\n\nrotated: 9f8e7d6c5b4a, see the runbook",
        "API_KEY\n\nQdga_NjLgzRbe was the old name of the module",
    ],
)
def test_terms_beside_a_secret_word_are_no_secret(
    make_session: MakeSession, tmp_path: Path, text: str
) -> None:
    root = tmp_path / "sessions" / "--w--"
    root.mkdir(parents=True)
    path = make_session([msg("u1", None, "user", text, 1)])
    (root / path.name).write_bytes(path.read_bytes())
    out = tmp_path / "site"
    result = CliRunner().invoke(
        cli, ["site", str(root.parent), "--redact", "-o", str(out), "-j", "1"]
    )
    assert result.exit_code == 0, result.stderr
    assert "refused" not in result.stderr and "failed" not in result.stderr.split("→")[0].replace(
        "0 failed", ""
    )
    assert list((out / "search" / "d").glob("*.js"))  # the session is searchable


def test_a_secret_in_the_terms_is_still_caught(make_session: MakeSession, tmp_path: Path) -> None:
    """Words one at a time still hold a token: the gate reads each, and the redactor has
    replaced it before the terms were made, so nothing of it is in the index."""
    root = tmp_path / "sessions" / "--w--"
    root.mkdir(parents=True)
    path = make_session([msg("u1", None, "user", f"use {GHP} for the release", 1)])
    (root / path.name).write_bytes(path.read_bytes())
    out = tmp_path / "site"
    result = CliRunner().invoke(
        cli, ["site", str(root.parent), "--redact", "-o", str(out), "-j", "1"]
    )
    assert result.exit_code == 0, result.stderr
    written = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert GHP not in written and GHP.lower() not in written

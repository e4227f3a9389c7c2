"""Redaction, one example per known failure (issue 27): the text an output derives (tree
rows, previews, joined lines, cuts, titles, tool-call summaries) is redacted where it is
made, so no page is refused for a secret the redactor could have rewritten, and every output
with session text takes --redact and passes the gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport.cli import cli

from tests.support.sessions import msg, tool_result, ts

STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
GHP = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AWS = "AKIAIOSFODNN7EXAMPL2"
ANTHROPIC = "sk-ant-api03-" + "Qx7" * 31 + "AA"


def bash_calls(commands: list[str]) -> list[Any]:
    """A user message, then one bash call (and its result) per command."""
    records: list[Any] = [msg("u1", None, "user", "run it", 1)]
    parent = "u1"
    for i, command in enumerate(commands):
        call = {
            "type": "toolCall",
            "id": f"c{i}",
            "name": "bash",
            "arguments": {"command": command},
        }
        records.append(msg(f"a{i}", parent, "assistant", [call], 2 + 2 * i, stopReason="toolUse"))
        records.append(tool_result(f"r{i}", f"a{i}", "ok", 3 + 2 * i, f"c{i}", "bash"))
        parent = f"r{i}"
    return records


def render_all(runner: CliRunner, path: Path, tmp_path: Path) -> dict[str, str]:
    """html, md and json with --redact: each must be written (exit 0)."""
    out = {}
    for fmt in ("html", "md", "json"):
        target = tmp_path / f"{path.stem}.{fmt}"
        result = runner.invoke(
            cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(target)]
        )
        assert result.exit_code == 0, (fmt, result.output)
        out[fmt] = target.read_text()
    return out


def test_an_export_cut_short_in_a_tool_call_summary_is_written(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    """The bash summary cuts the command inside the token that replaced the key: the token
    is kept whole, and the row is read again as the line it is."""
    path = make_session(
        bash_calls([f"cd /srv/app && export SERVICE_API_KEY={STRIPE} && ./start.sh"])
    )
    pages = render_all(runner, path, tmp_path)
    for fmt, page in pages.items():
        assert STRIPE not in page, fmt
    assert "SERVICE_API_KEY=[REDACTED:stripe-key:" in pages["html"]


def test_an_empty_value_joined_with_the_next_line_is_written(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    """A preview joins ``CLIENT_SECRET=`` with the next line: what it shows is read again."""
    env = "CLIENT_SECRET=\nCLIENT_ID=my-public-client-id\n"
    path = make_session([msg("u1", None, "user", env, 1), msg("a1", "u1", "assistant", env, 2)])
    pages = render_all(runner, path, tmp_path)
    assert "CLIENT_SECRET=\nCLIENT_ID=my-public-client-id" in pages["md"]  # the text, as it is


def test_command_line_forms_cut_in_summaries_are_written(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    secrets = ["Hunter2Secret9", "Xy12pass99", "abcdEFGH1234ijkl", "Pa55word!"]
    commands = [
        f"mysql --password={secrets[0]} -h db.internal shop",
        f"curl -d 'user=admin&password={secrets[1]}' https://shop.example.com/login",
        f"curl 'https://api.example.com/v1/items?page=2&access_token={secrets[2]}'",
        f"sshpass -p '{secrets[3]}' ssh deploy@10.0.0.5 uptime",
    ]
    path = make_session(bash_calls(commands))
    pages = render_all(runner, path, tmp_path)
    for fmt, page in pages.items():
        for secret in secrets:
            assert secret not in page, (fmt, secret)


def _label(target: str, text: str, second: int) -> dict[str, Any]:
    return {
        "type": "label",
        "id": f"l{second}",
        "parentId": target,
        "timestamp": ts(second),
        "targetId": target,
        "label": text,
    }


AWS_SECRET = "wJalrXUtnFEMIK7MDENG/bPxRfiCYEXAMPLEKEY"[:36] + "Ab+9"


@pytest.mark.parametrize(
    ("shown", "secret"),
    [
        # the last 4 characters of a 40-character key URL-encoded: the gate decodes them
        (f"aws_secret_access_key = {AWS_SECRET[:36]}%41%62%2B%39", AWS_SECRET[:36]),
        # a key cut short, in a sentence (no config line): named as an AWS secret, it is one
        (f"ok aws_secret_access_key = {AWS_SECRET[:36]} then", AWS_SECRET[:36]),
        (f"set AWS_SECRET_ACCESS_KEY: {AWS_SECRET[:30]}, then", AWS_SECRET[:30]),
        (
            "token gh%70_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
            "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
        ),
        # a terminal colour inside a key: a page draws it, a Markdown fence drops it
        (f"ok {GHP[:12]}\x1b[31m{GHP[12:]}\x1b[0m", GHP[12:]),
        (f"{AWS[:8]}\x1b[1m{AWS[8:]}", AWS[8:]),
    ],
)
def test_what_the_gate_reads_the_redactor_reads(
    runner: CliRunner, tmp_path: Path, make_session: Any, shown: str, secret: str
) -> None:
    """The gate reads text as outputs show it (URL-decoded, without terminal escapes); the
    redactor reads it the same way, so the pages are written and no JSON keeps the secret."""
    path = make_session(
        [
            msg("u1", None, "user", "hi", 1),
            _label("u1", shown, 2),
            msg("a1", "l2", "assistant", [{"type": "text", "text": shown}], 3),
            *bash_calls([f"echo '{shown}'"])[1:],
        ]
    )
    pages = render_all(runner, path, tmp_path)
    for fmt, page in pages.items():
        assert secret not in page, fmt
    assert secret not in json.loads(pages["json"])["labels"]["u1"]


def test_a_label_is_not_read_as_the_key_of_the_row_beside_it(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    """``PASSWORD:`` as a label, next to ``user: hi`` in the navigator: two things, not a
    password. The page is written and says both as they are."""
    path = make_session([msg("u1", None, "user", "hi", 1), _label("u1", "PASSWORD:", 2)])
    pages = render_all(runner, path, tmp_path)
    assert '>PASSWORD:</span> <span class="t">user: hi<' in pages["html"]


def _keys_session(root: Path) -> Path:
    """A session with a GitHub, an AWS and an Anthropic key in its cwd, messages, a written
    file's path and content, a label and a second branch (for compare)."""
    from tests.support.sessions import HEADER, to_lines

    folder = root / "--srv-app--"
    folder.mkdir(parents=True)
    path = folder / "2025-01-01T10-00-00-000Z_keys.jsonl"
    write = {
        "type": "toolCall",
        "id": "c1",
        "name": "write",
        "arguments": {"path": f"/srv/{AWS}/deploy.env", "content": f"KEY={ANTHROPIC}\n"},
    }
    records = [
        {**HEADER, "cwd": f"/srv/{GHP}/app"},
        msg("u1", None, "user", f"deploy with {GHP} and {AWS}", 1, provider="x"),
        msg("a1", "u1", "assistant", [write], 2, stopReason="toolUse", model=f"m-{AWS}"),
        tool_result("r1", "a1", f"wrote {ANTHROPIC}", 3, "c1", "write"),
        msg("a2", "r1", "assistant", f"done: {GHP}", 4),
        msg("u2", "u1", "user", f"other try with {AWS}", 5),
        msg("a3", "u2", "assistant", f"ok {ANTHROPIC}", 6),
        _label("a2", f"release {GHP}", 7),
    ]
    path.write_bytes(to_lines(records))
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "{file}", "a3", "l7"],
        ["compare", "{file}", "a3", "l7", "--format", "json"],
        ["branches", "{file}"],
        ["branches", "{file}", "--format", "json"],
        ["files", "{file}"],
        ["files", "{file}", "--format", "json"],
        ["info", "{file}"],
        ["info", "{file}", "--json"],
        ["tree", "{file}"],
        ["context", "{file}"],
        ["summary", "{file}"],
        ["summary", "{file}", "--format", "json"],
        ["usage", "{root}", "--by", "model"],
        ["usage", "{root}", "--by", "model", "--format", "json"],
        ["usage", "{root}", "--by", "project", "--format", "csv"],
        ["search", "deploy", "{root}"],
        ["search", "deploy", "{root}", "--format", "json"],
    ],
    ids=lambda a: "-".join(x for x in a if not x.startswith("{")),
)
def test_every_command_takes_redact(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    """Every command that prints session text has --redact: none of the keys is printed
    (stdout or stderr), and the output is printed (no refusal)."""
    root = tmp_path / "sessions"
    path = _keys_session(root)
    argv = [a.format(file=path, root=root) for a in args]
    plain = runner.invoke(cli, argv)
    assert any(k in plain.output for k in (GHP, AWS, ANTHROPIC)), plain.output  # shown without
    result = runner.invoke(cli, [*argv, "--redact"])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip()
    for key in (GHP, AWS, ANTHROPIC):
        assert key not in result.output and key not in result.stderr, (key, result.output)

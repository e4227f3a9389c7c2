"""One gate unit per printed line (issue 35): a line an output composes from several values
(a diagnostics summary, a title chip beside its title, a dangling target beside "(not in
the file)") is redacted as the one text its reader reads, so the output gate, which reads
that line, never refuses a page for a ``KEY: value`` neither value is.

Hypothesis puts random values side by side in every composed line (halves of keys and
values, error codes and their messages, build ids, timestamps, words) and runs every output
with ``--redact``: none may be refused."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from piexport.cli import cli

from tests.support.sessions import HEADER, msg, to_lines, ts

KEYS = [
    "INVALID_API_KEY",
    "EXPIRED_TOKEN",
    "invalid_api_key",
    "TOKEN_EXPIRED",
    "API_KEY_INVALID",
    "authentication_error",
    "PASSWORD",
    "TOKEN:",
    "deploy TOKEN:",
    "api_key=",
    "db.password",
    "secret:",
    "password =",
    "Authorization:",
    "--password",
    "export API_KEY=",
]
"""What ends a piece: the names of error codes, and keys with and without a separator."""
VALUES = [
    "req_01HX9: the key was rejected",
    "2026-11-27T10:00:00Z",
    "20261127-build-7f3a9 deploy the shop",
    "(not in the file)",
    "Xk9-q2mZ7tV4",
    "s3cr3t-Value!",
    "1234567",
    "token expired at 2026-11-27T10:00:00Z",
    "API key not valid. Please pass a valid API key.",
    "hunter2",
]
"""What starts a piece: messages, ids, times, and things shaped like values."""
WORD = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:=. ", max_size=24)
HALF = st.one_of(st.sampled_from(KEYS), st.sampled_from(VALUES), WORD)
ONE_LINE = HALF.map(lambda s: " ".join(s.split()) or "x")


def session(chip: str, title: str, errors: list[tuple[str, str]], target: str, label: str) -> bytes:
    """A session whose every composed line holds the given pieces side by side."""
    diagnostics = [{"type": "retry", "error": {"name": n, "message": m}} for n, m in errors]
    records: list[Any] = [
        {**HEADER},
        msg("u1", None, "user", f'<skill name="{chip}">Deploy it.</skill>\n{title}', 1),
        msg(
            "a1",
            "u1",
            "assistant",
            [{"type": "text", "text": "Done."}],
            2,
            stopReason="stop",
            diagnostics=diagnostics,
        ),
        {
            "type": "context_edit",
            "id": "ce1",
            "parentId": "a1",
            "timestamp": ts(3),
            "targetId": target,
            "replacement": {"content": "(elided)"},
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "ce1",
            "timestamp": ts(4),
            "targetId": target,
            "label": label,
        },
    ]
    return to_lines(records)


def refusals(data: bytes) -> list[str]:
    """Every output of ``render --redact`` and ``site --redact`` of the session: those
    refused (nothing else is looked at)."""
    runner = CliRunner()
    refused = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions" / "--home-alice-demo--"
        root.mkdir(parents=True)
        path = root / "2025-01-01T10-00-00-000Z_s.jsonl"
        path.write_bytes(data)
        for fmt in ("html", "md", "json"):
            out = Path(tmp) / f"s.{fmt}"
            argv = ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
            result = runner.invoke(cli, argv)
            if result.exit_code != 0:
                refused.append(f"{fmt}: {result.output}")
        for argv in (["summary", "--redact", str(path)], ["info", "--redact", str(path)]):
            result = runner.invoke(cli, argv)
            if result.exit_code != 0:
                refused.append(f"{argv[0]}: {result.output}")
        result = runner.invoke(
            cli, ["site", str(Path(tmp) / "sessions"), "-o", str(Path(tmp) / "site"), "--redact"]
        )
        if result.exit_code != 0:
            refused.append(f"site: {result.output}")
    return refused


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    chip=ONE_LINE,
    title=ONE_LINE,
    errors=st.lists(st.tuples(HALF, HALF), min_size=1, max_size=3),
    target=st.sampled_from([k.replace(" ", "") for k in KEYS]),
    label=ONE_LINE,
)
def test_values_side_by_side_in_a_composed_line_are_never_refused(
    chip: str, title: str, errors: list[tuple[str, str]], target: str, label: str
) -> None:
    assert refusals(session(chip, title, errors, target, label)) == []


def test_the_issues_refused_pages_are_written() -> None:
    """The four shapes issue 35 found refused: an error code beside its message (six
    providers' codes), a title chip beside a title starting with a build id, a dangling
    context-edit target and a dangling label target beside "(not in the file)"."""
    errors = [
        ("INVALID_API_KEY", "req_01HX9: the key was rejected"),
        ("EXPIRED_TOKEN", "2026-11-27T10:00:00Z"),
        ("invalid_api_key", "Incorrect API key provided: sk-abc***xyz."),
    ]
    more = [
        ("API_KEY_INVALID", "API key not valid. Please pass a valid API key."),
        ("TOKEN_EXPIRED", "token expired at 2026-11-27T10:00:00Z"),
        ("authentication_error", "invalid x-api-key"),
    ]
    for group in (errors, more):
        data = session("deploy TOKEN:", "20261127-build-7f3a9 ship it", group, "TOKEN:", "v2")
        assert refusals(data) == []

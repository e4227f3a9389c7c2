"""JSON outputs hold no raw C1 control and no bidi or invisible character (issue 27).

JSON writers leave U+009B (a terminal's CSI), bidi controls and characters that draw as
nothing raw inside strings: printed to a terminal or opened in an editor they act or hide.
Every JSON output writes them as ``\\u`` escapes, the same JSON to any reader.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.read.jsonutil import output_json

from tests.support.sessions import HEADER, MakeSession, msg

HIDDEN = "\x9b31m\x85\x7f\u202e\u2066\u2069\u200b\u200d\u2060\ufeff\u2028\u3164\U000e0041\u034f\xad"
RAW = re.compile(
    "[\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)


def test_output_json_escapes_them_and_reads_back_the_same() -> None:
    value = {"k" + HIDDEN: [HIDDEN, {"deep": "a" + HIDDEN}], "n": 10**30, "emoji": "\u2764\ufe0f"}
    for indent in (True, False):
        text = output_json(value, indent=indent)
        assert not RAW.search(text), text
        assert json.loads(text) == value
        assert "\\u009b" in text and "\\u202e" in text and "\\udb40\\udc41" in text


def hidden_session(make_session: MakeSession) -> Path:
    call = {
        "type": "toolCall",
        "id": "t1",
        "name": "edit",
        "arguments": {"path": f"/src/a{HIDDEN}.py", "edits": [{"oldText": "a", "newText": "b"}]},
    }
    return make_session(
        [
            msg("u1", None, "user", f"ask {HIDDEN} coupon", 1),
            msg(
                "a1",
                "u1",
                "assistant",
                [{"type": "text", "text": f"answer {HIDDEN}"}, call],
                2,
                provider=f"p{HIDDEN}",
                model=f"m{HIDDEN}",
                stopReason="toolUse",
            ),
            msg("u2", "u1", "user", f"other {HIDDEN}", 3),
        ],
        header={**HEADER, "cwd": f"/home/x{HIDDEN}"},
        name="hidden.jsonl",
    )


@pytest.mark.parametrize(
    "args",
    [
        ["render", "{f}", "--format", "json", "-o", "-"],
        ["summary", "{f}", "--format", "json"],
        ["info", "{f}", "--json"],
        ["context", "{f}"],
        ["branches", "{f}", "--format", "json"],
        ["files", "{f}", "--format", "json"],
        ["compare", "{f}", "a1", "u2", "--format", "json"],
        ["usage", "{d}", "--format", "json", "--by", "model"],
        ["search", "coupon", "{d}", "--format", "json"],
    ],
    ids=lambda a: a[0],
)
def test_every_json_output_escapes_them(make_session: MakeSession, args: list[str]) -> None:
    path = hidden_session(make_session)
    argv = [a.format(f=path, d=path.parent) for a in args]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code in (0, 1), result.output
    out = result.stdout
    assert not RAW.search(out), repr(RAW.search(out))
    assert "\\u202e" in out, out[:500]  # written, escaped, not dropped
    orjson.loads(out)

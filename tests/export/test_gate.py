"""The output gate as one object (``export.gate.Gate``): what every writer asks before session
text leaves. It refuses what the rules still find, read as the output's reader reads it, and
names the rules and the place, never the secret."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from piexport import load_session
from piexport.export.gate import Gate
from piexport.redact.engine import Redactor
from piexport.redact.rules import RedactionError

from tests.support.sessions import msg, to_lines

STRIPE = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"


def test_without_a_redactor_every_output_passes(tmp_path: Path) -> None:
    gate = Gate()
    assert not gate.redacting
    gate.check(f"key {STRIPE}", "out.txt", "text")
    page = tmp_path / "p.html"
    page.write_text(f"<p>{STRIPE}</p>", encoding="utf-8")
    gate.check_file(page)


def test_a_secret_left_is_refused_by_rule_never_shown() -> None:
    gate = Gate(Redactor.create())
    assert gate.redacting
    with pytest.raises(RedactionError) as caught:
        gate.check(f"key {STRIPE}\n", "summary", "text")
    message = str(caught.value)
    assert message.startswith("summary: not written: the redacted output still matches ")
    assert "stripe" in message and STRIPE not in message
    gate.check("nothing secret here\n", "summary", "text")


def test_the_output_is_read_as_its_reader_reads_it() -> None:
    """In JSON, ``\\u005f`` is an underscore: the gate reads JSON strings decoded when told
    the output is JSON, and the text as it is when told it is for a terminal."""
    escaped = '{"k": "' + STRIPE.replace("_", "\\u005f") + '"}'
    gate = Gate(Redactor.create())
    gate.check(escaped, "context", "text")
    with pytest.raises(RedactionError, match=r"^context: "):
        gate.check(escaped, "context", "json")


def test_a_written_file_is_checked_and_named(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(f'<a title="{STRIPE}">x</a>\n', encoding="utf-8")
    gate = Gate(Redactor.create(), workers=1)
    with pytest.raises(RedactionError, match=f"^{re.escape(str(page))}: not written"):
        gate.check_file(page)
    with pytest.raises(RedactionError, match=r"^out\.html: not written"):
        gate.check_file(page, "out.html")


def test_a_secret_in_an_id_is_located(tmp_path: Path) -> None:
    """Redaction never rewrites ids: the refusal says which entry holds one."""
    path = tmp_path / "s.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2025-01-01T10:00:00Z"}
    path.write_bytes(to_lines([header, msg(STRIPE, None, "user", "hello", 1)]))
    session = load_session(path)
    gate = Gate(Redactor.create())
    with pytest.raises(RedactionError, match=r"a secret is in an id.*line 2 \(id\)"):
        gate.check(f"id {STRIPE}", "tree", "text", session)

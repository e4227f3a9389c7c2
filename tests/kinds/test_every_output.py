"""Every entry type pi writes has a kind, and every kind reaches every output: the page,
Markdown, JSON, ``tree``, the search index and (where pi puts it) the model's context.

Generated from ``examples.py``: each kind's example carries unique markers in its own
fields, and the test adds an unknown field at the top and one nested (``message.x`` on a
message), which must show too (under "Other fields"). Entries of types and roles pi never
wrote show everything everywhere."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.kinds import BY_NAME, ENTRY_TYPES, KINDS
from piexport.read.loader import load_session
from piexport.read.model import KNOWN_ENTRY_TYPES
from piexport.search.records import session_records

from tests.kinds.examples import EXAMPLES
from tests.support.secrets import fake
from tests.support.sessions import HEADER, REPO, to_lines, ts

PI_ENTRY_TYPES = {
    # pi's session-format.md (pi 1.6.0 writes the same types as 1.5.2; docs/format.md#entries)
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    # pi 1.5
    "usage",
    "context_edit",
}
PI_ROLES = {
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
    "system",  # pi 1.5
}

TREE_SHOWS_NO_WORDS = {
    "compaction": "its token count",
    "system": "what the update changes",
    "custom_role": "its role",
    "branch_summary_role": "its role",
    "compaction_summary_role": "its role",
    "context_edit": "its target's id",
    "no_message": "that it has no message",
}
NOT_SEARCHED = {
    "custom": "an extension's state, never the conversation's words",
    "model_change": "the model of the records after it",
    "thinking_level_change": "a level, not words",
}
SHOWS_EVERYTHING = {"unknown", "unknown_role", "no_message"}


def test_every_entry_type_and_role_pi_writes_has_a_kind() -> None:
    assert PI_ENTRY_TYPES <= ENTRY_TYPES
    assert KNOWN_ENTRY_TYPES == PI_ENTRY_TYPES  # the loader's list of pi's types
    roles = {k.role for k in KINDS if k.type == "message"}
    assert roles >= PI_ROLES


def test_every_kind_has_an_example_and_a_macro() -> None:
    assert set(EXAMPLES) == set(BY_NAME)
    template = (REPO / "templates/macros/entries.html.j2").read_text(encoding="utf-8")
    macros = set(re.findall(r"\{% macro (\w+)\(", template))
    for kind in BY_NAME.values():
        assert kind.macro in macros, kind.name
        assert getattr(kind, "result_macro", "result_body") in macros, kind.name


def _session(name: str, folder: Path, secret: str = "") -> tuple[Path, list[str], str]:
    """The kind's example after a user message, with unknown fields added to its entry:
    the file, the markers in it, and the entry's id. With ``secret``, each marker is
    followed by it."""
    markers: list[str] = []

    def m(label: str) -> str:
        marker = f"zq{name.replace('_', '')}{label}zq"
        markers.append(marker)
        return f"{marker} {secret}" if secret and label != "head" else marker

    first = {"type": "message", "message": {"role": "user", "content": "start here"}}
    entries: list[dict[str, Any]] = [first, *EXAMPLES[name](m)]
    last = entries[-1]
    last["zqExtra"] = {"deep": [m("xtop")]}
    if isinstance(last.get("message"), dict):
        last["message"]["zqNested"] = {"deep": m("xmessage")}
    lines: list[Any] = [HEADER]
    for i, e in enumerate(entries):
        lines.append({"id": f"e{i}", "parentId": f"e{i - 1}" if i else None, "timestamp": ts(i)})
        lines[-1].update(e)
    path = folder / f"{name}.jsonl"
    path.write_bytes(to_lines(lines))
    return path, markers, f"e{len(entries) - 1}"


def _out(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_kind_reaches_every_output(name: str, tmp_path: Path) -> None:
    path, markers, eid = _session(name, tmp_path)
    page = _out("render", str(path), "-o", "-")
    markdown = _out("render", str(path), "--format", "md", "-o", "-")
    data = json.loads(_out("render", str(path), "--format", "json", "-o", "-"))
    tree = _out("tree", str(path), "--ids")
    for marker in markers:
        assert marker in page, ("page", marker)
        assert marker in markdown, ("markdown", marker)
        assert marker in json.dumps(data["entries"]), ("json", marker)
    head = f"zq{name.replace('_', '')}headzq"
    row = next(line for line in tree.splitlines() if line.startswith(f"{eid} "))
    if name not in TREE_SHOWS_NO_WORDS:
        assert head in row, tree
    records = session_records(load_session(path))
    searched = " ".join(r.text for r in records if r.entry_id == eid)
    if name in SHOWS_EVERYTHING:  # every value but its type or role (the head)
        assert all(marker in searched for marker in markers if marker != head), searched
    elif name not in NOT_SEARCHED:  # a result's words are its call's and its own
        searched = " ".join(r.text for r in records)
        assert any(marker in searched for marker in markers), searched
    context = json.dumps(data["context"])
    if BY_NAME[name].in_context:
        assert any(marker in context for marker in markers), context


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_kinds_fields_pass_the_redactor(name: str, tmp_path: Path) -> None:
    """Session content is hostile: a secret in any field of any kind (its own, an unknown
    one, a nested one) is redacted in every output, as every other text is."""
    planted, secret = fake("github-classic", len(name))
    path, _, _ = _session(name, tmp_path, planted)
    outputs = [
        _out("render", str(path), "--redact", "-o", "-"),
        _out("render", str(path), "--redact", "--format", "md", "-o", "-"),
        _out("render", str(path), "--redact", "--format", "json", "-o", "-"),
        _out("tree", str(path), "--redact", "--ids"),
    ]
    for out in outputs:
        assert secret not in out
    assert "REDACTED" in outputs[0] and "REDACTED" in outputs[1]

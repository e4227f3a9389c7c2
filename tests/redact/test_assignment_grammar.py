"""The assignment grammar (issue 35), tested as a class: every generated assignment (a
secret-like key, a separator of a common format, a value, what follows it, a layout) loses
its value to ``redact``, in text and through real outputs; the innocent near-misses are
never refused, and how many of them are redacted anyway is measured.

The cases are generated here (``tests.support.assignments``), never stored."""

from __future__ import annotations

import html
import itertools
import json
import random
import string
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piexport import Redactor
from piexport.cli import cli

from tests.support.assignments import KEYS, TRAILERS, grid, near_misses
from tests.support.sessions import HEADER, msg, to_lines, tool_result

GRID = list(grid())


def test_the_grid_is_big_and_covers_every_part() -> None:
    assert len(GRID) > 5000
    shapes = {c.shape.split("|")[0] for c in GRID}
    assert set(KEYS) <= shapes
    for fmt in ("xml", "netrc", "pgpass", "npmrc", "yaml-block", "dsn", "systemd", "cmd"):
        assert fmt in shapes


def test_no_value_of_the_grid_survives_redaction() -> None:
    r = Redactor.create()
    survived = [c for c in GRID if c.value in r.redact_text(c.text)]
    assert not survived, f"{len(survived)} of {len(GRID)}: " + "; ".join(
        c.shape for c in survived[:10]
    )


def _carried(text: str, where: str, i: int) -> list[Any]:
    """The text where agents meet it: a read result, bash output, a pasted message."""
    if where == "user":
        return [msg(f"u{i}", f"a{i - 1}" if i else None, "user", text, 4 * i)]
    tool = "read" if where == "read" else "bash"
    args = {"path": "config/app.env"} if tool == "read" else {"command": "cat .env"}
    call = {"type": "toolCall", "id": f"c{i}", "name": tool, "arguments": args}
    return [
        msg(f"u{i}", f"a{i - 1}" if i else None, "user", "show me the config", 4 * i),
        msg(f"t{i}", f"u{i}", "assistant", [call], 4 * i + 1, stopReason="toolUse"),
        tool_result(f"r{i}", f"t{i}", text, 4 * i + 2, f"c{i}", tool),
        msg(f"a{i}", f"r{i}", "assistant", [{"type": "text", "text": "Done."}], 4 * i + 3),
    ]


def _forms(value: str) -> set[str]:
    return {value, html.escape(value), json.dumps(value)[1:-1]}


def _every_output(records: list[Any]) -> tuple[dict[str, str], list[str]]:
    """(what each output wrote, the refused ones) of ``render --redact`` in every format,
    ``search --redact`` and ``site --redact`` (pages, indexes, search parts)."""
    runner = CliRunner()
    outputs: dict[str, str] = {}
    refused: list[str] = []
    ids = [r["id"] for r in records]
    for a, b in itertools.pairwise(records):  # one path: each entry's parent
        b["parentId"] = a["id"]
    assert len(set(ids)) == len(ids)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sessions"
        folder = root / "--home-alice-demo--"
        folder.mkdir(parents=True)
        path = folder / "2025-01-01T10-00-00-000Z_s.jsonl"
        path.write_bytes(to_lines([HEADER, *records]))
        for fmt in ("html", "md", "json"):
            out = Path(tmp) / f"s.{fmt}"
            result = runner.invoke(
                cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
            )
            if result.exit_code != 0:
                refused.append(f"render {fmt}: {result.output}")
            else:
                outputs[f"render {fmt}"] = out.read_text("utf-8")
        for words in ("config", "password"):
            result = runner.invoke(cli, ["search", words, str(root), "--redact"])
            outputs[f"search {words}"] = result.output
        site = Path(tmp) / "site"
        result = runner.invoke(cli, ["site", str(root), "-o", str(site), "--redact"])
        if result.exit_code != 0:
            refused.append(f"site: {result.output}")
        for f in site.rglob("*"):
            if f.is_file():
                outputs[str(f.relative_to(site))] = f.read_text("utf-8", "replace")
    return outputs, refused


def test_a_sample_of_the_grid_through_every_output() -> None:
    """A sample of the grid in read results, bash output and user messages: no value in
    any output (as written, HTML-escaped or JSON-escaped), and nothing refused."""
    rng = random.Random(35)
    sample = rng.sample(GRID, 60)
    records: list[Any] = []
    for i, case in enumerate(sample):
        records += _carried(case.text, ("read", "bash", "user")[i % 3], i)
    outputs, refused = _every_output(records)
    assert not refused, refused
    assert any(name.startswith("search/") for name in outputs)
    for case in sample:
        for form in _forms(case.value):
            for where, text in outputs.items():
                assert form not in text, f"{case.shape} in {where}"


def test_near_misses_are_never_refused_and_rarely_redacted() -> None:
    """Placeholders, references, numbers, names of keys, error codes beside messages and
    prose: no output refused; the count redacted anyway is measured (it is the figure the
    issue asks for) and kept at none for these."""
    r = Redactor.create()
    cases = list(near_misses())
    redacted = sorted({tpl for text, tpl in cases if r.redact_text(text) != text})
    assert redacted == [], f"{len(redacted)} of {len(set(t for _, t in cases))}: {redacted}"
    records: list[Any] = []
    for i, (text, _tpl) in enumerate(cases[::7]):
        records += _carried(text, ("read", "bash", "user")[i % 3], i)
    _outputs, refused = _every_output(records)
    assert not refused, refused


ALPHABET = string.ascii_letters + string.digits + "!@#%^&*()[]{};,.:|?+~-_/"


@st.composite
def assignments(draw: st.DrawFn) -> tuple[str, str]:
    """A key made of parts (a prefix, a secret word, a suffix, in one of the cases and
    spellings keys are written in), a form, a separator, a value, a trailer, a layout."""
    word = draw(
        st.sampled_from(
            [
                *("password", "passwd", "secret", "token", "api_key", "apikey", "access_key"),
                *("private_key", "client_secret", "auth_token", "passphrase", "credentials"),
            ]
        )
    )
    prefix = draw(st.sampled_from(["", "db_", "app.", "my-", "prod_", "SERVICE_", "x."]))
    suffix = draw(st.sampled_from(["", "_prod", ".value", "-2", "_main"]))
    case = draw(st.sampled_from([str.lower, str.upper, str.title, lambda s: s]))
    key = case(prefix + word + suffix)
    if draw(st.booleans()):
        key = draw(st.sampled_from(['"{}"', "'{}'", "export {}", "set {}", "$env:{}", "  {}"]))
        key = key.format(prefix + word + suffix)
    sep = draw(
        st.sampled_from(
            [
                *("=", " = ", ": ", " : ", " => ", " := ", "=" + " " * draw(st.integers(1, 12))),
                *("\t", ":\t", "=\\\n  ", ":\n    ", "=\n"),
            ]
        )
    )
    value = draw(st.text(ALPHABET, min_size=6, max_size=40))
    value = value[:3] + str(draw(st.integers(0, 9))) + value[3:]  # a digit: not a name
    value = draw(st.sampled_from(string.ascii_letters)) + value  # "//…", "#…" are comments
    quote = draw(st.sampled_from(["", '"', "'"]))
    trailer = draw(st.sampled_from(TRAILERS))
    before = draw(st.sampled_from(["", "HOST=db\n", "[db]\nhost = db\n", "db:\n  user: app\n"]))
    return f"{before}{key}{sep}{quote}{value}{quote}{trailer}\nport = 5432", value


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(assignments())
def test_generated_assignments_lose_their_value(case: tuple[str, str]) -> None:
    text, value = case
    assert value not in Redactor.create().redact_text(text)


def test_a_name_and_its_value_given_apart_in_structured_data() -> None:
    """Tool arguments holding ``{"name": "DB_PASSWORD", "value": …}`` (Kubernetes, ECS):
    the page shows them as one object, so the value is redacted with its name, and the
    page is written."""
    value = "Xk9aQ2mZ-7pLw"
    call = {
        "type": "toolCall",
        "id": "c1",
        "name": "deploy",
        "arguments": {"env": [{"name": "DB_PASSWORD", "value": value}, {"name": "USER"}]},
    }
    records = [
        msg("u1", None, "user", "deploy it", 1),
        msg("t1", "u1", "assistant", [call], 2, stopReason="toolUse"),
        tool_result("r1", "t1", "deployed", 3, "c1", "deploy"),
    ]
    outputs, refused = _every_output(records)
    assert not refused, refused
    for where, text in outputs.items():
        assert value not in text, where

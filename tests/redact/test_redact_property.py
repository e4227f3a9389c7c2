"""Hypothesis: secrets of every rule, planted in every field and every position an output
derives text from (previews, cuts near each limit, joined lines and blocks, labels, titles,
session names, cwd and paths, tool names, tool-call arguments), with shapes that are not
secrets beside them, rendered in every format with --redact: no secret in any output
(literal, HTML-escaped, JSON-escaped or URL-encoded, in files, file names, stdout or
stderr), and no output refused (the gate refuses only what redaction cannot rewrite, an
entry id, and no id here holds a secret).

Each example builds a session tree (two branches, so compare and branches have something to
say), then runs every output of the CLI on it: a site with its search index (every page,
index, search file and file name), render --format md and json, summary, compare, branches,
files, info, tree, context, usage and search. ``PIEXPORT_REDACT_EXAMPLES`` sets how many
examples run (default 12: about a minute on two cores).
"""

from __future__ import annotations

import html
import json
import os
import random
import re
import string
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from piexport import Redactor
from piexport.cli import cli
from piexport.redact.rules import builtin_rules

from tests.support.secrets import KINDS, fake
from tests.support.sessions import HEADER, msg, to_lines, tool_result, ts

EXAMPLES = int(os.environ.get("PIEXPORT_REDACT_EXAMPLES", "12"))

ALNUM = string.ascii_letters + string.digits


def _r(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def more(kind: str, seed: int) -> tuple[str, str]:
    """Canaries of the rules ``test_redact.fake`` has none of: (text, what must not show)."""
    rng = random.Random(f"{kind}:{seed}")
    if kind == "google-oauth":
        s = "GOCSPX-" + _r(rng, 28, ALNUM + "_-")
        return s, s
    if kind == "slack-webhook":
        s = "T" + _r(rng, 8) + "/B" + _r(rng, 8) + "/" + _r(rng, 24)
        return f"https://hooks.slack.com/services/{s}", s
    if kind == "slack-app":
        s = f"xapp-1-A{_r(rng, 10, string.ascii_uppercase)}-{rng.randrange(10**12, 10**13)}-"
        s += _r(rng, 64, "abcdef0123456789")
        return s, s
    if kind == "pypi":
        s = "pypi-AgEIcHlwaS5vcmc" + _r(rng, 60, ALNUM + "_-")
        return s, s
    if kind == "sendgrid":
        s = "SG." + _r(rng, 22, ALNUM + "_-") + "." + _r(rng, 43, ALNUM + "_-")
        return s, s
    if kind == "digitalocean":
        s = "dop_v1_" + _r(rng, 64, "abcdef0123456789")
        return s, s
    if kind == "gitlab-runner":
        s = "GR1348941" + _r(rng, 20, ALNUM + "_-")
        return s, s
    if kind == "openai-legacy":
        s = "sk-" + _r(rng, 48)
        return s, s
    if kind == "stripe-webhook":
        s = "whsec_" + _r(rng, 32)
        return s, s
    if kind == "api-key-header":
        s = _r(rng, 32)
        return f"curl -H 'X-Api-Key: {s}' https://api.example.com", s
    if kind == "set-cookie":
        s = _r(rng, 40, "abcdef0123456789")
        return f"Set-Cookie: session={s}; Path=/; HttpOnly", s
    if kind == "redis-cli":
        s = _r(rng, 16) + "7"
        return f"redis-cli -h cache.internal -a {s} ping", s
    if kind == "url-encoded":  # a key whose characters are %xx in a link
        s = "ghp_" + _r(rng, 36)
        encoded = "".join(f"%{ord(c):02X}" if i % 3 == 0 else c for i, c in enumerate(s))
        return f"https://example.com/cb?state={encoded}&x=1", s[4:]
    if kind == "ansi-split":  # a terminal colour inside a key
        s = "ghp_" + _r(rng, 36)
        return f"{s[:14]}\x1b[1;31m{s[14:]}\x1b[0m", s[14:]
    raise AssertionError(kind)


MORE = [
    "google-oauth",
    "slack-webhook",
    "slack-app",
    "pypi",
    "sendgrid",
    "digitalocean",
    "gitlab-runner",
    "openai-legacy",
    "stripe-webhook",
    "api-key-header",
    "set-cookie",
    "redis-cli",
    "url-encoded",
    "ansi-split",
]
SECRET_KINDS = [*KINDS, *MORE]


REDACTOR = Redactor.create()

LINE_SHAPED = {"private-key", "config-line"}
"""Kinds that are secrets only as whole lines (a config value is the rest of its line) or
over several (a PEM block): planted in multi-line fields only."""


def canary(kind: str, seed: int) -> tuple[str, str]:
    return more(kind, seed) if kind in MORE else fake(kind, seed)


BENIGN = [
    # shapes that are not secrets, which a derived text (a preview joining lines, a cut, a
    # row beside a label) could make read as one: none may make an output refused
    "CLIENT_SECRET=\nCLIENT_ID=my-public-client-id",
    "API_TOKEN=\n  next: 1",
    "PASSWORD:",
    "DB_PASSWORD=",
    "password: ",
    "export API_KEY=YOUR_API_KEY_HERE && ./run.sh",
    "export OPENAI_API_KEY=$OPENAI_API_KEY",
    "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    "Authorization:\nBearer tokens are short-lived",
    "Authorization: Bearer <token>",
    "--password\n--verbose",
    "curl 'https://api.example.com/v1?access_token=",
    "mysql -u root -p",
    '{"password":',
    '"hunter2-Horse-Battery"',
    "token: see docs",
    "the password must be at least 12 characters long",
    "x" * 30,
]

# where text goes, and the limits derived text is cut at (for padding near them)
MULTI_LINE = [
    "user",
    "user-blocks",
    "assistant",
    "thinking",
    "bash-command",
    "tool-args",
    "write-content",
    "edit",
    "tool-output",
    "bash-output",
    "custom-message",
    "compaction",
    "branch-summary",
    "other-branch",
    "system-prompt",
    "tool-description",
    "nested-call",
    "context-edit",
]
ONE_LINE = [
    "session-name",
    "label",
    "cwd",
    "read-path",
    "tool-name",
    "model",
    "file-name",
    "usage-note",
]
POSITIONS = MULTI_LINE + ONE_LINE
FILLER = "deploy the shop to staging then check " * 20
LIMITS = [40, 50, 53, 67, 70, 80, 100, 160, 200, 300, 400, 600]
"""Where outputs cut: tool-call JSON 40, bash summary 50/53, Jinja-style cuts 67/70, error
rows 80, titles 100, branch lines 160, rows 200, site titles 300, summaries 400/600."""


@dataclass
class Planting:
    position: str
    text: str
    secret: str | None
    """What must not appear in any output (None: a shape that is no secret)."""
    kind: str


@dataclass
class Example:
    plantings: list[Planting] = field(default_factory=list)

    def at(self, position: str) -> list[str]:
        return [p.text for p in self.plantings if p.position == position]

    def secrets(self) -> dict[str, str]:
        return {p.secret: p.kind for p in self.plantings if p.secret}


@st.composite
def examples(draw: st.DrawFn) -> Example:
    ex = Example()
    seed = draw(st.integers(0, 10**6))
    for i in range(draw(st.integers(4, 12))):
        position = draw(st.sampled_from(POSITIONS))
        benign = draw(st.booleans()) and draw(st.booleans())
        if benign:
            text, secret, kind = draw(st.sampled_from(BENIGN)), None, "benign"
        else:
            kind = draw(st.sampled_from(SECRET_KINDS))
            text, secret = canary(kind, seed + i)
        if position in ONE_LINE:
            if kind in LINE_SHAPED:
                continue  # a secret only as a whole line, or over several
            text = " ".join(text.split())
            if position == "file-name":
                text = text.replace("/", "_")[:120]
            if secret is not None and secret in REDACTOR.redact_text(text, count=False):
                secret, kind = None, "benign"  # made one line, it is no secret by the rules
        # the text starts near a limit where an output cuts, or after a few words
        pad = draw(st.sampled_from([0, 3, *(n + d for n in LIMITS for d in (-6, -2, 0, 3))]))
        # (a space before it: a key glued to the word before is not a key)
        filler = FILLER[: pad - 1] + " " if pad else ""
        ex.plantings.append(Planting(position, filler + text, secret, kind))
    return ex


def session_records(ex: Example) -> tuple[dict[str, Any], list[Any]]:
    """A header and a tree: a system prompt, u1 → a1 (tool calls) → results → a2, and
    u2 → a3 from u1; the kinds of entry pi 1.5 added (a system prompt with sections and
    tools, nested tool calls, a usage entry, a context edit) among them."""

    def joined(position: str, default: str = "") -> str:
        found = ex.at(position)
        return "\n".join(found) if found else default

    def one(position: str, default: str) -> str:
        found = ex.at(position)
        return " / ".join(found) if found else default

    header = {**HEADER, "cwd": "/home/alice/" + one("cwd", "demo")}
    blocks = ex.at("user-blocks")
    user_content: Any = joined("user", "Deploy the shop, please.")
    if blocks:  # a text split across two blocks: joined in titles and Markdown
        whole = "\n".join(blocks)
        cut = len(whole) // 2
        user_content = [
            {"type": "text", "text": user_content},
            {"type": "text", "text": whole[:cut]},
            {"type": "text", "text": whole[cut:]},
        ]
    tool_name = one("tool-name", "http_request")
    calls = [
        {
            "type": "toolCall",
            "id": "c1",
            "name": "bash",
            "arguments": {"command": joined("bash-command", "make deploy")},
        },
        {
            "type": "toolCall",
            "id": "c2",
            "name": "read",
            "arguments": {"path": one("read-path", "src/app.py")},
        },
        {
            "type": "toolCall",
            "id": "c3",
            "name": "write",
            "arguments": {"path": "deploy.env", "content": joined("write-content", "A=1\n")},
        },
        {
            "type": "toolCall",
            "id": "c4",
            "name": "edit",
            "arguments": {
                "path": "deploy.env",
                "edits": [{"oldText": "A=1", "newText": joined("edit", "A=2")}],
            },
        },
        {
            "type": "toolCall",
            "id": "c5",
            "name": tool_name,
            "arguments": {"url": "https://example.com", "body": joined("tool-args", "{}")},
        },
    ]
    model = one("model", "claude-sonnet")
    system = {
        "role": "system",
        "content": joined("system-prompt", "You are a coding agent."),
        "sections": {"rules": joined("system-prompt", "Be brief.")},
        "toolsAdded": [
            {
                "name": "read",
                "description": joined("tool-description", "read a file"),
                "parameters": {"type": "object"},
            }
        ],
    }
    nested = {
        "calls": [
            {
                "name": "fetch",
                "arguments": {"url": joined("nested-call", "https://example.com")},
                "status": "error",
                "error": joined("nested-call", "timed out"),
                "durationMs": 12,
            }
        ],
        "complete": True,
    }
    records: list[Any] = [
        {
            "type": "message",
            "id": "s0",
            "parentId": None,
            "timestamp": ts(0),
            "message": system,
        },
        msg("u1", "s0", "user", user_content, 1),
        msg(
            "a1",
            "u1",
            "assistant",
            [
                {"type": "thinking", "thinking": joined("thinking", "Plan it.")},
                {"type": "text", "text": joined("assistant", "On it.")},
                *calls,
            ],
            2,
            provider="anthropic",
            model=model,
            stopReason="toolUse",
            usage={"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15},
        ),
        tool_result("r1", "a1", joined("tool-output", "deployed\n"), 3, "c1", "bash"),
        tool_result("r2", "r1", "print('hi')\n", 4, "c2", "read"),
        tool_result("r3", "r2", "Wrote deploy.env", 5, "c3", "write"),
        tool_result("r4", "r3", "Successfully replaced 1 block(s).", 6, "c4", "edit"),
        with_nested(tool_result("r5", "r4", "200 OK", 7, "c5", tool_name), nested),
        msg(
            "b1",
            "r5",
            "bashExecution",
            None,
            8,
            command="env | head",
            output=joined("bash-output", "HOME=/home/alice"),
            exitCode=0,
            cancelled=False,
            truncated=False,
        ),
        {
            "type": "custom_message",
            "id": "cm1",
            "parentId": "b1",
            "timestamp": ts(9),
            "customType": "note",
            "content": joined("custom-message", "noted"),
            "display": True,
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "cm1",
            "timestamp": ts(10),
            "summary": joined("compaction", "Deployed the shop."),
            "firstKeptEntryId": "r5",
            "tokensBefore": 1000,
        },
        msg("a2", "k1", "assistant", [{"type": "text", "text": "Done."}], 11, model=model),
        # another branch from u1, left with a summary
        msg("u2", "u1", "user", joined("other-branch", "Try it another way."), 12),
        msg("a3", "u2", "assistant", joined("other-branch", "Another way, then."), 13),
        {
            "type": "branch_summary",
            "id": "bs1",
            "parentId": "a2",
            "timestamp": ts(14),
            "fromId": "a3",
            "summary": joined("branch-summary", "Tried another way."),
        },
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "bs1",
            "timestamp": ts(15),
            "name": one("session-name", ""),
        },
        {
            "type": "usage",
            "id": "us1",
            "parentId": "n1",
            "timestamp": ts(16),
            "kind": "cache_warm",
            "provider": "anthropic",
            "model": model,
            "note": one("usage-note", "warmed"),
            "usage": {"input": 3, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 4},
        },
        {
            "type": "context_edit",
            "id": "ce1",
            "parentId": "us1",
            "timestamp": ts(17),
            "targetId": "r1",
            "replacement": {"content": joined("context-edit", "(output elided)")},
        },
    ]
    labels = ex.at("label")
    for i, (target, text) in enumerate(zip(["u1", "a1", "r1", "a3", "a2"], labels, strict=False)):
        records.append(
            {
                "type": "label",
                "id": f"l{i}",
                "parentId": records[-1]["id"],
                "timestamp": ts(20 + i),
                "targetId": target,
                "label": text,
            }
        )
    return header, records


def with_nested(result: dict[str, Any], nested: dict[str, Any]) -> dict[str, Any]:
    """A tool result that records the calls its tool made to other tools (pi 1.5)."""
    result["message"]["nestedCalls"] = nested
    return result


def forms(secret: str) -> set[str]:
    return {
        secret,
        html.escape(secret),
        json.dumps(secret)[1:-1],
        quote(secret),
        quote(secret, safe=""),
    }


COMMANDS = [
    ["render", "{file}", "--format", "md", "-o", "{out}/s.md"],
    ["render", "{file}", "--format", "json", "-o", "{out}/s.json"],
    ["summary", "{file}"],
    ["summary", "{file}", "--format", "json"],
    ["compare", "{file}", "a2", "a3"],
    ["compare", "{file}", "a2", "a3", "--format", "json"],
    ["branches", "{file}"],
    ["branches", "{file}", "--format", "json"],
    ["files", "{file}"],
    ["files", "{file}", "--format", "json"],
    ["info", "{file}"],
    ["info", "{file}", "--json"],
    ["tree", "{file}"],
    ["context", "{file}"],
    ["usage", "{root}", "--by", "project"],
    ["usage", "{root}", "--by", "model", "--format", "json"],
    ["usage", "{root}", "--by", "tool", "--format", "csv"],
    ["search", "deploy", "{root}"],
    ["search", "deploy", "{root}", "--format", "json"],
    ["site", "{root}", "-o", "{out}/site", "-j", "1"],
]
"""Every output with session text: the site is every page (HTML), its indexes and its
search index; the rest print or write one output each."""


def run_every_output(ex: Example, tmp: Path) -> tuple[dict[str, str], list[str]]:
    """Every output of the example with --redact: (what each wrote or printed, refusals)."""
    root = tmp / "sessions"
    names = ex.at("file-name")
    folder = root / "--home-alice-demo--"
    folder.mkdir(parents=True)
    name = "2025-01-01T10-00-00-000Z_" + ("_".join(names)[:150] if names else "s") + ".jsonl"
    header, records = session_records(ex)
    path = folder / name
    path.write_bytes(to_lines([header, *records]))
    out = tmp / "out"
    out.mkdir()
    runner = CliRunner()
    outputs: dict[str, str] = {}
    refused: list[str] = []
    for command in COMMANDS:
        argv = [a.format(file=path, root=root, out=out) for a in command] + ["--redact"]
        result = runner.invoke(cli, argv)
        what = " ".join(command[:1] + [a for a in command[1:] if a.startswith("-")])
        outputs[f"{what} (stdout)"] = result.stdout
        outputs[f"{what} (stderr)"] = result.stderr
        no_match = command[0] == "search" and result.exit_code == 1 and not result.stdout
        if result.exit_code != 0 and not no_match:
            said = [ln for ln in result.output.splitlines() if "not written" in ln or "rror" in ln]
            refused.append(f"{what}: exit {result.exit_code}: {said or result.output[-400:]}")
    for written in out.rglob("*"):
        outputs[f"file name {written.relative_to(out)}"] = str(written.relative_to(out))
        if written.is_file():
            outputs[str(written.relative_to(out))] = written.read_text("utf-8", "replace")
    return outputs, refused


def check(ex: Example) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        outputs, refused = run_every_output(ex, Path(tmp))
    assert not refused, refused
    assert any(n.endswith(".html") and "/site/" not in n for n in outputs) or outputs
    for secret, kind in ex.secrets().items():
        for form in forms(secret):
            for where, text in outputs.items():
                assert form not in text, f"{kind} ({form[:8]}…) in {where}"


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # every failing example is printed whole
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SETTINGS
@given(examples())
def test_no_secret_in_any_output_and_no_output_refused(ex: Example) -> None:
    check(ex)


def test_every_rule_has_a_canary() -> None:
    """The planted kinds cover every built-in rule: each kind's text is redacted, and
    every rule name is the one that catches at least one kind."""
    caught: set[str] = set()
    for i, kind in enumerate(SECRET_KINDS):
        r = Redactor.create()
        text, secret = canary(kind, i)
        assert secret not in r.redact_text(text), kind
        caught |= set(r.counts)
    assert {rule.name for rule in builtin_rules()} <= caught, {
        rule.name for rule in builtin_rules()
    } - caught


@pytest.mark.parametrize("i", range(len(POSITIONS)), ids=POSITIONS)
def test_every_kind_at_every_position(i: int) -> None:
    """Not left to chance: each kind of secret (and each shape that is none) once in each
    position, in one session per position."""
    position = POSITIONS[i]
    ex = Example()
    for j, kind in enumerate(SECRET_KINDS):
        text, secret = canary(kind, 1000 * i + j)
        if position in ONE_LINE:
            if position == "file-name" or kind in LINE_SHAPED:
                continue  # (test_redact plants every kind in a file name)
            text = " ".join(text.split())
        ex.plantings.append(Planting(position, text, secret, kind))
    if position not in ("file-name",):
        ex.plantings += [Planting(position, b, None, "benign") for b in BENIGN]
    check(ex)


def test_outputs_name_every_position() -> None:
    """Every position is read by the session builder (a typo would plant nothing)."""
    source = Path(__file__).read_text()
    for position in POSITIONS:
        assert re.search(rf'"{re.escape(position)}"', source.split("def session_records")[1])

"""Planted fake secrets: one generator per format, a session with secrets in every field,
and the check that none of them reached an output file in any encoding."""

from __future__ import annotations

import base64
import html
import json
import random
import string
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.support.sessions import HEADER, msg, tool_result, ts

ALNUM = string.ascii_letters + string.digits
UPPER32 = string.ascii_uppercase + "234567"


def _r(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def fake(kind: str, seed: int) -> tuple[str, str]:
    """A fake secret of one format: (text to plant, the part that must never be output)."""
    rng = random.Random(f"{kind}:{seed}")
    if kind == "aws-access-key":
        s = "AKIA" + _r(rng, 16, UPPER32)
        return s, s
    if kind == "aws-secret-key":
        s = _r(rng, 40, ALNUM + "/+")
        return f"aws_secret_access_key = {s}", s
    if kind == "github-classic":
        s = "ghp_" + _r(rng, 36)
        return s, s
    if kind == "github-app":
        s = "ghs_" + _r(rng, 36)
        return s, s
    if kind == "github-fine-grained":
        s = (
            "github_pat_11"
            + _r(rng, 20, string.ascii_uppercase + string.digits)
            + "_"
            + _r(rng, 59)
        )
        return s, s
    if kind == "gitlab":
        s = "glpat-" + _r(rng, 20, ALNUM + "_-")
        return s, s
    if kind == "openai-project":
        s = "sk-proj-" + _r(rng, 74, ALNUM + "_-") + "T3BlbkFJ" + _r(rng, 74, ALNUM + "_-")
        return s, s
    if kind == "anthropic":
        s = "sk-ant-api03-" + _r(rng, 93, ALNUM + "_-") + "AA"
        return s, s
    if kind == "google-api":
        s = "AIza" + _r(rng, 35, ALNUM + "_-")
        return s, s
    if kind == "huggingface":
        s = "hf_" + _r(rng, 34, string.ascii_letters)
        return s, s
    if kind == "slack":
        s = f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{_r(rng, 24)}"
        return s, s
    if kind == "stripe":
        s = "sk_live_" + _r(rng, 24)
        return s, s
    if kind == "jwt":

        def b64(obj: Any) -> str:
            return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

        s = f"{b64({'alg': 'HS256'})}.{b64({'sub': _r(rng, 12)})}.{_r(rng, 43, ALNUM + '_-')}"
        return s, s.split(".")[1]
    if kind == "private-key":
        body = "\n".join(_r(rng, 64, ALNUM + "+/") for _ in range(4))
        block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
        return block, body.split("\n")[1]
    if kind == "url-credentials":
        s = _r(rng, 14)
        return f"postgres://admin:{s}@db.internal/prod", s
    if kind == "auth-header":
        s = _r(rng, 32, ALNUM + "._-")
        return f"Authorization: Bearer {s}", s
    if kind == "env-password":
        s = "hunter2-" + _r(rng, 10) + "!"
        return f"DB_PASSWORD={s}", s
    if kind == "json-password":
        s = _r(rng, 18)
        return f'{{"password": "{s}"}}', s
    if kind == "npm":
        s = "npm_" + _r(rng, 36)
        return s, s
    if kind == "config-line":  # YAML, .properties, .npmrc: the value is the rest of its line
        s = _r(rng, 6) + rng.choice("-!/+") + _r(rng, 8) + str(rng.randrange(10, 99))
        key = rng.choice(["password", "db_password", "spring.datasource.password", "apiKey"])
        return f"\n  {key}: {s}\n", s
    # command lines, URLs and headers (issue 14)
    if kind == "cli-password":
        s = _r(rng, 10) + rng.choice("!%+") + _r(rng, 4)
        flag = rng.choice(["--password=", "--password ", "--db-password=", "--passwd="])
        return f"mysql -u root {flag}{s} -h db.internal shop", s
    if kind == "mysql-p":
        s = _r(rng, 12)
        return rng.choice([f"mysql -u root -p{s} shop", f"mysqldump -uroot -p'{s}' shop"]), s
    if kind == "curl-form":
        s = _r(rng, 14)
        return f"curl -d 'user=admin&password={s}' https://shop.example.com/login", s
    if kind == "query-token":
        s = _r(rng, 32, ALNUM + "-_")
        name = rng.choice(["access_token", "api_key", "token", "client_secret", "apikey", "key"])
        return f"https://api.example.com/v1/items?page=2&{name}={s}", s
    if kind == "curl-user":
        s = _r(rng, 12) + "9"
        return rng.choice([f"curl -u deploy:{s} https://ci", f"curl --user 'deploy:{s}' x"]), s
    if kind == "url-no-scheme":
        s = _r(rng, 12)
        return f"git remote add origin deploy:{s}@git.example.com/shop.git", s
    if kind == "telegram":
        s = f"{rng.randrange(10**8, 10**9)}:AA{_r(rng, 33, ALNUM + '_-')}"
        return f"curl https://api.telegram.org/bot{s}/getMe", s.split(":")[1]
    if kind == "cookie":
        s = _r(rng, 32, "abcdef0123456789")
        return f"curl -H 'Cookie: sessionid={s}; csrftoken=abc' https://x", s
    if kind == "basic-auth":
        s = base64.b64encode(f"deploy:{_r(rng, 14)}".encode()).decode()
        return f"-H 'Authorization: Basic {s}'", s
    if kind == "sshpass":
        s = _r(rng, 12) + "#"
        return f"sshpass -p '{s}' ssh deploy@10.0.0.5", s
    if kind == "escaped-json":
        s = _r(rng, 20)
        return f'"SecretString": "{{\\"username\\":\\"admin\\",\\"password\\":\\"{s}\\"}}"', s
    if kind == "escaped-json-2":
        s = _r(rng, 20)
        inner = json.dumps(json.dumps({"username": "admin", "password": s}))
        return f'{{"SecretString": {json.dumps(inner)}}}', s
    if kind == "sts-token":
        s = "IQoJb3JpZ2luX2Vj" + _r(rng, 700, ALNUM + "/+")
        return f'"SessionToken": "{s}"', s[-40:]
    # invisible characters and markdown that join a key as it is read
    if kind == "invisible":
        tail = _r(rng, 16, UPPER32)
        mark = rng.choice(["\u034f", "\u3164", "\ufe0f", "\u115f"])
        return f"AKIA{mark}{tail}", tail
    if kind == "ghp-fe0f":
        tail = _r(rng, 36)
        return f"ghp_\ufe0f{tail}", tail
    if kind == "md-emphasis":
        tail = _r(rng, 16, UPPER32)
        return f"AKIA**{tail}**", tail
    if kind == "md-escape":
        tail = _r(rng, 36)
        return f"ghp\\_{tail}", tail
    raise AssertionError(kind)


KINDS = [
    "aws-access-key",
    "aws-secret-key",
    "github-classic",
    "github-app",
    "github-fine-grained",
    "gitlab",
    "openai-project",
    "anthropic",
    "google-api",
    "huggingface",
    "slack",
    "stripe",
    "jwt",
    "private-key",
    "url-credentials",
    "auth-header",
    "env-password",
    "json-password",
    "npm",
    "config-line",
    "cli-password",
    "mysql-p",
    "curl-form",
    "query-token",
    "curl-user",
    "url-no-scheme",
    "telegram",
    "cookie",
    "basic-auth",
    "sshpass",
    "escaped-json",
    "escaped-json-2",
    "sts-token",
    "invisible",
    "ghp-fe0f",
    "md-emphasis",
    "md-escape",
]

# fields that take free text of any shape, and fields that only make sense with one line
FIELDS = [
    "user text",
    "assistant text",
    "thinking",
    "bash command",
    "read path",
    "edit oldText",
    "edit newText",
    "tool output",
    "bash output",
    "custom data",
    "custom data key",
    "custom_message",
    "compaction summary",
    "branch summary",
    "session name",
    "label",
    "header cwd",
    "image mime",
    "model id",
    "markdown image alt",
    "write content",
]
SINGLE_LINE = {
    "read path",
    "header cwd",
    "image mime",
    "model id",
    "session name",
    "label",
    "markdown image alt",
}
"""Fields where a multi-line secret (a PEM block, a config line) makes no sense."""


class Plant:
    """Hands out fake secrets field by field, cycling through the formats."""

    def __init__(self, seed: int = 0, per_field: int | None = None) -> None:
        self.n = seed
        self.per_field = per_field
        """Plant this many in each field instead of what the session asks (every kind)."""
        self.secrets: dict[str, str] = {}  # the part that must not leak → its kind
        self.placements: list[tuple[str, str]] = []

    def __call__(self, field: str, count: int = 4) -> str:
        count = self.per_field or count
        parts = []
        for _ in range(count):
            kind = KINDS[self.n % len(KINDS)]
            if field in SINGLE_LINE and kind in ("private-key", "config-line"):
                kind = "stripe"
            text, secret = fake(kind, self.n)
            self.n += 1
            self.secrets[secret] = kind
            self.placements.append((field, kind))
            parts.append(text)
        return " and ".join(parts) if field not in SINGLE_LINE else "/".join(parts)

    def value(self, field: str, kind: str) -> str:
        """A bare value for structured data, a secret only next to its key."""
        rng = random.Random(f"{field}:{self.n}")
        self.n += 1
        s = _r(rng, 10) + rng.choice("-!+") + _r(rng, 8)
        self.secrets[s] = kind
        self.placements.append((field, kind))
        return s


def planted_session(plant: Plant, shared: str = "") -> list[Any]:
    """A session with secrets in every kind of field; ``shared`` is added to the user text."""
    p = plant
    header = {**HEADER, "cwd": "/home/alice/" + p("header cwd", 2)}
    thinking = {"type": "thinking", "thinking": "I see " + p("thinking")}
    calls = [
        {
            "type": "toolCall",
            "id": "call_1",
            "name": "bash",
            "arguments": {"command": p("bash command")},
        },
        {
            "type": "toolCall",
            "id": "call_2",
            "name": "read",
            "arguments": {"path": p("read path", 2)},
        },
        {
            "type": "toolCall",
            "id": "call_4",
            "name": "write",
            "arguments": {"path": ".env", "content": p("write content")},
        },
        {
            "type": "toolCall",
            "id": "call_5",
            "name": "http_request",
            "arguments": {
                "username": "bob",
                "password": p.value("tool arguments", "structured-password"),
                "headers": {"Authorization": "Bearer " + p.value("tool arguments", "header")},
                "config": {"apiKey": p.value("tool arguments", "structured-api-key")},
                "placeholders": {"apiKey": "YOUR_API_KEY_HERE", "token": "see docs"},
            },
        },
        {
            "type": "toolCall",
            "id": "call_3",
            "name": "edit",
            "arguments": {
                "path": "src/app.py",
                "edits": [{"oldText": p("edit oldText"), "newText": p("edit newText")}],
            },
        },
    ]
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
    records: list[Any] = [
        header,
        msg(
            "u1",
            None,
            "user",
            [{"type": "text", "text": "Deploy with " + p("user text") + shared}],
            1,
        ),
        msg(
            "a1",
            "u1",
            "assistant",
            [
                thinking,
                {"type": "text", "text": "Using " + p("assistant text")},
                {
                    "type": "text",
                    "text": f"![{p('markdown image alt', 1)}](https://example.com/x.png)",
                },
                *calls,
            ],
            2,
            provider="anthropic",
            model=p("model id", 1),
            stopReason="toolUse",
        ),
        tool_result("r1", "a1", p("tool output"), 3, "call_1", "bash"),
        tool_result("r2", "r1", "file", 4, "call_2", "read"),
        tool_result("r3", "r2", "Successfully replaced 1 block(s).", 5, "call_3", "edit"),
        msg(
            "b1",
            "r3",
            "bashExecution",
            None,
            6,
            command="env",
            output=p("bash output"),
            exitCode=0,
            cancelled=False,
            truncated=False,
        ),
        {
            "type": "custom",
            "id": "c1",
            "parentId": "b1",
            "timestamp": ts(7),
            "customType": "ext",
            "data": {
                "nested": {"env": [p("custom data")]},
                p("custom data key", 1): 1,
                "shaped": [
                    {"type": "image", "data": p("custom data like an image")},
                    {"type": "toolCall", "id": p("custom data like a tool call", 1)},
                    {"db": {"password": p.value("custom data", "structured-password")}},
                ],
            },
        },
        {
            "type": "custom_message",
            "id": "cm1",
            "parentId": "c1",
            "timestamp": ts(8),
            "customType": "note",
            "content": p("custom_message"),
            "display": True,
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "cm1",
            "timestamp": ts(9),
            "summary": p("compaction summary"),
            "firstKeptEntryId": "r3",
            "tokensBefore": 1000,
        },
        msg(
            "u2",
            "k1",
            "user",
            [
                {"type": "text", "text": "look"},
                {"type": "image", "mimeType": "image/png;" + p("image mime", 1), "data": png},
            ],
            10,
        ),
        # another branch from r3, then the user came back with a summary
        msg("x1", "r3", "user", "an abandoned try", 11),
        {
            "type": "branch_summary",
            "id": "bs1",
            "parentId": "u2",
            "timestamp": ts(12),
            "fromId": "x1",
            "summary": p("branch summary"),
        },
        {
            "type": "label",
            "id": "l1",
            "parentId": "bs1",
            "timestamp": ts(13),
            "targetId": "a1",
            "label": p("label", 1),
        },
        {
            "type": "session_info",
            "id": "n1",
            "parentId": "l1",
            "timestamp": ts(14),
            "name": p("session name", 1),
        },
        msg(
            "a2",
            "n1",
            "assistant",
            [{"type": "text", "text": "done"}],
            15,
            provider="anthropic",
            model="claude",
        ),
    ]
    return records


def forms(secret: str) -> set[str]:
    return {
        secret,
        html.escape(secret),
        json.dumps(secret)[1:-1],
        quote(secret),
        quote(secret, safe=""),
    }


def assert_no_leak(out_files: list[Path], secrets: dict[str, str]) -> None:
    assert out_files
    for path in out_files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret, kind in secrets.items():
            assert secret not in str(path), (path, kind)
            for form in forms(secret):
                assert form not in text, f"{kind} leaked into {path.name} as {form[:6]}…"

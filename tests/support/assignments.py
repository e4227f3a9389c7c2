"""Generated secret-bearing assignments, from the grammar ``--redact`` is written against
(issue 35): a secret-like key, a separator one of the common config formats uses, a value,
and whatever the format lets follow it, laid out on one line or across lines, plus the
formats that are not ``key sep value`` (XML elements, .netrc, .pgpass, URLs, headers).

Nothing here is stored: every case is made from these parts when a test asks, and each
comes with the value that must not survive redaction. A second set, of innocent near-misses,
says what must never be refused and lets a test count what is redacted anyway.
"""

from __future__ import annotations

import itertools
import random
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits


@dataclass(frozen=True)
class Case:
    text: str
    value: str
    shape: str
    """What made it, for a failure message: ``key|sep|quote|trailer|layout``."""


KEYS = (
    "password",
    "PASSWORD",
    "Password",
    "db.password",
    "DB_PASSWORD",
    "db_password",
    "dbPassword",
    "spring.datasource.password",
    "client-secret",
    "client_secret",
    "CLIENT_SECRET",
    "clientSecret",
    "api_key",
    "API_KEY",
    "apiKey",
    "api-key",
    "OPENAI_API_KEY",
    "secret",
    "SECRET_KEY",
    "secret_key_base",
    "token",
    "TOKEN",
    "auth_token",
    "GITHUB_TOKEN",
    "accessToken",
    "access_key",
    "AWS_SECRET_ACCESS_KEY",
    "private_key",
    "passwd",
    "passphrase",
    "DB_PASS",
    "credentials",
    "MYSQL_ROOT_PASSWORD",
    "refresh_token",
    "ENCRYPTION_KEY",
    "encryption_key",
    "masterKey",
    "jwt_key",
    "hmac-key",
    "LICENSE_KEY",
    "signing_key",
    "SESSION_KEY",
    "app_key",
)
KEY_FORMS = ("{k}", '"{k}"', "'{k}'", "export {k}", "set {k}", "$env:{k}", "  {k}", "- {k}")
"""How a key is written: bare, quoted (JSON, TOML, PHP), a shell export, cmd's ``set``,
PowerShell, indented (YAML nesting), a YAML list item."""
SEPARATORS = (
    "=",
    " = ",
    ": ",
    " : ",
    " => ",
    " := ",
    "=    ",
    ":    ",
    "\t",
    "=\t",
    ":\t",
    "=\\\n    ",  # a shell line continuation
    ":\n    ",  # YAML: the value on the next line, indented
    "=\n",  # .env: the value on the next line
    "\n= ",  # INI: the key split from its value
)
QUOTES = ("", '"', "'")
TRAILERS = (
    "",
    "   # prod db",
    " # note",
    " ; comment",
    ";",
    ",",
    " ,",
    " // note",
    " and more",
    "  ",
    "\t# x",
)
LAYOUTS = ("alone", "file", "prose")


def value(rng: random.Random) -> str:
    """A value of one of the shapes secrets take (never a placeholder)."""
    kind = rng.randrange(7)
    if kind == 6:  # letters alone, as a generator makes them (no word, no name)
        return _generated_letters(rng)
    if kind == 0:
        return "".join(rng.choice(ALNUM) for _ in range(rng.randrange(10, 30))) + str(
            rng.randrange(10)
        )
    if kind == 1:
        return "p" + "".join(rng.choice(ALNUM + "!@%^*+~-") for _ in range(rng.randrange(8, 20)))
    if kind == 2:  # base64
        return "".join(rng.choice(ALNUM + "+/") for _ in range(rng.randrange(16, 40))) + "=="
    if kind == 3:  # hunter2-like
        word = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randrange(5, 9)))
        return word + str(rng.randrange(10, 9999))
    if kind == 4:  # hex
        return "".join(rng.choice("0123456789abcdef") for _ in range(rng.randrange(24, 64)))
    return "-".join(  # words with a digit
        "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randrange(4, 8)))
        for _ in range(3)
    ) + str(rng.randrange(10))


def _generated_letters(rng: random.Random) -> str:
    """Eight to twenty random letters with at least two capitals and two small letters, that
    no identifier is made of (a camelCase name's words have vowels, and end in a word)."""
    while True:
        v = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randrange(8, 21)))
        upper = sum(c.isupper() for c in v)
        if 2 <= upper <= len(v) - 2 and _NOT_A_NAME.search(v):
            return v


_NOT_A_NAME = re.compile(r"(?i:[bcdfghjklmnpqrstvwxz]{5})|[a-z][A-Z]$|[A-Z]{2,}[a-z][A-Z]")
"""What random letters show and names do not: five consonants in a row, a capital alone at
the end, a capital between capitals and small letters (the rule's own test of a value)."""


def _place(line: str, layout: str, rng: random.Random) -> str:
    if layout == "alone":
        return line
    if layout == "file":
        before = rng.choice(["HOST=db.internal\nPORT=5432\n", "[database]\nhost = db\n", "db:\n"])
        after = rng.choice(["\nUSER=app\n", "\nport = 5432\n", "\n  user: app\n", ""])
        return before + line + after
    return f"Here is the config I found:\n{line}\nShould I rotate it?"


def grid(seed: int = 35) -> Iterator[Case]:
    """Keys, key forms, separators, quotes, trailers and layouts, crossed (each value fresh):
    about ten thousand assignments, deterministic for a seed."""
    rng = random.Random(seed)
    for key, form, sep, quote, trailer, layout in itertools.product(
        KEYS, KEY_FORMS, SEPARATORS, QUOTES, TRAILERS, LAYOUTS
    ):
        # a sample of the product (the whole is 300k): every part still meets every other
        if rng.random() > 0.035:
            continue
        if form.startswith(("'", '"')) and sep in ("\t", "\n= "):
            continue  # no format writes a quoted key that way
        if form.startswith(("export", "set", "$env")) and (sep in ("\n= ", "\t", ":\n    ")):
            continue
        if form.startswith("export") and " " in sep.replace("\n", "").replace("\\", "").strip():
            continue
        v = value(rng)
        shown = f"{quote}{v}{quote}"
        line = form.format(k=key) + sep + shown + trailer
        text = _place(line, layout, rng)
        yield Case(text, v, f"{key}|{form}|{sep!r}|{quote}|{trailer!r}|{layout}")
    yield from formats(rng)


def formats(rng: random.Random, n: int = 8) -> Iterator[Case]:
    """The formats that are not one ``key sep value``: each ``n`` times, fresh values."""
    for _ in range(n):
        v = value(rng)
        w = "".join(rng.choice(ALNUM) for _ in range(12)) + "9"
        user = rng.choice(["admin", "deploy", "app_user"])
        host = rng.choice(["db.example.com", "10.0.0.5", "localhost"])
        cases = {
            "xml": f"<server>\n  <id>nexus</id>\n  <username>{user}</username>\n"
            f"  <password>{v}</password>\n</server>",
            "xml-spaced": f"<settings><password>\n    {v}\n  </password></settings>",
            "xml-attr": f'<datasource user="{user}" password="{v}" />',
            "yaml-block": f"stringData:\n  password: |\n    {v}\n  user: {user}",
            "yaml-folded": f"secret:\n  token: >-\n    {v}\n",
            "k8s": f"apiVersion: v1\nkind: Secret\nstringData:\n  DB_PASSWORD: {v}\n",
            "netrc": f"machine {host} login {user} password {v}",
            "netrc-lines": f"machine {host}\n  login {user}\n  password {v}\n",
            "npmrc": f"//registry.npmjs.org/:_authToken={v}",
            "npmrc-auth": f"_auth={v}\nemail=me@example.com",
            "pgpass": f"{host}:5432:app:{user}:{v}",
            "url": f"postgres://{user}:{v}@{host}:5432/app",
            "dsn": f"Server={host};Database=app;User Id={user};Password={v};",
            "curl": f"curl -u {user}:{v} https://{host}/api",
            "header": f"curl -H 'Authorization: Bearer {v}' https://{host}",
            "docker": f"docker run -e DB_PASSWORD={v} -e USER={user} postgres",
            "compose": f"services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD={v}\n",
            "compose-map": f"    environment:\n      POSTGRES_PASSWORD: {v}\n      PGUSER: app",
            "systemd": f'[Service]\nEnvironment="API_TOKEN={v}" "MODE=prod"\n',
            "powershell": f'$env:OPENAI_API_KEY = "{v}"',
            "cmd": f"set API_KEY={v}\r\necho done",
            "hcl": f'variable "db" {{\n  password = "{v}"\n}}',
            "toml": f"[db]\npassword = '{v}'  # prod",
            "json": f'{{"user": "{user}", "password": "{v}", "port": 5432}}',
            "json-escaped": f'{{\\"password\\":\\"{v}\\"}}',
            "properties": f"db.password={v}\ndb.user={user}",
            "properties-colon": f"db.password:{v}",
            "properties-space": f"db.password {v}",
            "ini": f"[db]\npassword = {v} ; prod\n",
            "mysql": f"mysql -u {user} -p{w} app",
            "docker-login": f"docker login -u {user} -p {v} registry.example.com",
            "cli-flag": f"./deploy --db-password {v} --host {host}",
            "k8s-env": f"env:\n  - name: DB_PASSWORD\n    value: {v}\n  - name: USER\n",
            "k8s-env-quoted": f'        - name: "API_TOKEN"\n          value: "{v}"',
            "ecs-json": f'{{"environment": [{{"name": "DB_PASSWORD", "value": "{v}"}}]}}',
            "dotnet": f'<appSettings>\n  <add key="DbPassword" value="{v}" />\n</appSettings>',
            "php-define": f"define('DB_PASSWORD', '{v}');",
            "python-environ": f'os.environ["OPENAI_API_KEY"] = "{v}"',
            "makefile": f"API_TOKEN ?= {v}",
            "toml-multiline": f'[db]\npassword = """{v}"""',
            "redis-url": f"REDIS_URL=redis://:{v}@{host}:6379/0",
            "docker-config": f'{{"auths": {{"ghcr.io": {{"auth": "{v}"}}}}}}',
            "dockerfile-env": f"ENV API_KEY {v}",
            "java-property": f'System.setProperty("db.password", "{v}");',
            "json-next-line": f'{{"password":\n  "{v}"}}',
            "json-pretty": f'{{\n  "user": "{user}",\n  "api_key":\n    "{v}"\n}}',
            "heredoc": f"password = <<EOF\n{v}\nEOF\n",
            "heredoc-hcl": f'resource "x" "y" {{\n  secret = <<-EOT\n    {v}\n  EOT\n}}',
            "heredoc-shell": f"cat > .env <<'EOF'\nexport API_TOKEN=\\\n  {v}\nEOF",
            "glued-comma": f"password:{v},",
            "glued-words": f"API_KEY:{v} and more",
            "spaced-words": f"token {v} // note",
            "auth-symbols": f"Authorization: Bearer {w}^{v}",
        }
        for shape, text in cases.items():
            secret = w if shape == "mysql" else v
            yield Case(text, secret, shape)


NEAR_MISSES = (
    "password_min_length = {n}",
    "max_tokens: {n}",
    "MAX_TOKENS={n}",
    "token_count = {n}",
    "token_url: https://auth.example.com/oauth/token",
    "password_file: /run/secrets/db",
    "secretName: db-credentials",
    "api_key_env: OPENAI_API_KEY",
    "PASSWORD=${{DB_PASSWORD}}",
    "password: $DB_PASSWORD",
    "api_key = os.environ['OPENAI_API_KEY']",
    "token = process.env.GITHUB_TOKEN",
    "password: <your password>",
    "API_KEY=<your key>",
    "token: ${{{{ secrets.GITHUB_TOKEN }}}}",
    "password = getpass.getpass()",
    "token = get_token()",
    "api_key: str = None",
    "password: Optional[str] = None",
    "self.token = token",
    "Choose a password: at least {n} characters, one digit.",
    "The token expired at {ts}; request a new one.",
    "Passwords must differ from the last {n} passwords.",
    "INVALID_API_KEY: req_{id}: the key was rejected",
    "EXPIRED_TOKEN: {ts}",
    "invalid_api_key: Incorrect API key provided.",
    "TOKEN_EXPIRED: token expired at {ts}",
    "API_KEY_INVALID: API key not valid. Please pass a valid API key.",
    "authentication_error: invalid x-api-key",
    "password_reset_url: https://example.com/reset",
    "tokenizer: cl100k_base",
    "tokens: {n}",
    "input_tokens: {n}, output_tokens: {n}",
    "PASS tests/test_app.py::test_{id}",
    "if password == confirm:",
    "token_type: bearer",
    "secret: false",
    "password: required",
    "password = userInput",
    "token = accessToken",
    "secret = getSecretFromVault",
    "api_key: apiKeyFromConfig,",
    "encryption_key = derive_key(salt)",
    "masterKey: keyring.get",
    "session_key = request.session.session_key",
    "token = setUpClass",
    "primary_key = {n}",
    "hotkey = ctrl+shift+k",
    "license_key_url: https://example.com/licenses",
    "cache_key = f'{{user}}:{{n}}'",
)
"""Innocent lines that look like assignments (placeholders, references, numbers, names of
keys, error codes with their messages, prose)."""


def near_misses(seed: int = 35, each: int = 20) -> Iterator[tuple[str, str]]:
    """(text, template) for each near-miss, ``each`` times with fresh numbers, ids and times."""
    rng = random.Random(seed)
    for template in NEAR_MISSES:
        for _ in range(each):
            n = rng.randrange(1, 100000)
            ident = "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(8))
            ts = f"2026-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}T10:00:00Z"
            yield template.format(n=n, id=ident, ts=ts), template

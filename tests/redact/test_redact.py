"""Secret redaction: planted fake secrets never reach any output file, in any encoding."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import random
import re
import string
import uuid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport import Redactor, load_session, redact_session
from piexport.cli import cli
from piexport.export.pipeline import export_session
from piexport.page.view import build_view
from piexport.redact.gate import scan_file, scan_text
from piexport.redact.rules import RedactionError

from tests.support.hostile_corpus import Case, cases
from tests.support.secrets import ALNUM, KINDS, Plant, _r, assert_no_leak, fake, planted_session
from tests.support.sessions import HEADER, msg, sample_files, to_lines, tool_result, ts


def anchors(page: str) -> list[tuple[str, str, str]]:
    return re.findall(r'id="(entry-[^"]+)" data-entry-id="([^"]+)" data-parent="([^"]*)"', page)


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Plant]:
    plant = Plant()
    path = tmp_path / "planted.jsonl"
    path.write_bytes(to_lines(planted_session(plant)))
    return path, plant


def test_planting_covers_the_brief(planted: tuple[Path, Plant]) -> None:
    _, plant = planted
    kinds = {k for _, k in plant.placements}
    fields = {f for f, _ in plant.placements}
    print(
        f"\nplanted {len(plant.placements)} fake secrets: {len(kinds)} formats in {len(fields)} fields"
    )
    assert len(plant.placements) >= 50
    assert len(kinds) >= 15
    assert len(fields) >= 15


def test_render_redact_leaks_nothing(
    runner: CliRunner, tmp_path: Path, planted: tuple[Path, Plant]
) -> None:
    path, plant = planted
    out = tmp_path / "page.html"
    result = runner.invoke(cli, ["render", "--redact", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert_no_leak([out], plant.secrets)
    page = out.read_text()
    assert "[REDACTED:" in page
    assert "Shared view:" in page and "secrets redacted (" in page
    # the run reports counts per rule, never the secrets
    assert re.search(r"redacted \d+ secrets: [a-z-]+ \d+", result.stderr)
    for secret in plant.secrets:
        assert secret not in result.output

    plain = tmp_path / "plain.html"
    assert runner.invoke(cli, ["render", str(path), "-o", str(plain)]).exit_code == 0
    unredacted = plain.read_text()
    assert any(s in unredacted for s in plant.secrets)  # the planting is visible without it
    # ids, deep links, parents and the tree are unchanged
    assert anchors(page) == anchors(unredacted)
    assert len(anchors(page)) == 15
    assert re.findall(r'href="#(entry-[^"]+)"', page) == re.findall(
        r'href="#(entry-[^"]+)"', unredacted
    )


def test_tool_pairing_and_tree_survive(planted: tuple[Path, Plant]) -> None:
    path, _ = planted
    session = load_session(path)
    redacted = redact_session(session, Redactor.create())
    before, after = build_view(session), build_view(redacted)
    assert {k: v.id for k, v in after.results.items()} == {
        k: v.id for k, v in before.results.items()
    }
    assert after.paired_results == before.paired_results == {"r1", "r2", "r3"}
    assert redacted.tree is session.tree
    assert [e.id for e in redacted.entries] == [e.id for e in session.entries]
    assert redacted.labels.keys() == session.labels.keys()
    assert redacted.name and "[REDACTED:" in redacted.name
    image = redacted.by_id["u2"].raw["message"]["content"][1]
    assert image["data"] == session.by_id["u2"].raw["message"]["content"][1]["data"]
    assert "[REDACTED:" in image["mimeType"]


def test_markdown_json_and_summary_honour_redact(
    runner: CliRunner, tmp_path: Path, planted: tuple[Path, Plant]
) -> None:
    path, plant = planted
    outs = []
    for fmt in ("md", "json"):
        out = tmp_path / f"s.{fmt}"
        result = runner.invoke(
            cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        outs.append(out)
    for fmt in ("json", "markdown"):
        result = runner.invoke(cli, ["summary", "--redact", "--format", fmt, str(path)])
        assert result.exit_code == 0, result.output
        out = tmp_path / f"summary.{fmt}"
        out.write_text(result.stdout)
        outs.append(out)
    assert_no_leak(outs, plant.secrets)


def _site_root(tmp_path: Path) -> tuple[Path, Plant, str]:
    root = tmp_path / "sessions"
    project = root / "--home-alice-demo--"
    project.mkdir(parents=True)
    plant = Plant()
    shared_text, shared_secret = fake("github-classic", 999)
    plant.secrets[shared_secret] = "github-classic"
    first = planted_session(plant, " and " + shared_text)
    second = planted_session(plant, " again " + shared_text)
    second[0] = {**second[0], "id": "0195a000-0000-7000-8000-000000000002"}
    (project / "2025-01-01T10-00-00-000Z_a.jsonl").write_bytes(to_lines(first))
    (project / "2025-01-02T10-00-00-000Z_b.jsonl").write_bytes(to_lines(second))
    return root, plant, shared_secret


def test_site_redact_leaks_nothing_and_tokens_agree(runner: CliRunner, tmp_path: Path) -> None:
    root, plant, shared = _site_root(tmp_path)
    out = tmp_path / "site"
    result = runner.invoke(cli, ["site", str(root), "-o", str(out), "--redact", "-j", "2"])
    assert result.exit_code == 0, result.output
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 4  # two pages, a project index, the root index (and the manifest)
    assert_no_leak(files, plant.secrets)
    assert "redacted " in result.stderr and " secrets: " in result.stderr

    token = Redactor.create().token("github-token", shared)
    pages = [p for p in files if p.name.startswith("2025-")]
    assert len(pages) == 2
    for page in pages:
        assert token in page.read_text()

    # toggling --redact off renders the pages again (the fingerprint includes it)
    again = runner.invoke(cli, ["site", str(root), "-o", str(out), "-j", "1"])
    assert again.exit_code == 0
    assert "2 rendered" in again.stderr
    new_pages = [p for p in out.rglob("2025-*.html")]
    assert len(new_pages) == 2 and all(shared in p.read_text() for p in new_pages)


def test_zero_width_and_fullwidth_variants_are_caught() -> None:
    r = Redactor.create()
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    split = token[:10] + "\u200b" + token[10:20] + "\u2060" + token[20:]
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in token)
    expected = r.token("github-token", token)
    for variant in (
        split,
        wide,
        token[:6] + "\ufeff" + token[6:],
        token[:4] + "\u00ad" + token[4:],
    ):
        text = f"before {variant} after"
        assert r.redact_text(text) == f"before {expected} after"
    assert r.counts["github-token"] == 4


def test_same_secret_same_token_key_changes_it() -> None:
    secret = fake("aws-access-key", 1)[0]
    a, b = Redactor.create(), Redactor.create()
    assert a.redact_text(f"x {secret}")[2:] == b.redact_text(f"y {secret} z")[2:-2]
    keyed = Redactor.create(key="site-key")
    assert keyed.redact_text(secret) != a.redact_text(secret)
    assert keyed.redact_text(secret).startswith("[REDACTED:aws-access-key:")


def test_shapes_keep_the_name_and_skip_placeholders() -> None:
    r = Redactor.create()
    assert r.redact_text("DB_PASSWORD=hunter2-Sup3r!").startswith("DB_PASSWORD=[REDACTED:")
    assert r.redact_text("postgres://admin:s3cr3t@db/prod").startswith(
        "postgres://admin:[REDACTED:"
    )
    for benign in (
        "export OPENAI_API_KEY=$OPENAI_API_KEY",
        "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
        "Authorization: Bearer <token>",
        'password = os.environ["DB_PASSWORD"]',
        "the token is valid and the password must be at least 12 characters long",
        "const token = await getToken(); if (!password) return;",
        "Authorization: Bearer [REDACTED:github-token:0123abcd]",
    ):
        fresh = Redactor.create()
        assert fresh.redact_text(benign) == benign
        assert not fresh.counts


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ("password: hunter2xyz", "hunter2xyz"),
        ("  db_password: 's3cr3t!pw'", "s3cr3t!pw"),
        ("spring.datasource.password=Secr3tValue", "Secr3tValue"),
        ("//registry.npmjs.org/:_authToken=abcd1234-ef56", "abcd1234-ef56"),
        ("- api_key: ak_live_1234abcd", "ak_live_1234abcd"),
        ("clientSecret: cs.8f7e6d5c4b3a", "cs.8f7e6d5c4b3a"),
        ('auth_token: "tok-99887766"', "tok-99887766"),
    ],
)
def test_config_lines_in_any_case(line: str, secret: str) -> None:
    """YAML, .properties and .npmrc lines: the key stays readable, the value goes."""
    r = Redactor.create()
    out = r.redact_text(f"services:\n{line}\nnext: 1")
    assert secret not in out and "[REDACTED:" in out
    assert line.split(":")[0].split("=")[0].strip("- ") in out


@pytest.mark.xfail(strict=True, reason="known gap, listed under Limits in the README")
@pytest.mark.parametrize(
    "text",
    [
        # a token base64-encoded outside an Authorization header
        "echo "
        + base64.b64encode(b"ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8").decode()
        + " | base64 -d",
        # a password in prose
        "the database password is hunter2, keep it safe",
    ],
)
def test_known_gaps(text: str) -> None:
    assert Redactor.create().redact_text(text) != text


def test_user_patterns_allow_list_and_config(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    path = make_session(
        [
            msg(
                "u1",
                None,
                "user",
                "ticket EMP-123456 and AKIAIOSFODNN7EXAMPLE and AKIA2222333344445555",
                1,
            )
        ]
    )
    out = tmp_path / "p.html"
    result = runner.invoke(
        cli,
        [
            "render",
            str(path),
            "-o",
            str(out),
            "--redact-pattern",
            r"EMP-\d{6}",
            "--allow",
            "AKIAIOSFODNN7EXAMPLE",
        ],
    )
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "EMP-123456" not in page and "[REDACTED:custom:" in page
    assert "AKIAIOSFODNN7EXAMPLE" in page and "AKIA2222333344445555" not in page
    assert "custom 1" in result.stderr and "aws-access-key 1" in result.stderr

    config = tmp_path / "redact.toml"
    config.write_text(
        'allow = ["AKIA2222333344445555"]\n[[patterns]]\nname = "Employee ID"\nregex = "EMP-(?P<secret>\\\\d{6})"\n'
    )
    result = runner.invoke(
        cli, ["render", str(path), "-o", str(out), "--redact-config", str(config)]
    )
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "EMP-[REDACTED:employee-id:" in page and "AKIA2222333344445555" in page

    bad = runner.invoke(cli, ["render", str(path), "-o", str(out), "--redact-pattern", "(unclosed"])
    assert bad.exit_code == 2
    assert "(unclosed" in bad.output and "bad redaction pattern" in bad.output


def test_gate_fails_the_run_and_leaves_no_page(
    runner: CliRunner, tmp_path: Path, make_session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_session([msg("u1", None, "user", "hello", 1)])
    out = tmp_path / "p.html"
    out.write_text("an older page")
    leak = fake("stripe", 5)[0]
    import piexport.export.pipeline as export_module

    real = export_module.render_session_parts

    def leaky(*a: Any, **k: Any) -> Any:
        yield from real(*a, **k)
        yield leak

    monkeypatch.setattr(export_module, "render_session_parts", leaky)
    result = runner.invoke(cli, ["render", "--redact", str(path), "-o", str(out)])
    assert result.exit_code == 1
    assert "stripe-key" in result.output and "not written" in result.output
    assert leak not in result.output
    assert not out.exists()
    assert not list(tmp_path.glob(".p.html.*"))


def test_gate_catches_secrets_in_structural_fields(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    """Ids are never rewritten (deep links depend on them), so a secret there fails the run."""
    secret = fake("aws-access-key", 9)[0]
    bad = make_session([msg(secret, None, "user", "hello", 1)], name="bad.jsonl")
    with pytest.raises(RedactionError, match="aws-access-key") as refused:
        export_session(bad, tmp_path / "bad.html", redactor=Redactor.create())
    assert not (tmp_path / "bad.html").exists()
    # the message names the entry (by its line: its id is the secret) and why
    assert "entry at line 2 (id)" in str(refused.value) and secret not in str(refused.value)
    result = runner.invoke(
        cli, ["render", "--redact", "--format", "json", str(bad), "-o", str(tmp_path / "b")]
    )
    assert result.exit_code == 1 and "entry at line 2 (id)" in result.output
    assert secret not in result.output
    # Markdown does not show ids: it is written, without the secret
    result = runner.invoke(
        cli, ["render", "--redact", "--format", "md", str(bad), "-o", str(tmp_path / "b.md")]
    )
    assert result.exit_code == 0 and secret not in (tmp_path / "b.md").read_text()

    root = tmp_path / "root"
    root.mkdir()
    bad.rename(root / "bad.jsonl")
    make_session([msg("u1", None, "user", "fine", 1)], name="root/good.jsonl")
    out = tmp_path / "site"
    result = runner.invoke(cli, ["site", str(root), "-o", str(out), "--redact", "-j", "1"])
    assert result.exit_code == 1
    assert "aws-access-key" in result.stderr and secret not in result.output
    pages = {p.name: p for p in out.rglob("*.html")}
    assert "good.html" in pages and "index.html" in pages
    # a refused page never stops the archive: a plain page says why in its place
    plain = pages["bad.html"].read_text(encoding="utf-8")
    assert "Page not written" in plain and "aws-access-key" in plain and secret not in plain


@pytest.mark.parametrize("workers", [1, 2])
def test_gate_sees_text_attributes_and_url_encoded_lines_in_every_slice(
    monkeypatch: pytest.MonkeyPatch, workers: int, tmp_path: Path
) -> None:
    import piexport.redact.gate as gate_module

    monkeypatch.setattr(gate_module, "_SCAN_SLICE", 500)  # many slices, cut at line ends
    gh, stripe, aws = (
        fake("github-classic", 3)[0],
        fake("stripe", 3)[0],
        fake("aws-access-key", 3)[0],
    )
    filler = "".join(f"<p>line {i} of ordinary text</p>\n" for i in range(200))
    page = (
        filler
        # split by highlighting spans: only the text view joins it
        + f'<pre><code><span class="n">{gh[:10]}</span><span class="o">{gh[10:]}</span></code></pre>\n'
        + filler
        + f'<a href="https://example.com/?key={stripe}" title="x">link</a>\n'  # an attribute
        + filler
        + f"<p>curl https://example.com/?id={''.join(f'%{ord(c):02X}' for c in aws[:6])}{aws[6:]}</p>\n"  # URL-encoded
        + filler
    )
    r = Redactor.create()
    found = dict(scan_text(r, page, workers))
    assert found == {"github-token": 1, "stripe-key": 1, "aws-access-key": 1}
    assert scan_text(r, filler * 3, workers) == []
    # a written page is read a slice at a time (cut at line ends, so UTF-8 stays whole)
    written = tmp_path / "page.html"
    written.write_text("<p>ünïcödé ⟪U+202E⟫</p>\n" * 100 + page, "utf-8")
    assert dict(scan_file(r, written, workers)) == found


def test_gate_passes_page_furniture() -> None:
    """The page's own CSS/JS, tokens, inline images and hashes do not trip the gate."""
    from piexport.page.render import _css
    from piexport.page.scripts import LIVE, PAGES, page_script
    from piexport.search.script import script_constants

    css = _css()
    js = "".join(
        page_script(kind, live, script_constants() if kind == "search" else None)
        for kind in PAGES
        for live in ((False, True) if kind in LIVE else (False,))
    )
    png = base64.b64encode(bytes(range(256)) * 50).decode()
    text = (
        css + js + "[REDACTED:github-token:0123abcd] "
        f'<img src="data:image/png;base64,{png}"> '
        + hashlib.sha1(b"x").hexdigest()
        + " sha512-"
        + base64.b64encode(hashlib.sha512(b"x").digest()).decode()
    )
    assert scan_text(Redactor.create(), text) == []


def benign_corpus() -> list[str]:
    rng = random.Random(20250101)
    lines: list[str] = []
    words = [
        "the",
        "token",
        "was",
        "refreshed",
        "and",
        "the",
        "password",
        "prompt",
        "showed",
        "up",
        "before",
        "the",
        "secret",
        "manager",
        "synced",
    ]
    for i in range(150):
        sha = hashlib.sha1(str(i).encode()).hexdigest()
        lines.append(f"commit {sha}")
        lines.append(f"{sha[:7]} Merge pull request #{i} from alice/feature-{i}")
        lines.append(str(uuid.UUID(int=rng.getrandbits(128), version=4)))
        digest = base64.b64encode(hashlib.sha512(sha.encode()).digest()).decode()
        lines.append(f'      "integrity": "sha512-{digest}",')
        lines.append(
            f'  resolved "https://registry.yarnpkg.com/pkg-{i}/-/pkg-{i}-1.0.{i}.tgz#{sha}"'
        )
        lines.append(base64.b64encode(rng.randbytes(57)).decode())
        lines.append(
            f"sha256:{hashlib.sha256(sha.encode()).hexdigest()}  /var/lib/docker/overlay2/{sha}/diff"
        )
        lines.append(
            f'!function(e,t){{var n=e.token||t.{_r(rng, 4, string.ascii_lowercase)};return n&&n.split(".")[{i % 3}]}}(window,{{}});'
        )
        lines.append(
            f"/home/alice/src/project-{i}/node_modules/@scope/pkg-{sha[:8]}/dist/index.min.js"
        )
        lines.append(" ".join(rng.choice(words) for _ in range(14)).capitalize() + ".")
        lines.append(f"password = getpass.getpass(prompt='Password for {i}: ')")
        lines.append(f"if not token: raise ValueError('token {i} missing')  # see docs/auth.md")
        lines.append(f"API_KEY=${{API_KEY_{i}}}")
        lines.append(f'<script src="app.{sha[:10]}.js" integrity="sha384-{digest[:64]}"></script>')
        # code and config that names secrets without holding one
        lines.append(CONFIG_NAMES_NOT_SECRETS[i % len(CONFIG_NAMES_NOT_SECRETS)].format(i=i))
    return lines


CONFIG_NAMES_NOT_SECRETS = [
    "token: str",
    "    api_key: Optional[str] = None",
    "      secretName: db-credentials-{i}",
    "tokenUrl: https://auth.example.com/oauth/{i}/token",
    "        token = self._token",
    "password_hint: Your first pet",
    "  password_file: /run/secrets/db_pw_{i}",
    "    token: SecretStr",
    "  password: ${{DB_PASSWORD_{i}}}",
    "  token: ${{{{ secrets.TOKEN_{i} }}}}",
    "password: <your-password>",
    "max_tokens: {i}",
    "access_token_expires_in: 36{i}",
    "tokenizer: gpt2-{i}",
    "token_type: Bearer",
    "    secrets: inherit",
    "  - secretRef: {{name: app-{i}}}",
    "    const password = req.body.password;",
    "password_length: {i}",
    "api_version: 2024-01-{i}",
]


def test_benign_corpus_false_positive_rate(capsys: pytest.CaptureFixture[str]) -> None:
    lines = benign_corpus()
    assert len(lines) >= 2000
    r = Redactor.create()
    changed = [line for line in lines if r.redact_text(line) != line]
    rate = len(changed) / len(lines)
    with capsys.disabled():
        print(
            f"\nbenign corpus: {len(lines)} lines, {len(changed)} redacted ({rate:.2%} false positives): {dict(r.counts)}"
        )
    assert rate < 0.01, changed[:5]
    assert scan_text(Redactor.create(), "\n".join(lines)) == []


def test_json_escaped_secret_in_the_file_is_caught(tmp_path: Path) -> None:
    """The loader decodes ``\\u0061``, so a secret spelled with JSON escapes is still found."""
    _, secret = fake("anthropic", 3)
    escaped = secret.replace("sk-ant-api03", "sk-ant-\\u0061pi03").replace("-", "\\u002d", 1)
    line = (
        '{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T10:00:01.000Z",'
        f'"message":{{"role":"user","content":"key {escaped}"}}}}'
    )
    path = tmp_path / "escaped.jsonl"
    path.write_bytes(to_lines([HEADER]) + line.encode() + b"\n")
    result = export_session(path, tmp_path / "escaped.html", redactor=Redactor.create())
    assert result.redacted == {"anthropic-key": 1}
    assert_no_leak([tmp_path / "escaped.html"], {secret: "anthropic"})


# --- issue 14: leaks, refusals and over-redaction found by an outside attack -------------

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
AKIA_TAIL = "IOSFODNN7EXAMPL2"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("mysql -u root --password=Sup3rS3cret shop", "Sup3rS3cret"),
        ("mysql -u root --password 'Sup3rS3cret' shop", "Sup3rS3cret"),
        ("pg_dump --db-password=Sup3rS3cret", "Sup3rS3cret"),
        ("mysql -uroot -pSup3rS3cret shop", "Sup3rS3cret"),
        ("mysqldump -u root -p'Sup3rS3cret' shop > x.sql", "Sup3rS3cret"),
        ("sshpass -p 'Sup3rS3cret' ssh deploy@10.0.0.5", "Sup3rS3cret"),
        ("sshpass -p Sup3rS3cret scp a b:", "Sup3rS3cret"),
        ("redis-cli -h cache -a Sup3rS3cret ping", "Sup3rS3cret"),
        ("curl -d 'user=admin&password=Sup3rS3cret' https://x", "Sup3rS3cret"),
        ("curl -d 'password=Sup3rS3cret&user=admin' https://x", "Sup3rS3cret"),
        ("GET https://api.example.com/v1/me?access_token=ya29a0AfB_byC7x", "ya29a0AfB_byC7x"),
        ("https://x.example.com/feed?page=2&api_key=8f7e6d5c4b3a2910", "8f7e6d5c4b3a2910"),
        ("https://x.example.com/?token=abcd1234efgh&x=1", "abcd1234efgh"),
        ("https://maps.example.com/api?key=Zx9Yw8Vu7Ts6Rq5Po4Nm", "Zx9Yw8Vu7Ts6Rq5Po4Nm"),
        ("https://s3.amazonaws.com/b/k?X-Amz-Signature=0a1b2c3d4e5f6a7b", "0a1b2c3d4e5f6a7b"),
        ("curl -u deploy:Sup3rS3cret https://ci.example.com", "Sup3rS3cret"),
        ("curl --user 'deploy:Sup3rS3cret' https://ci.example.com", "Sup3rS3cret"),
        ("git remote add origin deploy:Sup3rS3cret@git.example.com/shop.git", "Sup3rS3cret"),
        ("HTTPS_PROXY=proxyuser:Sup3rS3cret@proxy.corp.example:3128", "Sup3rS3cret"),
        (
            "curl https://api.telegram.org/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/getMe",
            "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
        ),
        ("token 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw ok", "HdqTcvCH1vGWJxfSeofSAs0K"),
        ("curl -H 'Cookie: sessionid=8f7e6d5c4b3a29108f7e; csrftoken=x'", "8f7e6d5c4b3a29108f7e"),
        ("Set-Cookie: session=8f7e6d5c4b3a29108f7e; Path=/; HttpOnly", "8f7e6d5c4b3a29108f7e"),
        ("curl -b 'sessionid=8f7e6d5c4b3a29108f7e' https://x", "8f7e6d5c4b3a29108f7e"),
        ("-H 'Authorization: Basic ZGVwbG95OlN1cDNyUzNjcmV0'", "ZGVwbG95OlN1cDNyUzNjcmV0"),
        ('-H "Proxy-Authorization: Basic ZGVwbG95OlN1cDNyUzNjcmV0"', "ZGVwbG95OlN1cDNyUzNjcmV0"),
        (
            '"SecretString": "{\\"username\\":\\"admin\\",\\"password\\":\\"Sup3rS3cret\\"}"',
            "Sup3rS3cret",
        ),
        (
            json.dumps({"SecretString": json.dumps(json.dumps({"password": "Sup3rS3cret"}))}),
            "Sup3rS3cret",
        ),
        ('"SessionToken": "IQoJb3JpZ2luX2Vj' + "A" * 900 + 'Zz9"', "AAAAZz9"),
        ("AWS_SESSION_TOKEN=IQoJb3JpZ2luX2Vj" + "B" * 900 + "Zz9", "BBBBZz9"),
    ],
)
def test_command_line_url_header_and_escaped_forms(text: str, secret: str) -> None:
    r = Redactor.create()
    out = r.redact_text(text)
    assert secret not in out and "[REDACTED:" in out, out
    assert scan_text(Redactor.create(), out) == []  # what the redactor leaves, the gate passes


@pytest.mark.parametrize(
    "text",
    [
        "docker run -u 1000:1000 -p 8080:80 nginx:1.25@sha256:" + "a" * 64,
        "git push -u origin main && ssh -p 2222 deploy@host",
        "mailto:alice@example.com and git@github.com:org/repo.git",
        "connect(user=user, password=password) and token=token,",
        "sort?key=name&page=2&code=200",
        "Authorization: Basic...",
        "docker login --password-stdin < pw.txt",
        "mysql -u root -p shop",
    ],
)
def test_command_line_forms_spare_lookalikes(text: str) -> None:
    r = Redactor.create()
    assert r.redact_text(text) == text, r.counts


@pytest.mark.parametrize("mark", ["\u034f", "\ufe0f", "\u3164", "\u115f", "\ufe00", "\U000e0100"])
def test_characters_that_render_as_nothing_do_not_hide_a_key(mark: str) -> None:
    r = Redactor.create()
    for text in (f"AKIA{mark}{AKIA_TAIL}", GHP[:4] + mark + GHP[4:], GHP[:20] + mark + GHP[20:]):
        out = r.redact_text(f"key {text} end")
        assert out.startswith("key [REDACTED:") and out.endswith("] end"), out


@pytest.mark.parametrize(
    "text",
    [
        f"AKIA**{AKIA_TAIL}**",
        f"AKIA*{AKIA_TAIL}*",
        f"AKIA`{AKIA_TAIL}`",
        "ghp\\_" + GHP[4:],
        "ghp&#95;" + GHP[4:],
        f"AKIA&#x{ord(AKIA_TAIL[0]):x};{AKIA_TAIL[1:]}",
    ],
)
def test_markdown_that_joins_a_key_is_read_joined(
    text: str, runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    tail = GHP[4:] if "ghp" in text else AKIA_TAIL[1:]
    r = Redactor.create()
    assert tail not in r.redact_text(f"the key is {text}.")
    # one secret, one token, however it is written
    plain = GHP if "ghp" in text else "AKIA" + AKIA_TAIL
    assert r.redact_text(text).startswith(r.redact_text(plain))
    path = make_session([msg("u1", None, "user", f"the key is {text}.", 1)])
    for fmt in ("md", "html", "json"):
        out = tmp_path / f"p.{fmt}"
        result = runner.invoke(
            cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        assert tail not in out.read_text()


def test_a_config_value_never_spans_lines() -> None:
    r = Redactor.create()
    text = "CLIENT_SECRET=\nCLIENT_ID=my-public-client-id\nAPI_TOKEN=\n  next: 1\n"
    assert r.redact_text(text) == text
    assert r.redact_text("Authorization:\nBearer tokens are short-lived") == (
        "Authorization:\nBearer tokens are short-lived"
    )


def _render_all(runner: CliRunner, path: Path, tmp_path: Path) -> dict[str, str]:
    """The session rendered with --redact as html, md, json and both summaries: every one
    must be written."""
    pages = {}
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"{path.stem}.{fmt}"
        result = runner.invoke(
            cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
        )
        assert result.exit_code == 0, (fmt, result.output)
        pages[fmt] = out.read_text()
    for fmt in ("markdown", "json"):
        result = runner.invoke(cli, ["summary", "--redact", "--format", fmt, str(path)])
        assert result.exit_code == 0, (fmt, result.output)
        pages["summary-" + fmt] = result.stdout
    return pages


def test_structured_pairs_are_redacted_as_the_page_shows_them(
    runner: CliRunner, tmp_path: Path, make_session: Any
) -> None:
    calls = [
        {
            "type": "toolCall",
            "id": "c1",
            "name": "login",
            "arguments": {"username": "bob", "password": "correct-horse-battery"},
        },
        {
            "type": "toolCall",
            "id": "c2",
            "name": "http",
            "arguments": {
                "url": "https://api.example.com",
                "headers": {"Authorization": "Bearer Zx9Yw8Vu7Ts6Rq5Po4Nm", "Accept": "*/*"},
            },
        },
        {
            "type": "toolCall",
            "id": "c3",
            "name": "configure",
            "arguments": {"apiKey": "YOUR_API_KEY_HERE", "token": "see docs"},
        },
    ]
    path = make_session(
        [
            msg("u1", None, "user", "log in", 1),
            msg("a1", "u1", "assistant", calls, 2, stopReason="toolUse"),
            {
                "type": "custom",
                "id": "c9",
                "parentId": "a1",
                "timestamp": ts(3),
                "customType": "ext",
                "data": {
                    "attachment": {"type": "image", "data": "db password is Sup3rS3cret: " + GHP},
                    "call": {"type": "toolCall", "id": "AKIA" + AKIA_TAIL, "name": "x"},
                    "creds": {"password": "hunter2-horse"},
                },
            },
        ]
    )
    pages = _render_all(runner, path, tmp_path)
    for fmt, page in pages.items():
        for secret in (
            "correct-horse-battery",
            "Zx9Yw8Vu7Ts6Rq5Po4Nm",
            GHP,
            AKIA_TAIL,
            "hunter2-horse",
        ):
            assert secret not in page, (fmt, secret)
    assert "YOUR_API_KEY_HERE" in pages["html"] and "see docs" in pages["html"]


def test_no_shortening_cuts_a_token(runner: CliRunner, tmp_path: Path, make_session: Any) -> None:
    """Navigator rows, tool-call summaries, titles, previews, indexes: a cut lands before a
    token, never inside it, and the page's own words are not read as a value."""
    records: list[Any] = []
    parent = None
    for i, pad in enumerate(range(140, 200, 3)):  # the row's cut sweeps across the token
        records.append(msg(f"u{i}", parent, "user", "x" * pad + f" API_TOKEN={GHP} done", i + 1))
        parent = f"u{i}"
    for i in range(0, 52, 2):  # a curl with a token at many offsets of the bash summary
        cmd = "cd /srv && " + "y" * i + f" curl -H 'Authorization: Bearer {GHP}' https://x"
        call = {"type": "toolCall", "id": f"b{i}", "name": "bash", "arguments": {"command": cmd}}
        records.append(msg(f"a{i}", parent, "assistant", [call], 100 + i, stopReason="toolUse"))
        records.append(tool_result(f"r{i}", f"a{i}", "ok", 101 + i, f"b{i}", "bash"))
        parent = f"r{i}"
    env = "\n".join([f"VAR_{n}=value-{n}" for n in range(19)] + ["SESSION_SECRET="])
    env += "\n" + "\n".join(f"OTHER_{n}=1" for n in range(10))
    call = {"type": "toolCall", "id": "e1", "name": "read", "arguments": {"path": ".env"}}
    records.append(msg("ae", parent, "assistant", [call], 200, stopReason="toolUse"))
    records.append(tool_result("re", "ae", env, 201, "e1", "read"))
    records.append(msg("be", "re", "bashExecution", None, 202, command="cat .env", output=env))
    path = make_session(records)
    pages = _render_all(runner, path, tmp_path)
    for fmt, page in pages.items():
        assert GHP not in page, fmt
        assert not re.search(r"\[REDACTED:[a-z0-9-]*(?::[0-9a-f]{0,7})?(?:…|\.\.\.|$)", page), fmt

    # a session name or first message whose title is cut inside a token
    for pad in (60, 70, 75, 190, 195, 290, 295):
        named = make_session(
            [msg("u1", None, "user", "z" * pad + f" key {GHP} " + "w" * 400, 1)],
            name=f"t{pad}.jsonl",
        )
        _render_all(runner, named, tmp_path)


def test_shorten_never_leaves_half_a_token() -> None:
    """A cut that falls inside a token keeps it whole (``KEY=[REDACTED:…]…`` says what was
    there; ``KEY=…`` reads as a key whose value was cut away); one from the left drops it."""
    from piexport.text.cut import TOKEN_MAX, shorten, shorten_left

    token = Redactor.create().token("github-token", GHP)
    text = "a" * 30 + token + "b" * 30
    for limit in range(1, len(text) + 2):
        for mark in ("…", "...", ""):
            short = shorten(text, limit, mark)
            assert len(short) <= max(limit, len(mark)) + TOKEN_MAX
            body = short[: len(short) - len(mark)] if short != text else short
            assert "[REDACTED:" not in body or token in body
            assert "[RE" not in body.replace(token, "") and not body.endswith("[")
            if 30 < limit - len(mark) < 30 + len(token):
                assert body.endswith(token)
            left = shorten_left(text, limit, mark)
            assert len(left) <= max(limit, len(mark))
            rest = left[len(mark) :] if left != text else left
            assert "[REDACTED:" not in rest or token in rest
            assert "]" not in rest.replace(token, "")


def test_site_redacts_and_gates_every_name_and_file(runner: CliRunner, tmp_path: Path) -> None:
    """A secret in a session's file name, in its project folder's name (no cwd in the
    header) or in its cwd never reaches a page name, a folder name, an index or the
    manifest; the site is written."""
    root = tmp_path / "sessions"
    stripe = fake("stripe", 77)[0]
    folder = root / f"--home-alice-{GHP}--"
    folder.mkdir(parents=True)
    no_cwd = {k: v for k, v in HEADER.items() if k != "cwd"}
    (folder / f"2025-01-01T10-00-00-000Z_{stripe}.jsonl").write_bytes(
        to_lines([no_cwd, msg("u1", None, "user", "hello", 1)])
    )
    aws = "AKIA" + AKIA_TAIL
    other = root / "--srv-x--"
    other.mkdir()
    header = {**HEADER, "id": "0195a000-0000-7000-8000-000000000009", "cwd": f"/srv/{aws}/app"}
    (other / f"2025-01-02T10-00-00-000Z_pw=Sup3r{GHP[10:20]}.jsonl").write_bytes(
        to_lines([header, msg("u1", None, "user", "hi", 1)])
    )
    (other / "broken-sk_live_0123456789abcdefABCD.jsonl").write_bytes(b"not json\n")
    out = tmp_path / "site"
    result = runner.invoke(cli, ["site", str(root), "-o", str(out), "--redact", "-j", "1"])
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == ".piexport-manifest.json" for p in files)
    assert len([p for p in files if p.name.startswith("2025-")]) == 2, result.output
    secrets = {GHP: "github", stripe: "stripe", aws: "aws", "sk_live_0123456789abcdefABCD": "s"}
    assert_no_leak(files, secrets)
    for p in out.rglob("*"):
        for secret in secrets:
            assert secret not in p.name
    # unchanged on a second run: the manifest still finds its sessions by their redacted names
    again = runner.invoke(cli, ["site", str(root), "-o", str(out), "--redact", "-j", "1"])
    assert "2 unchanged" in again.stderr, again.stderr


def _innocent(case: Path | Case, tmp_path: Path) -> Path:
    """A sample session as it is, a file of the hostile corpus written out."""
    if isinstance(case, Path):
        return case
    path = tmp_path / f"{case.name}.jsonl"
    path.write_bytes(case.data)
    return path


INNOCENT = [
    *(pytest.param(p, id=p.stem[-12:]) for p in sample_files()),
    *(pytest.param(c, id=c.name) for c in cases() if not c.unusable),
]
"""Every sample session and every usable file of the hostile corpus: nothing in them is a
secret, so redaction finds (almost) nothing and the gate refuses none of their outputs."""


@pytest.mark.parametrize("case", INNOCENT)
def test_real_shaped_and_hostile_sessions_are_written_with_redact(
    case: Path | Case, tmp_path: Path
) -> None:
    """The gate refuses no innocent page: every sample session and every usable file of
    the hostile corpus renders with redaction, as html, md and json, and is written."""
    from piexport.export.gate import Gate
    from piexport.export.pipeline import share_session
    from piexport.report.formats import session_json, session_markdown

    path = _innocent(case, tmp_path)
    redactor = Redactor.create()
    out = tmp_path / "page.html"
    export_session(path, out, redactor=redactor)  # raises RedactionError if refused
    assert out.is_file()
    session, _ = share_session(load_session(path), redactor)
    for text in (session_markdown(session), session_json(session)):
        Gate(redactor).check(text, path)


def test_innocent_sessions_have_almost_nothing_redacted(tmp_path: Path) -> None:
    """All of them together, redacted once each: at most two look-alikes of a secret (the
    bound of five held for two passes over each file, the page's and the share's)."""
    from piexport import load_session as _load
    from piexport.export.pipeline import share_session

    assert len(sample_files()) >= 9
    redactor = Redactor.create()
    for param in INNOCENT:
        (case,) = param.values
        share_session(_load(str(_innocent(case, tmp_path))), redactor)
    print(
        f"\nredacted in {len(INNOCENT)} real-shaped and hostile sessions: {dict(redactor.counts)}"
    )
    assert sum(redactor.counts.values()) <= 2, dict(redactor.counts)


ADVERSARIAL = [
    "--password ",
    "--a-b-password=",
    "mysql -x ",
    "sshpass -a ",
    "redis-cli x ",
    "-u a:",
    "-u ",
    "?token=",
    "&key=" + "a" * 15,
    " password=1",
    "cookie:",
    "Set-Cookie: a=",
    "-b 'a=",
    '"password": "',
    '\\"password\\":\\"',
    '\\\\\\"password\\\\\\": ',
    "PASSWORD=",
    "password: a1",
    # the assignment grammar's layouts (issue 35): next line, continuation, tab, element
    "password:\n",
    "TOKEN=\\\n",
    "api_key\t",
    "<password>",
    "Authorization: Bearer ",
    "/bot1:",
    "12345678:AA",
    "a:bbbb",
    "a:b@",
    "AKIA*",
    "a\\",
    "x`",
    "ghp_\ufe0f",
    "\u034f",
    "a&#95;",
    "&amp;",
    "x&#95;&#95;",
]


class _CountingPattern:
    """A rule's pattern that counts what its searches get through: from where each search
    starts to where its match ends (or to the end of the text). A count, not a clock: the
    same on a quiet machine and a busy one."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.read = 0

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        m = self.pattern.search(text, pos)
        self.read += (m.end() if m else len(text)) - pos
        return m

    def finditer(self, text: str) -> Any:
        self.read += len(text)
        return self.pattern.finditer(text)

    def match(self, text: str, pos: int, endpos: int) -> re.Match[str] | None:
        self.read += endpos - pos
        return self.pattern.match(text, pos, endpos)


@pytest.mark.parametrize("seed", ADVERSARIAL)
def test_rules_read_hostile_text_a_bounded_number_of_times(seed: str) -> None:
    """The same near-miss repeated over 200 KB: every rule's searches together get through
    the text a bounded number of times (a refused match is read again only within the
    engine's counted rescan budget, so ``?token=?token=…`` is not read once per key)."""
    import dataclasses

    from piexport.redact.engine import RESCAN_FLOOR, RESCAN_PER_CHAR, _matches
    from piexport.redact.views import fast_normal

    text = fast_normal((seed * (200_000 // len(seed) + 1))[:200_000])
    for rule in Redactor.create().rules:
        counting = _CountingPattern(rule.pattern)
        counted = dataclasses.replace(rule, pattern=counting)  # type: ignore[arg-type]
        longest = max(
            (m.end() - m.start() for m in _matches(counted, text, text.lower())), default=0
        )
        bound = (RESCAN_PER_CHAR + 2) * len(text) + RESCAN_FLOOR + longest
        assert counting.read <= bound, (seed, rule.name, counting.read)


def _nested_repeats(pattern: str, flags: int = 0) -> list[str]:
    """The unbounded repeats inside another unbounded repeat (``(a+)+``, ``(?:a|b*)*``): the
    shape whose backtracking grows exponentially with the text. A possessive repeat or an
    atomic group backtracks into nothing, so what is inside it does not count."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as parser  # type: ignore[import-not-found]

    repeats = {c.MAX_REPEAT, c.MIN_REPEAT}
    found: list[str] = []

    def walk(items: Any, inside: bool) -> None:
        for op, av in items:
            if op in repeats:
                unbounded = av[1] == c.MAXREPEAT
                if unbounded and inside:
                    found.append(str(av)[:60])
                walk(av[2], inside or unbounded)
            elif op == c.SUBPATTERN:
                walk(av[-1], inside)
            elif op == c.BRANCH:
                for branch in av[1]:
                    walk(branch, inside)
            elif op in (c.ASSERT, c.ASSERT_NOT):
                walk(av[1], inside)
            elif op == c.GROUPREF_EXISTS:
                walk(av[1], inside)
                if av[2] is not None:
                    walk(av[2], inside)

    walk(parser.parse(pattern, flags), False)
    return found


@pytest.mark.parametrize(
    ("pattern", "nested"),
    [
        ("(a+)+b", True),
        ("(?:a|b*)*c", True),
        ("(?=(x+)*)y", True),
        ("a+b+", False),
        ("(?:ab){1,8}c+", False),
        ("(?>(a+)+)b", False),
        ("(?:a++)+", False),
    ],
)
def test_nested_repeats_are_found(pattern: str, nested: bool) -> None:
    assert bool(_nested_repeats(pattern)) == nested


def test_no_rule_nests_an_unbounded_repeat() -> None:
    """No rule (nor its line locator) can backtrack exponentially: no unbounded repeat sits
    inside another. Read from the compiled rules, so a new rule is checked as it lands."""
    for rule in Redactor.create().rules:
        for pattern in (rule.pattern, rule.lines):
            if pattern is not None:
                assert not _nested_repeats(pattern.pattern, pattern.flags), rule.name


FRAGMENTS = [
    *ADVERSARIAL,
    GHP,
    "AKIA" + AKIA_TAIL,
    "Sup3rS3cret!",
    "deploy:",
    "@git.example.com",
    "https://",
    "=",
    ":",
    " ",
    "\n",
    '"',
    "'",
    "\\",
    "*",
    "_",
    "…",
    "...",
    "$VAR",
    "<token>",
    "YOUR_API_KEY_HERE",
    "see docs",
    "\u200b",
    "\u034f",
]


def test_what_the_redactor_leaves_the_gate_passes() -> None:
    """One definition of a secret: text the redactor has been over, shown on a page, holds
    nothing the gate refuses."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    r = Redactor.create()

    @settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(
            st.one_of(st.sampled_from(FRAGMENTS), st.text(ALNUM, min_size=1, max_size=24)),
            max_size=24,
        )
    )
    def check(parts: list[str]) -> None:
        text = "".join(parts)
        redacted = r.redact_text(text)
        assert scan_text(r, f"<pre>{html.escape(redacted)}</pre>") == [], (text, redacted)

    check()


def test_pairs_the_redactor_leaves_the_gate_passes() -> None:
    """A key and its value redacted as a pair pass the gate in every form a page shows
    them: JSON, ``key: value`` and ``key=value``."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    r = Redactor.create()
    keys = ["password", "apiKey", "Authorization", "Cookie", "db_password", "token", "secret"]

    @settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(keys),
        st.lists(
            st.one_of(st.sampled_from(FRAGMENTS), st.text(ALNUM, min_size=1, max_size=24)),
            max_size=12,
        ),
    )
    def check(key: str, parts: list[str]) -> None:
        value = r.redact_pair(key, "".join(parts))
        for shown in (
            json.dumps({key: value}, indent=2, ensure_ascii=False),
            f"{key}: {value}",
            f"{key}={value}",
        ):
            assert scan_text(r, f"<pre>{html.escape(shown)}</pre>") == [], (key, parts, value)

    check()


def test_every_form_in_every_field(runner: CliRunner, tmp_path: Path) -> None:
    """Each kind of secret in each field (not just the four a field gets in the planted
    session), in html, md and json: nothing leaks and nothing is refused."""
    plant = Plant(per_field=len(KINDS))
    path = tmp_path / "every.jsonl"
    path.write_bytes(to_lines(planted_session(plant)))
    pairs = set(plant.placements)
    assert {k for f, k in pairs if f == "bash command"} == set(KINDS)
    outs = []
    for fmt in ("html", "md", "json"):
        out = tmp_path / f"every.{fmt}"
        result = runner.invoke(
            cli, ["render", "--redact", "--format", fmt, str(path), "-o", str(out)]
        )
        assert result.exit_code == 0, result.output
        outs.append(out)
    assert_no_leak(outs, plant.secrets)


def test_every_kind_in_a_session_file_name(runner: CliRunner, tmp_path: Path) -> None:
    """Each kind of secret that can be part of a file name, in a session's file name: no
    page name, index or manifest of the site holds it, and every page is written."""
    root = tmp_path / "sessions"
    folder = root / "--home-alice-names--"
    folder.mkdir(parents=True)
    secrets: dict[str, str] = {}
    for i, kind in enumerate(KINDS):
        text, secret = fake(kind, 500 + i)
        if "/" in text or "\n" in text or len(text.encode()) > 200:
            continue
        secrets[secret] = kind
        header = {**HEADER, "id": f"0195a000-0000-7000-8000-{i:012d}"}
        name = f"2025-01-01T10-00-{i:02d}-000Z_{text}.jsonl"
        (folder / name).write_bytes(to_lines([header, msg("u1", None, "user", "hi", 1)]))
    assert len(secrets) >= 25
    out = tmp_path / "site"
    result = runner.invoke(cli, ["site", str(root), "-o", str(out), "--redact", "-j", "1"])
    assert result.exit_code == 0, result.output
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len([p for p in files if p.name.startswith("2025-")]) == len(secrets)
    assert_no_leak(files, secrets)


def test_refused_matches_are_read_again_a_counted_number_of_times() -> None:
    """Text made of refused matches (``?token=`` repeated: each a URL query's key with a value
    thousands of characters long) is not read again once per key: the characters of refused
    matches read again are counted and bounded by a few times the text (it took 11 s of CPU
    for 200 KB, 0.05 s before the grammar)."""
    from dataclasses import replace

    from piexport.redact import engine
    from piexport.redact.rules import builtin_rules

    class Counting:
        def __init__(self, pattern: Any) -> None:
            self.pattern, self.chars = pattern, 0

        def search(self, text: str, pos: int = 0) -> Any:
            m = self.pattern.search(text, pos)
            if m is not None:
                self.chars += m.end() - m.start()
            return m

    text = "?token=" * 30_000  # 210 KB
    for rule in builtin_rules():
        if rule.accept is None:
            continue
        counting = Counting(rule.pattern)
        list(engine._matches(replace(rule, pattern=counting), text, text.lower()))  # type: ignore[arg-type]
        bound = (engine.RESCAN_PER_CHAR + 1) * len(text) + engine.RESCAN_FLOOR + 8192
        assert counting.chars <= bound, (rule.name, counting.chars, bound)

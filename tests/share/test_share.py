"""``piexport share`` / ``piexport shares`` with a fake ``gh`` on PATH that records every call
and keeps a copy of every file it was asked to upload."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from piexport import Redactor, load_session
from piexport.cli import cli
from piexport.share.log import ShareLog, ShareRecord, state_dir

from tests.support.secrets import Plant, assert_no_leak, fake, planted_session
from tests.support.sessions import SAMPLES, msg, to_lines

FAKE_GH = """\
#!{python}
import json, os, shutil, sys
from pathlib import Path

state = Path(os.environ["FAKE_GH_DIR"])
mode = os.environ.get("FAKE_GH_MODE", "ok")
args = sys.argv[1:]
call = {{"argv": args, "env": {{"GH_PROMPT_DISABLED": os.environ.get("GH_PROMPT_DISABLED")}},
        "stdin_tty": sys.stdin is not None and sys.stdin.isatty()}}
if args[:2] == ["gist", "create"]:
    call["files"] = []
    for name in [a for a in args[2:] if not a.startswith("-")]:
        p = Path(name)
        uploads = state / "uploads"
        uploads.mkdir(exist_ok=True)
        shutil.copy(p, uploads / p.name)
        call["files"].append({{
            "path": name,
            "mode": p.stat().st_mode & 0o777,
            "dir_mode": p.parent.stat().st_mode & 0o777,
        }})
with open(state / "calls.jsonl", "a") as fh:
    fh.write(json.dumps(call) + "\\n")

if args[:2] == ["auth", "status"]:
    if mode == "noauth":
        print("You are not logged into any GitHub hosts. To log in, run: gh auth login",
              file=sys.stderr)
        sys.exit(1)
    print("github.com\\n  \\u2713 Logged in to github.com account alice", file=sys.stderr)
elif args[:2] == ["gist", "create"]:
    if mode == "network":
        print("error connecting to api.github.com", file=sys.stderr)
        sys.exit(1)
    counter = state / "counter"
    n = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(n))
    print("- Creating gist", file=sys.stderr)
    print("\\u2713 Created secret gist", file=sys.stderr)
    print(f"https://gist.github.com/{{n:032x}}")
elif args[:2] == ["gist", "delete"]:
    if mode == "oldgh" and "--yes" in args:
        print("unknown flag: --yes", file=sys.stderr)
        sys.exit(1)
    if mode == "gone":
        print(f"unable to delete gist {{args[2]}}: HTTP 404: Not Found", file=sys.stderr)
        sys.exit(1)
    if mode == "network":
        print("error connecting to api.github.com", file=sys.stderr)
        sys.exit(1)
else:
    print("unknown command", args, file=sys.stderr)
    sys.exit(2)
"""


class FakeGh:
    def __init__(self, root: Path) -> None:
        self.bin = root / "bin"
        self.dir = root / "gh-state"
        self.bin.mkdir()
        self.dir.mkdir()
        script = self.bin / "gh"
        script.write_text(FAKE_GH.format(python=sys.executable))
        script.chmod(0o755)

    def calls(self) -> list[dict[str, Any]]:
        path = self.dir / "calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def commands(self) -> list[list[str]]:
        return [c["argv"] for c in self.calls()]

    def uploads(self) -> list[Path]:
        folder = self.dir / "uploads"
        return sorted(folder.iterdir()) if folder.exists() else []


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeGh:
    fake_gh = FakeGh(tmp_path)
    monkeypatch.setenv("PATH", f"{fake_gh.bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_GH_DIR", str(fake_gh.dir))
    monkeypatch.delenv("FAKE_GH_MODE", raising=False)
    monkeypatch.delenv("PIEXPORT_SHARE_VIEWER", raising=False)
    return fake_gh


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never the real home: the share log lives in the test's own folder."""
    folder = tmp_path / "state"
    monkeypatch.setenv("PIEXPORT_STATE_DIR", str(folder))
    return folder


def log_path(state: Path) -> Path:
    return state / "shares.jsonl"


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Plant]:
    plant = Plant()
    # a secret in the file name too: it must not reach the gist's file name
    name = fake("github-classic", 991)
    plant.secrets[name[1]] = "github-classic"
    path = tmp_path / f"2025-01-01_{name[0]}.jsonl"
    path.write_bytes(to_lines(planted_session(plant)))
    return path, plant


def share(runner: CliRunner, *args: str, **kw: Any) -> Any:
    return runner.invoke(cli, ["share", *args], **kw)


def test_share_uploads_a_redacted_secret_gist(
    runner: CliRunner, gh: FakeGh, state: Path, planted: tuple[Path, Plant]
) -> None:
    path, plant = planted
    result = share(runner, str(path))
    assert result.exit_code == 0, result.output

    commands = gh.commands()
    assert commands[0] == ["auth", "status"]
    [create] = [c for c in gh.calls() if c["argv"][:2] == ["gist", "create"]]
    argv = create["argv"]
    # secret: gh's default, --public is never passed
    assert not {"--public", "-p", "--web", "-w"} & set(argv)
    assert create["env"]["GH_PROMPT_DISABLED"] == "1" and not create["stdin_tty"]
    [upload] = gh.uploads()
    assert_no_leak([upload], plant.secrets)
    for secret in plant.secrets:  # nor in the description or file name gh was given
        assert all(secret not in a for a in argv)
    page = upload.read_text()
    assert "[REDACTED:" in page and "Shared view:" in page and "secrets redacted (" in page
    # the page reached gh from a private file in a private folder, removed afterwards
    [sent] = create["files"]
    assert sent["mode"] == 0o600 and sent["dir_mode"] == 0o700
    assert not Path(sent["path"]).exists() and not Path(sent["path"]).parent.exists()
    assert upload.name.endswith(".html") and "REDACTED" in upload.name

    url = "https://gist.github.com/00000000000000000000000000000001"
    assert result.stdout.splitlines() == [url]
    assert "redacted " in result.stderr and "piexport share --revoke" in result.stderr

    [record] = ShareLog(log_path(state)).records()
    assert record.url == url and record.gist_id == url.rsplit("/", 1)[1]
    # the log keeps the path as the page shows it (its file name holds a token)
    assert record.session == Redactor.create().redact_text(str(path.resolve())) and record.redacted
    assert_no_leak([log_path(state)], plant.secrets)
    assert record.session_id == "0195a000-0000-7000-8000-000000000001"
    assert record.leaf == load_session(path).tree.leaf_id and record.revoked_at is None
    total = sum(record.secrets.values())
    assert total > 20 and f"redacted {total} secrets" in result.stderr
    assert record.selection["branch"] == "all" and record.selection["noThinking"] is False
    assert stat.S_IMODE(log_path(state).stat().st_mode) == 0o600


def test_selection_description_and_viewer(
    runner: CliRunner, gh: FakeGh, state: Path, make_session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_session(
        [
            msg("u1", None, "user", "build it", 1),
            msg("a1", "u1", "assistant", [{"type": "thinking", "thinking": "PONDER"}], 2),
            msg("a2", "u1", "assistant", [{"type": "text", "text": "SIBLINGTEXT"}], 3),
        ]
    )
    result = share(
        runner,
        str(path),
        "--branch",
        "current",
        "--leaf",
        "a1",
        "--no-thinking",
        "--description",
        "my demo",
        "--viewer",
        "https://viewer.example/#{id}",
    )
    assert result.exit_code == 0, result.output
    gist_id = f"{1:032x}"
    assert result.stdout.splitlines()[1] == f"https://viewer.example/#{gist_id}"
    [create] = [c for c in gh.commands() if c[:2] == ["gist", "create"]]
    assert "--desc=my demo" in create
    page = gh.uploads()[0].read_text()
    assert "PONDER" not in page and "SIBLINGTEXT" not in page
    [record] = ShareLog(log_path(state)).records()
    assert record.leaf == "a1" and record.description == "my demo"
    assert record.selection == {
        "branch": "current",
        "leaf": "a1",
        "noThinking": True,
        "noToolOutput": False,
        "noImages": False,
        "onlyContext": False,
    }
    assert record.viewer_url == f"https://viewer.example/#{gist_id}"

    # the viewer from the environment; the default description is the (redacted) title
    monkeypatch.setenv("PIEXPORT_SHARE_VIEWER", "https://v2.example/{id}")
    result = share(runner, str(path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[1] == f"https://v2.example/{2:032x}"
    assert "--desc=pi session: build it" in gh.commands()[-1]

    bad = share(runner, str(path), "--viewer", "https://viewer.example/")
    assert bad.exit_code == 2 and "{id}" in bad.output


def test_no_redact_warns_without_a_terminal(
    runner: CliRunner, gh: FakeGh, state: Path, planted: tuple[Path, Plant]
) -> None:
    path, plant = planted
    result = share(runner, str(path), "--no-redact")
    assert result.exit_code == 0, result.output
    assert "without redaction" in result.stderr
    page = gh.uploads()[0].read_text()
    assert any(secret in page for secret in plant.secrets)
    [record] = ShareLog(log_path(state)).records()
    assert not record.redacted and record.secrets == {}

    both = share(runner, str(path), "--no-redact", "--redact-pattern", "x+")
    assert both.exit_code == 2 and "--no-redact cannot be combined" in both.output


@pytest.mark.parametrize("answer", ["n", "y"])
def test_no_redact_asks_on_a_terminal(
    runner: CliRunner,
    gh: FakeGh,
    state: Path,
    planted: tuple[Path, Plant],
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
) -> None:
    import piexport.cli.share as cli_module

    monkeypatch.setattr(cli_module, "_interactive", lambda: True)
    path, _ = planted
    result = share(runner, str(path), "--no-redact", input=f"{answer}\n")
    assert "WITHOUT redaction" in result.output
    if answer == "n":
        assert result.exit_code == 1
        assert gh.commands() == [] and not log_path(state).exists()
    else:
        assert result.exit_code == 0, result.output
        assert len(gh.uploads()) == 1


def _leaky(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page whose renderer lets a secret through: the gate has to stop it."""
    import piexport.export.pipeline as export_module

    real = export_module.render_session_parts
    leak = fake("stripe", 5)[0]

    def leaky(*a: Any, **k: Any) -> Any:
        yield from real(*a, **k)
        yield leak

    monkeypatch.setattr(export_module, "render_session_parts", leaky)


@pytest.mark.parametrize("failure", ["no-gh", "noauth", "network", "gate", "bad-leaf"])
def test_failures_upload_nothing_and_record_nothing(
    runner: CliRunner,
    gh: FakeGh,
    state: Path,
    make_session: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    path = make_session([msg("u1", None, "user", "hello", 1)])
    assert share(runner, str(path)).exit_code == 0  # one share already in the log
    before = log_path(state).read_bytes()
    uploads = len(gh.uploads())
    args = [str(path)]
    if failure == "no-gh":
        empty = tmp_path / "empty-bin"
        empty.mkdir()
        monkeypatch.setenv("PATH", str(empty))
    elif failure in ("noauth", "network"):
        monkeypatch.setenv("FAKE_GH_MODE", failure)
    elif failure == "gate":
        _leaky(monkeypatch)
    else:
        args += ["--leaf", "nope"]
    calls = len(gh.calls())
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    result = share(runner, *args)

    assert result.exit_code == (2 if failure == "bad-leaf" else 1), result.output
    assert list(temp.iterdir()) == []  # the private folder is gone, whatever failed
    assert log_path(state).read_bytes() == before
    assert result.stdout == ""
    expected = {
        "no-gh": "gh (GitHub's CLI) was not found on PATH",
        "noauth": "gh is not logged in to GitHub: run `gh auth login`: You are not logged",
        "network": "gh could not create the gist: error connecting to api.github.com",
        "gate": "not written: the redacted output still matches stripe-key",
        "bad-leaf": "nope",
    }[failure]
    assert expected in result.output
    new = gh.calls()[calls:]
    creates = [c for c in new if c["argv"][:2] == ["gist", "create"]]
    if failure == "network":  # gh was asked and failed: its copy of the page is gone
        [create] = creates
        assert not Path(create["files"][0]["path"]).parent.exists()
    else:
        assert creates == [] and len(gh.uploads()) == uploads


def test_revoke_deletes_and_marks(
    runner: CliRunner, gh: FakeGh, state: Path, make_session: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = make_session([msg("u1", None, "user", "first", 1)])
    b = make_session([msg("u1", None, "user", "second", 1)])
    for path in (a, a, b):
        assert share(runner, str(path)).exit_code == 0
    ids = [r.gist_id for r in ShareLog(log_path(state)).records()]
    assert len(set(ids)) == 3

    result = share(runner, "--revoke", f"https://gist.github.com/alice/{ids[2]}")
    assert result.exit_code == 0, result.output
    assert gh.commands()[-1] == ["gist", "delete", ids[2], "--yes"]
    assert f"revoked {ids[2]}" in result.stdout

    calls = len(gh.calls())
    again = share(runner, "--revoke", ids[2])
    assert again.exit_code == 0 and "already revoked" in again.stderr
    assert len(gh.calls()) == calls  # nothing asked of gh

    result = share(runner, "--revoke-session", str(a))
    assert result.exit_code == 0, result.output
    deletes = [c for c in gh.commands() if c[:2] == ["gist", "delete"]]
    assert [c[2] for c in deletes] == [ids[2], ids[0], ids[1]]
    records = ShareLog(log_path(state)).records()
    assert all(r.revoked_at for r in records)

    table = runner.invoke(cli, ["shares"])
    assert table.exit_code == 0
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["SHARED", "GIST", "STATUS", "SECRETS", "SESSION", "URL"]
    assert len(lines) == 4 and all("revoked 20" in line for line in lines[1:])
    assert lines[1].split()[1] == ids[0] and lines[1].endswith(records[0].url)
    as_json = json.loads(runner.invoke(cli, ["shares", "--format", "json"]).stdout)
    assert [r["gistId"] for r in as_json] == ids
    assert as_json[0]["redaction"] == {"on": True, "secrets": {}}
    assert as_json[0]["session"] == str(a.resolve())


@pytest.mark.parametrize("mode", ["gone", "oldgh", "network", "unknown-id", "noauth"])
def test_revoke_edge_cases(
    runner: CliRunner,
    gh: FakeGh,
    state: Path,
    make_session: Any,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    path = make_session([msg("u1", None, "user", "first", 1)])
    assert share(runner, str(path)).exit_code == 0
    [record] = ShareLog(log_path(state)).records()
    before = log_path(state).read_bytes()
    target = record.gist_id
    if mode == "unknown-id":
        target = "ffff"
    else:
        monkeypatch.setenv("FAKE_GH_MODE", mode)
    calls = len(gh.calls())
    result = share(runner, "--revoke", target)
    deletes = [c["argv"] for c in gh.calls()[calls:] if c["argv"][:2] == ["gist", "delete"]]
    [after] = ShareLog(log_path(state)).records()
    if mode in ("gone", "oldgh"):
        assert result.exit_code == 0, result.output
        assert after.revoked_at is not None
        if mode == "gone":
            assert "GitHub no longer had it" in result.stdout
        else:  # an older gh has no --yes (and does not ask)
            assert deletes == [["gist", "delete", target, "--yes"], ["gist", "delete", target]]
    else:
        assert result.exit_code == 1
        assert log_path(state).read_bytes() == before and after.revoked_at is None
        message = {
            "network": "gh could not delete gist",
            "unknown-id": "ffff: no share with this gist id",
            "noauth": "not logged in",
        }[mode]
        assert message in result.output
        if mode != "network":
            assert deletes == []


def test_share_arguments_are_checked(runner: CliRunner, gh: FakeGh, make_session: Any) -> None:
    path = make_session([msg("u1", None, "user", "first", 1)])
    assert share(runner).exit_code == 2
    both = share(runner, str(path), "--revoke", "abc")
    assert both.exit_code == 2 and "not both" in both.output
    assert share(runner, str(path.with_name("missing.jsonl"))).exit_code == 2
    assert gh.commands() == [] or gh.commands() == [["auth", "status"]]


def test_log_skips_bad_lines_and_a_line_being_written(tmp_path: Path) -> None:
    log = ShareLog(tmp_path / "s" / "shares.jsonl")
    record = ShareRecord(
        shared_at="2026-01-01T00:00:00Z",
        session="/x.jsonl",
        session_id="sid",
        leaf="l",
        gist_id="abc1",
        url="https://gist.github.com/abc1",
        description="d",
        redacted=True,
        secrets={"github-token": 2},
    )
    log.add(record)
    with log.path.open("a") as f:
        f.write("not json\n[1]\n")
        f.write('{"event": "share", "gistId": 5}\n')
        f.write('{"event": "future-thing", "x": 1}\n')
        f.write('{"event": "revoke", "gistId": "abc1", "rev')  # a write under way
    assert log.records() == [record]
    assert [p.split(":", 1)[1] for p in log.problems] == [
        "2: not JSON",
        "3: not a JSON object",
        "4: not a share record (needs gistId and url)",
    ]
    with log.path.open("a") as f:
        f.write('okedAt": "2026-02-02T00:00:00Z"}\n')
    [revoked] = log.records()
    assert revoked.revoked_at == "2026-02-02T00:00:00Z"
    assert ShareRecord.from_json(revoked.as_json()) == revoked


def test_log_appends_from_many_processes_never_interleave(tmp_path: Path) -> None:
    path = tmp_path / "shares.jsonl"
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from piexport.share.log import ShareLog, ShareRecord
        log = ShareLog(Path({str(path)!r}))
        for i in range(40):
            log.add(ShareRecord("t", "/s" * 2000, None, None, f"{{sys.argv[1]}}x{{i}}",
                                "u", "d", True))
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", script, str(n)]) for n in range(4)]
    assert [p.wait() for p in procs] == [0, 0, 0, 0]
    log = ShareLog(path)
    records = log.records()
    assert log.problems == []
    assert sorted(r.gist_id for r in records) == sorted(
        f"{n}x{i}" for n in range(4) for i in range(40)
    )


def test_state_dir_follows_the_override_then_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert state_dir() == tmp_path / "state"
    assert ShareLog.default().path == tmp_path / "state" / "shares.jsonl"
    monkeypatch.delenv("PIEXPORT_STATE_DIR")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert state_dir() == tmp_path / "xdg" / "piexport"


def test_shares_with_no_log(runner: CliRunner, state: Path) -> None:
    result = runner.invoke(cli, ["shares"])
    assert result.exit_code == 0 and result.stdout == "" and "no shares recorded" in result.stderr
    assert json.loads(runner.invoke(cli, ["shares", "--format", "json"]).stdout) == []
    assert not state.exists()


def test_a_sample_session_shares(runner: CliRunner, gh: FakeGh, state: Path) -> None:
    sample = next(SAMPLES.rglob("*0196ec1e*.jsonl"))
    result = share(runner, str(sample), "--branch", "current", "--no-tool-output")
    assert result.exit_code == 0, result.output
    page = gh.uploads()[0].read_text()
    assert page.startswith("<!doctype html>") and "[output omitted]" in page


def test_a_hostile_title_makes_a_plain_one_line_description(
    runner: CliRunner, gh: FakeGh, make_session: Any
) -> None:
    name = {
        "type": "session_info",
        "id": "i1",
        "parentId": "u1",
        "timestamp": "2025-01-01T10:00:05.000Z",
    }
    name["name"] = "evil\u202e\x00\x1b[31mname\nsecond line"
    path = make_session([msg("u1", None, "user", "hi", 1), name])
    result = share(runner, str(path))
    assert result.exit_code == 0, result.output
    [desc] = [a for a in gh.commands()[-1] if a.startswith("--desc=")]
    assert desc.startswith("--desc=pi session: evil\u27eaU+202E\u27eb")
    assert not any(ord(c) < 32 or ord(c) == 0x7F for c in desc)
    assert "name second line" in desc


def test_the_log_keeps_no_secret_a_path_holds_and_still_revokes_by_file(
    runner: CliRunner, gh: FakeGh, state: Path, tmp_path: Path
) -> None:
    """A session path that holds a token is kept redacted (the log outlives the share, and
    ``piexport shares`` prints it); ``--revoke-session FILE`` still finds the share."""
    text, secret = fake("github-classic", 17)
    folder = tmp_path / f"--srv-{text}--"
    folder.mkdir()
    path = folder / "2025-01-01T10-00-00-000Z_s.jsonl"
    path.write_bytes(to_lines([*planted_session(Plant())[:2]]))
    assert share(runner, str(path)).exit_code == 0
    assert_no_leak([log_path(state)], {secret: "github-classic"})
    listed = runner.invoke(cli, ["shares", "--format", "json"])
    assert secret not in listed.stdout and "[REDACTED:github-token:" in listed.stdout
    result = share(runner, "--revoke-session", str(path))
    assert result.exit_code == 0, result.output
    assert [r.revoked_at is not None for r in ShareLog(log_path(state)).records()] == [True]

"""Archive search: words, the query language, the index a site ships, and the CLI."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

import piexport.search.index as index
from piexport import load_session
from piexport.cli import cli
from piexport.search.index import (
    CACHE,
    decode_postings,
    encode_postings,
    read_script,
    split_prefixes,
)
from piexport.search.local import run_search
from piexport.search.query import candidate, parse, search, snippet, snippet_line
from piexport.search.records import session_records
from piexport.search.tokens import fold, prefix_shards, shard_key, term_shard, terms
from piexport.site.build import build_site
from piexport.version import INDEX_VERSION

from tests.support.hostile_corpus import Case, cases
from tests.support.sessions import HEADER, REPO, msg, numbered_lines, to_lines, tool_result

SAMPLES = REPO / "sample_sessions"


# ---- words


def test_words_fold_case_and_accents_and_split_on_punctuation() -> None:
    assert terms("Crème BRÛLÉE coupon_rounding v1.2") == [
        "creme",
        "brulee",
        "coupon",
        "rounding",
        "v1",
        "2",
    ]
    assert fold("ÅNGSTRÖM Ǆ ﬁ") == "angstrom dz fi"


def test_scripts_without_spaces_become_bigrams() -> None:
    assert terms("修复优惠券") == ["修复", "复优", "优惠", "惠券"]
    assert terms("한국어 x 字") == ["한국", "국어", "x", "字"]
    assert terms("ทดสอบ") == ["ทด", "ดส", "สอ", "อบ"]


def test_long_blobs_and_ids_are_not_terms() -> None:
    blob = "QUJD" * 30
    assert terms(f"see {blob} here") == ["see", "here"]


def test_postings_round_trip() -> None:
    numbers = sorted(random.Random(1).sample(range(10**6), 500))
    assert decode_postings(encode_postings(numbers)) == numbers


def _fnv(key: str, shards: int) -> int:
    h = 0x811C9DC5
    for ch in key:
        h = ((h ^ ord(ch)) * 0x01000193) & 0xFFFFFFFF
    return h % shards


def test_split_prefixes_key_terms_one_character_further() -> None:
    split = {"00": [1, 2], "000": [2]}
    assert shard_key("00042", split) == "0004"
    assert shard_key("00142", split) == "001"
    assert shard_key("000", split) == "000" and shard_key("00", split) == "00"
    assert shard_key("coupon", split) == "co" and shard_key("a", split) == "a"
    assert term_shard("00042", 64) == _fnv("00", 64)  # unsplit: the first two characters
    assert term_shard("00042", 64, split) == _fnv("0004", 64)
    assert term_shard("00", 64, split) == _fnv("00", 64)
    assert prefix_shards("00", 64, split) == [1, 2]  # a split prefix: every shard under it
    assert prefix_shards("000", 64, split) == [2]
    assert prefix_shards("0004", 64, split) == [_fnv("0004", 64)]
    assert prefix_shards("00042", 64, split) == [_fnv("0004", 64)]
    assert prefix_shards("co", 64, split) == [_fnv("co", 64)]


def test_only_oversized_groups_are_split_and_no_deeper_than_needed() -> None:
    sizes = {f"{k:05d}": 100 for k in range(300)} | {"coupon": 50, "cart": 50, "00": 10}
    assert split_prefixes(sizes, 2000) == {"00", "000", "001", "002"}
    assert split_prefixes(sizes, 20_000) == {"00"}
    assert split_prefixes(sizes, 10**6) == set()
    # one huge term cannot be split: its chain of prefixes stops at MAX_SPLIT
    chain = split_prefixes({"a" * 20: 10**6, "ab": 1}, 1000)
    assert max(map(len, chain)) == index.MAX_SPLIT - 1


# ---- the query language


def test_parse_words_phrases_excludes_and_filters() -> None:
    q = parse('Coupon "negative total" -clamp role:user tool:Bash after:2025-03-01 is:error')
    assert [(w.runs, w.prefix, w.exclude) for w in q.words] == [
        ((("coupon", False),), False, False),
        ((("negative", False), ("total", False)), False, False),
        ((("clamp", False),), False, True),
    ]
    assert q.filters == {
        "role": ["user"],
        "tool": ["bash"],
        "after": ["2025-03-01"],
        "is": ["error"],
    }
    assert q.errors == []


def test_only_the_last_word_being_typed_is_a_prefix() -> None:
    assert [w.prefix for w in parse("cart coup").words] == [False, True]
    assert [w.prefix for w in parse("cart coup ").words] == [False, False]
    assert [w.prefix for w in parse("coup role:user").words] == [True]
    assert [w.prefix for w in parse('cart "coup"').words] == [False, False]
    assert [w.prefix for w in parse("cart -coup").words] == [False, False]


def test_a_word_longer_than_the_index_keeps_is_left_out_and_said() -> None:
    """A pasted hash (64 characters) is never in the index: it is left out of the query with
    a note, never matched against nothing or everything."""
    digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
    q = parse(f"coupon {digest}")
    assert [(w.runs, w.prefix) for w in q.words] == [((("coupon", False),), False)]
    assert len(q.errors) == 1 and digest in q.errors[0] and "40 characters" in q.errors[0]
    assert parse(f'"at {digest}"').words == []
    assert parse("a" * 40).words != [] and parse("a" * 40).errors == []
    assert parse("漢字" * 30).errors == []  # spaceless runs are kept as character pairs


def test_bad_filters_are_reported_and_unknown_keys_are_words() -> None:
    q = parse("after:yesterday is:open http://x.example")
    assert len(q.errors) == 2
    assert q.filters == {}
    assert [w.runs for w in q.words] == [(("http", False), ("x", False), ("example", False))]
    assert parse("").empty and parse("-only").empty


def _candidates(texts: list[str], **kw: Any) -> list[Any]:
    base = {
        "role": "user",
        "tool": "",
        "model": "",
        "label": "",
        "time": 0,
        "error": False,
        "project": "",
    }
    return [(i, 0, candidate(t, **{**base, **kw.get(str(i), {})})) for i, t in enumerate(texts)]


def test_all_words_before_some_and_phrase_before_words() -> None:
    cands = _candidates(["the total is negative", "negative total here", "only total"])
    groups, complete = search(cands, parse("negative total"))
    assert complete and sorted(g[0].session for g in groups) == [0, 1]
    assert [h.adjacent for g in groups for h in g if h.session == 1] == [True]
    groups, complete = search(_candidates(["only total", "nothing"]), parse("negative total"))
    assert not complete and [g[0].session for g in groups] == [0]
    groups, _ = search(cands, parse('"negative total"'))
    assert [g[0].session for g in groups] == [1]
    groups, _ = search(cands, parse("total -negative"))
    assert [g[0].session for g in groups] == [2]


def test_filters_hold_together_and_repeat_as_either() -> None:
    cands = _candidates(
        ["run the tests", "run the tests", "run the tests"],
        **{
            "0": {"role": "tool", "tool": "bash", "time": 1_741_000_000_000},
            "1": {"role": "output", "tool": "read", "error": True, "time": 1_700_000_000_000},
            "2": {"role": "user", "project": "/home/a/Shop", "label": "Checkpoint"},
        },
    )

    def hits(query: str) -> list[int]:
        return sorted(g[0].session for g in search(cands, parse(query))[0])

    assert hits("tests role:tool") == [0]
    assert hits("tests role:tool role:output") == [0, 1]
    assert hits("tests tool:bash") == [0]
    assert hits("tests is:error") == [1]
    assert hits("tests after:2025-01-01") == [0]
    assert hits("tests before:2025-01-01") == [1]
    assert hits("tests project:shop") == [2]
    assert hits("label:check") == [2]
    assert hits("role:output") == [1]


def test_every_word_of_every_indexed_entry_finds_that_entry() -> None:
    """Property: over the samples, any word of a record (and any CJK pair) finds it."""
    rng = random.Random(7)
    cands, where = [], {}
    for s, path in enumerate(sorted(SAMPLES.glob("*/*.jsonl"))):
        session = load_session(path)
        for r, rec in enumerate(session_records(session)):
            c = candidate(
                rec.text,
                rec.role,
                rec.tool,
                rec.model,
                rec.label,
                rec.time,
                rec.error,
                session.cwd or "",
            )
            cands.append((s, r, c))
            where[(s, r)] = rec.text
    checked = 0
    for s, r, c in rng.sample(cands, 60):
        for term in rng.sample(sorted(c.terms), min(5, len(c.terms))):
            found = {(h.session, h.record) for g in search(cands, parse(f'"{term}"'))[0] for h in g}
            assert (s, r) in found, (term, where[(s, r)][:80])
            checked += 1
    assert checked > 100


# ---- what is indexed


def _session(tmp_path: Path, records: list[Any], name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(to_lines([HEADER, *records]))
    return path


def _mixed() -> list[Any]:
    call = {
        "type": "toolCall",
        "id": "c1",
        "name": "bash",
        "arguments": {"command": "terraform apply"},
    }
    return [
        msg("u1", None, "user", "Fix the coupon rounding 修复优惠券", 1),
        msg(
            "a1",
            "u1",
            "assistant",
            [
                {"type": "thinking", "thinking": "ponder deeply", "thinkingSignature": "Z" * 200},
                {"type": "text", "text": "On it."},
                call,
                {"type": "image", "data": "aGVsbG8gd29ybGQ=" * 10, "mimeType": "image/png"},
            ],
            2,
            provider="anthropic",
            model="claude-x",
        ),
        tool_result("r1", "a1", "\x1b[31mApply complete!\x1b[0m", 3, "c1", "bash"),
        {
            "type": "label",
            "id": "l1",
            "parentId": "r1",
            "timestamp": "2025-01-01T10:00:04Z",
            "targetId": "u1",
            "label": "checkpoint",
        },
        {
            "type": "compaction",
            "id": "k1",
            "parentId": "l1",
            "timestamp": "2025-01-01T10:00:05Z",
            "summary": "We fixed rounding",
            "firstKeptEntryId": "u1",
            "tokensBefore": 10,
        },
    ]


def test_records_cover_every_kind_and_leave_out_data(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path, _mixed()))
    recs = {(r.role, r.entry_id): r for r in session_records(session)}
    assert set(recs) == {
        ("user", "u1"),
        ("thinking", "a1"),
        ("assistant", "a1"),
        ("tool", "a1"),
        ("output", "r1"),
        ("label", "l1"),
        ("summary", "k1"),
    }
    assert recs[("tool", "a1")].text == "bash\nterraform apply"
    assert recs[("output", "r1")].text == "Apply complete!"  # colours are not text
    assert recs[("assistant", "a1")].model == "anthropic/claude-x"
    assert recs[("user", "u1")].label == "checkpoint"
    every = " ".join(r.text for r in recs.values())
    assert "ZZZZ" not in every and "aGVsbG8" not in every


# ---- the site's index


def _build(root: Path, out: Path, **kw: Any) -> Any:
    return build_site(root, out, jobs=1, **kw)


def _index_text(out: Path) -> str:
    """Every index file, with the deflated session texts opened."""
    from piexport.search.index import unpack_docs

    parts = []
    for path in sorted((out / "search").rglob("*.js")):
        call, args = read_script(path)
        parts.append(orjson.dumps(unpack_docs(args[1]) if call == "docs" else args).decode())
    parts += [p.read_text() for p in sorted((out / CACHE).glob("*.json"))]
    return "\n".join(parts)


def test_site_writes_search_page_and_index_and_links_it(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(SAMPLES, out)
    html = (out / "search.html").read_text()
    csp = html.split('content="', 1)[1].split('"', 1)[0].replace("&#39;", "'")
    assert "script-src 'sha256-" in csp and "'self'" in csp and "unsafe" not in csp
    assert "Search needs JavaScript" in html
    assert 'href="search.html"' in (out / "index.html").read_text()
    project = next(out.glob("*/index.html"))
    assert 'href="../search.html"' in project.read_text()
    _, (meta,) = read_script(out / "search" / "meta.js")
    assert len(meta["sessions"]) == len(list(SAMPLES.glob("*/*.jsonl")))
    assert meta["records"] > 100


def test_rebuild_reindexes_only_what_changed_and_drops_removed(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root)
    out = tmp_path / "site"
    _build(root, out)
    meta = out / "search" / "meta.js"
    docs = sorted((out / "search" / "d").glob("*.js"))
    stamp = {p: p.stat().st_mtime_ns for p in [meta, *docs]}
    _build(root, out)  # nothing changed: nothing of the index is written
    assert {p: p.stat().st_mtime_ns for p in [meta, *docs]} == stamp
    gone = sorted(root.glob("*/*.jsonl"))[0]
    gone.unlink()
    _build(root, out)
    assert len(list((out / "search" / "d").glob("*.js"))) == len(docs) - 1
    _, (m,) = read_script(meta)
    assert len(m["sessions"]) == len(docs) - 1
    groups, _ = run_search(parse("coupon"), site=out)
    assert all(Path(g[0].path).is_file() for g in groups)


def test_an_oversized_prefix_is_split_and_every_term_and_prefix_still_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root)
    numbered_lines(root / "--home-n--")
    monkeypatch.setattr(index, "SPLIT_BYTES", 3000)
    out = tmp_path / "site"
    _build(root, out)
    _, (meta,) = read_script(out / "search" / "meta.js")
    split = meta["split"]
    # "00" (every number) is split by its third character, "000" (00001-00099) again
    assert {"00", "000"} <= set(split) and "0001" not in split
    assert len(split["00"]) > 1 and set(split["000"]) <= set(split["00"])
    every: dict[str, list[int]] = {}
    for path in (out / "search" / "t").glob("*.js"):
        _, (_, shard) = read_script(path)
        for term, text in shard.items():
            assert term not in every, term  # one shard per term
            every[term] = decode_postings(text)
    assert "00042" in every and "00142" in every
    stems = {t[:k] for t in every for k in (2, 3) if len(t) >= k} | {"0004", "0014"}
    for term in every:
        assert index.read_postings(out, term) == every[term], term
    for stem in stems:
        want = sorted({n for t, p in every.items() if t.startswith(stem) for n in p})
        assert index.read_postings(out, stem, prefix=True) == want, stem
    assert index.read_postings(out, "00", prefix=True) == sorted(
        {n for t, p in every.items() if t.isdigit() and t.startswith("00") for n in p}
    )


def test_fields_and_selection_decide_what_is_indexed(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    root.mkdir()
    _session(root, _mixed())
    out = tmp_path / "a"
    _build(root, out, search_fields=["user", "assistant", "tool", "summary", "label"])
    text = _index_text(out)
    assert "terraform" in text and "Apply complete" not in text and "ponder" not in text
    from piexport import Selection

    out = tmp_path / "b"
    _build(root, out, selection=Selection(no_thinking=True, no_tool_output=True))
    text = _index_text(out)
    assert "terraform" in text and "Apply complete" not in text and "ponder" not in text


def test_redacted_site_indexes_redacted_text_and_gates_the_index(tmp_path: Path) -> None:
    from piexport import Redactor

    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    root = tmp_path / "sessions"
    root.mkdir()
    _session(root, [msg("u1", None, "user", f"my token is {secret} keep it", 1)])
    out = tmp_path / "site"
    _build(root, out, redactor=Redactor())
    text = _index_text(out)
    assert "keep" in text and secret not in text and secret[4:20] not in text
    assert "REDACTED" in text


def test_cli_search_folder_and_site_agree(tmp_path: Path) -> None:
    out = tmp_path / "site"
    _build(SAMPLES, out)
    runner = CliRunner()
    for query in ["coupon", "coup", '"negative total"', "tool:bash pytest", "is:error", "-the x"]:
        a = runner.invoke(cli, ["search", query, str(SAMPLES), "--format", "json", "--limit", "0"])
        b = runner.invoke(
            cli, ["search", query, "--site", str(out), "--format", "json", "--limit", "0"]
        )
        assert a.exit_code == b.exit_code, (query, a.output, b.output)
        if a.exit_code:
            continue
        ma = [(m["entryId"], m["role"], m["snippet"]) for m in orjson.loads(a.output)["matches"]]
        mb = [(m["entryId"], m["role"], m["snippet"]) for m in orjson.loads(b.output)["matches"]]
        assert ma == mb and ma, query


def test_cli_search_prints_path_line_id_snippet(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["search", '"negative total"', str(SAMPLES)])
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    path, line, entry, snippet = first.split(":", 3)
    assert Path(path).is_file() and line.isdigit() and entry.strip()
    assert "negative total" in snippet.lower()
    none = CliRunner().invoke(cli, ["search", "zzqqxxnothing", str(SAMPLES)])
    assert none.exit_code == 1 and none.stdout == "" and none.stderr == "piexport: no matches\n"


@pytest.mark.parametrize("bad", ["", "-x", "after:never"])
def test_cli_search_refuses_an_empty_query(bad: str) -> None:
    result = CliRunner().invoke(cli, ["search", bad, str(SAMPLES)])
    assert result.exit_code != 0


def test_the_gate_sees_index_text_before_json_and_deflate(tmp_path: Path) -> None:
    """A secret the redactor missed is stopped by the gate in a session's index part."""
    from piexport import Redactor
    from piexport.export.gate import Gate
    from piexport.redact.rules import RedactionError
    from piexport.search.index import write_session_index

    key = (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"
        + "x" * 60
        + "\n-----END RSA PRIVATE KEY-----"
    )
    session = load_session(_session(tmp_path, [msg("u1", None, "user", f"here:\n{key}", 1)]))
    redactor = Redactor()
    seen: list[str] = []

    def gate(text: str, path: Path) -> None:
        seen.append(text)
        Gate(redactor).check(text, path)

    with pytest.raises(RedactionError):
        write_session_index(session, tmp_path / "site", "p/s.html", None, gate)
    assert key in seen[0]  # the text itself, not its JSON escape
    assert not (tmp_path / "site" / "search").exists()


def test_cli_search_names_files_it_cannot_read(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root)
    bad = root / "not-a-session.jsonl"
    bad.write_text("not json at all\n")
    result = CliRunner().invoke(cli, ["search", "coupon", str(root), "--limit", "1"])
    assert result.exit_code == 0
    assert str(bad) in result.stderr and "coupon" in result.stdout.lower()


def test_cli_search_names_a_site_index_it_cannot_read(tmp_path: Path) -> None:
    """An older piexport's index, a copy with a file missing, a damaged file: exit 2 with
    the file or the version named, never a traceback."""
    out = tmp_path / "site"
    _build(SAMPLES, out)
    runner = CliRunner()

    def search(site: Path) -> Any:
        return runner.invoke(cli, ["search", "coupon", "--site", str(site)])

    assert search(out).exit_code == 0
    old = tmp_path / "old"
    shutil.copytree(out, old)
    meta = old / "search" / "meta.js"
    meta.write_text(meta.read_text().replace(f'"v":{INDEX_VERSION},', '"v":1,', 1))
    result = search(old)
    assert result.exit_code == 2 and "version 1" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)

    missing = tmp_path / "missing"  # a text part the query needs; one it does not is never read
    shutil.copytree(out, missing)
    docs = sorted((missing / "search" / "d").glob("*.js"))
    needed = [
        d
        for d in docs
        if any("coupon" in row[3].lower() for row in index.unpack_docs(index.read_script(d)[1][1]))
    ]
    spare = next(d for d in docs if d not in needed)
    spare.unlink()
    assert search(missing).exit_code == 0
    needed[0].unlink()
    result = search(missing)
    assert result.exit_code == 2 and needed[0].name in result.output, result.output
    shard = missing / "search" / "t"  # a term shard the query needs
    for t in shard.glob("*.js"):
        t.unlink()
    result = search(missing)
    assert result.exit_code == 2 and "cannot be read" in result.output, result.output

    damaged = tmp_path / "damaged"
    shutil.copytree(out, damaged)
    for doc in (damaged / "search" / "d").glob("*.js"):
        doc.write_text('piexportSearch.docs("x", "not base64 at all!")\n')
    result = search(damaged)
    assert result.exit_code == 2 and "cannot be read" in result.output, result.output

    edited = tmp_path / "edited"  # values of the wrong type, as a hand edit leaves them
    shutil.copytree(out, edited)
    meta = edited / "search" / "meta.js"
    call, (data,) = read_script(meta)
    for n, session in enumerate(data["sessions"]):
        session["p"] = [None, 1.5, {"a": 1}][n % 3]
    data["tools"] = [None] * len(data["tools"])
    meta.write_text(index.script(call, data))
    for limit in ("50", "0"):
        for query in ("coupon", "role:user", '"the cart"', "cart -coupon"):
            result = runner.invoke(cli, ["search", query, "--site", str(edited), "--limit", limit])
            assert result.exit_code == 2 and "cannot be read" in result.output, result.output
            assert result.exception is None or isinstance(result.exception, SystemExit)


# ---- user blocks, snippets


def test_a_user_messages_text_blocks_are_separate_words(tmp_path: Path) -> None:
    blocks = [{"type": "text", "text": "ends with alpha"}, {"type": "text", "text": "beta begins"}]
    session = load_session(_session(tmp_path, [msg("u1", None, "user", blocks, 1)]))
    (record,) = session_records(session)
    assert record.text == "ends with alpha\n\nbeta begins"
    assert "alphabeta" not in terms(record.text)
    for word in ["alpha", "beta"]:
        groups, complete = run_search(parse(word + " "), root=tmp_path)
        assert complete and [h.entry_id for g in groups for h in g] == ["u1"], word
    groups, _ = run_search(parse("alphabeta "), root=tmp_path)
    assert groups == []


def _snip(text: str, query: str, width: int = 200) -> str:
    return snippet_line(text, parse(query), width, lambda s: f"[{s}]")


def test_snippets_start_at_the_line_of_the_first_match() -> None:
    text = "an early line with other words\nthe coupon is here\nand a later line"
    assert _snip(text, "coupon") == "… the [coupon] is here and a later line"
    assert _snip("coupon first", "coupon") == "[coupon] first"  # nothing cut: no ellipsis


def test_snippets_in_a_long_line_start_and_end_at_a_word() -> None:
    words = " ".join(f"w{i:03d}" for i in range(300))
    shown = _snip(words.replace("w150", "coupon"), "coupon", 100)
    assert shown.startswith("… w") and shown.endswith(" …")
    inner = shown[2:-2].split()
    assert all(re.fullmatch(r"w\d{3}|\[coupon\]", w) for w in inner), shown
    assert inner.index("[coupon]") > 0 and len(" ".join(inner)) <= 100
    assert _snip("x" * 500 + " coupon", "coupon", 100) == "… [coupon]"
    glued = _snip("x" * 500 + "coupon", "coupon", 100)  # no word to start at: cut inside
    assert glued == "… " + "x" * 33 + "[coupon]"


def test_snippets_mark_invisible_and_bidi_characters() -> None:
    text = "pay the \u202ecoupon\u200b now, \u2066isolated\u2069 and \x1b[31m; ❤\ufe0f stays"
    pieces = snippet(text, parse("coupon"))
    assert ("hidden", "⟪U+202E⟫") in pieces and ("hidden", "⟪U+200B⟫") in pieces
    assert ("match", "coupon") in pieces
    line = _snip(text, "coupon")
    assert line == (
        "pay the ⟪U+202E⟫[coupon]⟪U+200B⟫ now, ⟪U+2066⟫isolated⟪U+2069⟫ and \\x1b[31m; ❤\ufe0f stays"
    )
    assert not set(line) & set("\u202e\u200b\u2066\u2069\x1b")


def test_cli_search_output_marks_bidi_and_zero_width(tmp_path: Path) -> None:
    _session(tmp_path, [msg("u1", None, "user", "the \u202eevil\u200b coupon code", 1)])
    text = CliRunner().invoke(cli, ["search", "coupon", str(tmp_path)])
    assert text.exit_code == 0, text.output
    assert "⟪U+202E⟫evil⟪U+200B⟫ coupon code" in text.output
    assert "\u202e" not in text.output and "\u200b" not in text.output
    js = CliRunner().invoke(cli, ["search", "coupon", str(tmp_path), "--format", "json"])
    (match,) = orjson.loads(js.output)["matches"]
    assert match["snippet"] == "the ⟪U+202E⟫evil⟪U+200B⟫ coupon code"


def test_long_sessions_texts_are_split_into_parts_and_read_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import piexport.search.index as index

    monkeypatch.setattr(index, "DOC_CHARS", 300)
    root = tmp_path / "sessions"
    shutil.copytree(SAMPLES, root)
    out = tmp_path / "site"
    _build(root, out)
    _, (m,) = read_script(out / "search" / "meta.js")
    names = {f"{s['k']}-{i}.js" for s in m["sessions"] for i in range(len(s["c"]))}
    assert max(len(s["c"]) for s in m["sessions"]) > 3
    assert {p.name for p in (out / "search" / "d").glob("*.js")} == names
    for query in ["coupon", '"negative total"', "tool:bash pytest"]:
        a, _ = run_search(parse(query), root=root)
        b, _ = run_search(parse(query), site=out)
        assert [(h.entry_id, h.text) for g in a for h in g] == [
            (h.entry_id, h.text) for g in b for h in g
        ]
    monkeypatch.setattr(index, "DOC_CHARS", 10**9)  # fewer parts: the extra files go
    for page in out.rglob("*.html"):
        page.unlink()  # every page renders again
    _build(root, out)
    assert len(list((out / "search" / "d").glob("*.js"))) == len(m["sessions"])


def _hostile_words(case: Case, tmp_path: Path) -> list[tuple[str, str, str]]:
    """(entry id, record text, word) for the first and last word of every record of a
    hostile file; none for a file the loader refuses (named), which has nothing to search."""
    from piexport.errors import PiexportError

    path = tmp_path / f"{case.name}.jsonl"
    path.write_bytes(case.data)
    try:
        session = load_session(path)
    except PiexportError:
        return []
    out = []
    for record in session_records(session):
        words = terms(record.text)
        for word in {words[0], words[-1]} if words else set():
            out.append((record.entry_id, record.text, word))
    return out


@pytest.mark.parametrize("case", [c for c in cases() if not c.unusable], ids=lambda c: c.name)
def test_snippets_of_the_hostile_corpus_show_no_hidden_character(
    case: Case, tmp_path: Path
) -> None:
    """Every record of every hostile file, searched for its first and last word: a snippet,
    and nothing in it a reader cannot see (an emoji's own variation selector aside)."""
    from piexport.text.textsafe import HIDDEN, SELECTORS

    for entry_id, text, word in _hostile_words(case, tmp_path):
        line = snippet_line(text, parse(word), 200, lambda s: s)
        left = {c for c in line if c in HIDDEN and c not in SELECTORS and c != "\r"}
        assert not left, (case.name, entry_id, line)


def test_the_hostile_corpus_gives_the_snippet_test_words_to_search(tmp_path: Path) -> None:
    words = [w for c in cases() if not c.unusable for w in _hostile_words(c, tmp_path)]
    assert len(words) > 50


def test_a_site_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    """Two builds of one archive in processes with different string hashing write the same
    bytes (meta.js listed the split prefixes in a set's order, which changed per process)."""
    root = tmp_path / "src"
    # a small site proves it: one sample project, and sessions whose terms split a shard
    demo = "--home-alice-src-shop--"
    shutil.copytree(SAMPLES / demo, root / demo)
    numbered_lines(root / "--home-n--")
    code = (
        "import sys; from pathlib import Path; import piexport.search.index as index; "
        "from piexport.site.build import build_site; index.SPLIT_BYTES = 3000; "
        "build_site(Path(sys.argv[1]), Path(sys.argv[2]), jobs=1)"
    )
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"site-{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PIEXPORT_CACHE_DIR": "off"}
        subprocess.run([sys.executable, "-c", code, str(root), str(out)], env=env, check=True)
        outs.append(out)
    files = sorted(p.relative_to(outs[0]) for p in outs[0].rglob("*") if p.is_file())
    assert (outs[0] / "search" / "meta.js").read_text().count('"split":{"') == 1
    assert files == sorted(p.relative_to(outs[1]) for p in outs[1].rglob("*") if p.is_file())
    differ = [str(f) for f in files if (outs[0] / f).read_bytes() != (outs[1] / f).read_bytes()]
    assert differ == [".piexport-manifest.json"] or differ == []
    manifests = [orjson.loads((out / ".piexport-manifest.json").read_bytes()) for out in outs]
    for m in manifests:  # when each was written is the only difference allowed
        assert m.pop("written")
    assert manifests[0] == manifests[1]


@pytest.mark.parametrize(
    "query",
    [
        "coupon",
        "coup",
        "negative total",
        "cart compiling",
        "compiling cart",
        "compiling 00142",
        "cart -coupon",
        "tool:bash",
        "role:user",
        "is:error",
        "badge role:user after:2025-03-04",
        "00042",
        "000",
        "优惠",
        "nothingmatchesthis",
        "coupon nothingmatchesthis",  # no entry has both: entries with some of them
        '"negative total"',
        '"the cart"',
        '"compiling cart"',
        '"cart compiling"',  # the terms everywhere, the phrase nowhere: no match
        '"cart compiling" coupon',  # no entry has both: entries with some of them
        'cart -"negative total"',
        '-"negative total" role:user',
        "请修复优惠",  # spaceless: character pairs, then confirmed on the text
    ],
)
def test_a_site_search_with_a_limit_reads_less_and_answers_the_same(
    tmp_path: Path, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With --limit, a site search ranks from the term shards and reads texts only as it
    reaches sessions: the first N hits are the ones the whole search gives, in order; with
    no phrase to confirm, only the printed sessions' texts are read."""
    root = tmp_path / "src"
    shutil.copytree(SAMPLES, root)
    (root / "--home-li--").mkdir()
    (root / "--home-li--" / "2025-06-01T00-00-00-000Z_cjk.jsonl").write_bytes(
        to_lines([HEADER, msg("c1", None, "user", "请修复优惠券的四舍五入问题。", 1)])
    )
    numbered_lines(root / "--home-n--")
    out = tmp_path / "site"
    monkeypatch.setattr(index, "DOC_CHARS", 2000)
    _build(root, out)
    q = parse(query)

    def flat(groups: list[list[Any]]) -> list[tuple[Any, ...]]:
        return [(h.path, h.line, h.entry_id, h.dom, h.text, h.adjacent) for g in groups for h in g]

    whole, complete = run_search(q, site=out)
    read: list[Path] = []
    real = index.read_script
    monkeypatch.setattr("piexport.search.local.read_script", lambda p: (read.append(p), real(p))[1])
    for limit in (1, 3, 7, 50):
        read.clear()
        first, first_complete = run_search(q, site=out, limit=limit)
        assert flat(first)[:limit] == flat(whole)[:limit], limit
        assert first_complete == complete
        texts = {p for p in read if p.parent.name == "d"}
        sessions = {g[0].path for g in first}
        assert len(first) <= limit
        if any(w.is_phrase for w in q.words):
            continue
        assert all(  # only the printed sessions' texts
            any(
                str(p.name).startswith(s["k"])
                for s in _sessions(out)
                if str(out / s["h"]) in sessions
            )
            for p in texts
        )


def _sessions(out: Path) -> list[Any]:
    return read_script(out / "search" / "meta.js")[1][0]["sessions"]

"""``piexport search`` on hostile queries and on a site folder from someone else (issue 27).

A query is bounded (characters, words and filters, index terms) and says what it left out;
a phrase is found by a substring search of the text with its separators made single spaces,
so the work grows with the text, never with the text times the query. A damaged or edited
index is named (the file and the damage), bounded in time and memory, never a traceback.

No test here reads a clock: the bounds are counted (characters, words, terms, bytes
inflated, memory) and each test asserts the count was applied ("left out", the damage named).
"""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from piexport.cli import cli
from piexport.search.query import (
    MAX_ITEMS,
    MAX_QUERY_CHARS,
    MAX_TERMS,
    candidate,
    has_phrase,
    parse,
    snippet_line,
    spaced,
    spaced_spans,
)
from piexport.search.tokens import fold
from piexport.site.build import build_site

from tests.support.hostile_search import DAMAGE, QUERIES, big_record_session, damaged_copy
from tests.support.sessions import REPO, SAMPLES

# --- bounded queries ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_query_past_its_bounds_is_cut_and_says_so(name: str) -> None:
    q = parse(QUERIES[name])
    assert len(q.words) + sum(len(v) for v in q.filters.values()) <= MAX_ITEMS
    assert len({t for w in q.words for t in w.terms}) <= MAX_TERMS
    assert sum(len(w.pattern) for w in q.words) <= MAX_QUERY_CHARS
    assert q.errors, "what was left out is said"


def test_the_notes_name_what_was_left_out() -> None:
    q = parse(" ".join(f"w{i}" for i in range(100)))
    assert len(q.words) == MAX_ITEMS
    assert q.errors == [
        "only the first 32 words, phrases and filters are searched: 68 more left out"
    ]
    q = parse("a" * 10 + " " + "b" * 2000)
    assert q.errors[0].startswith(f"the query is cut at {MAX_QUERY_CHARS} characters")
    assert [w.pattern for w in q.words] == ["a" * 10]  # cut at the space, not mid-word
    han = "".join(chr(0x4E00 + i) for i in range(70))  # 69 pairs, each a term
    q = parse(han + " coupon " + "优惠券" * 30)  # a long run of three pairs is fine
    assert [w.pattern for w in q.words] == ["coupon", "优惠券" * 30]
    assert "a query looks up at most 64 terms" in q.errors[0]


# --- phrases: what they match, found in linear time --------------------------------------------


@pytest.mark.parametrize(
    ("query", "text", "found"),
    [
        ('"coupon rounding"', "fix coupon rounding now", True),
        ('"coupon rounding"', "fix COUPON_rounding now", True),
        ('"coupon rounding"', "fix coupon -- \u00a0 rounding now", True),
        ('"coupon rounding"', "fix couponrounding now", False),
        ('"coupon rounding"', "fix rounding coupon now", False),
        ("coupon_rounding", "a coupon.rounding b", True),
        ("v1.2", "release v1.2.3", True),
        ("v1.2", "release v12", False),
        ("优惠券", "请修复优惠券的问题", True),
        ('"修复 优惠券"', "请修复 优惠券", True),
        ('"Crème brûlée"', "une CREME-BRULEE", True),
    ],
)
def test_what_a_phrase_matches(query: str, text: str, found: bool) -> None:
    (w,) = parse(query).words
    assert has_phrase(fold(text), w) is found


def test_phrase_spans_map_back_to_the_text() -> None:
    text = "Ünï  --  Cödé, then ÜNI_code again"
    (w,) = parse('"uni code"').words
    folded = fold(text)
    spans = spaced_spans(folded, w.pattern, 10)
    assert [text[a:b] for a, b in spans] == ["Ünï  --  Cödé", "ÜNI_code"]
    line = snippet_line(text, parse('"uni code"'), 200, lambda s: f"[{s}]")
    assert line == "[Ünï -- Cödé], then [ÜNI_code] again"


def test_a_phrase_is_found_in_spaced_text_by_substring() -> None:
    """No regular expression is built from a query: a phrase is a plain substring of the
    spaced text (separator runs made one space), searched in time linear in the text."""
    assert spaced("a-_-b  c\u200bd") == "a b c d"
    source = REPO / "piexport" / "search" / "query.py"
    code = source.read_text(encoding="utf-8")
    assert "re.escape" not in code and "re.compile(" not in re.sub(
        r"^_\w+ = re\.compile\(.*$", "", code, flags=re.M
    )


def test_a_long_phrase_against_a_long_repetitive_record(tmp_path: Path) -> None:
    """A 3,000-word quoted phrase against a 1.8 MB record of one word: the CLI over the
    folder and over a site answers within the guard (the old regex took minutes)."""
    root = tmp_path / "s"
    big_record_session(root / "--p--")
    site = tmp_path / "site"
    build_site(root, site, jobs=1)
    for where in (["--site", str(site)], [str(root)]):
        for name in ("long-phrase", "ten-thousand-words"):  # 70,000: past an argument's size
            proc = subprocess.run(
                [sys.executable, "-m", "piexport", "search", QUERIES[name], *where],
                capture_output=True,
                check=False,
            )
            assert proc.returncode in (0, 1), proc.stderr.decode()[-2000:]
            assert b"left out" in proc.stderr, (name, proc.stderr[-500:])
            assert b"Traceback" not in proc.stderr


def test_candidate_phrase_check_on_the_big_record() -> None:
    from tests.support.hostile_search import BIG_TEXT

    c = candidate(BIG_TEXT, "user", "", "", "", None, False, "")
    q = parse(QUERIES["long-phrase"])
    (w,) = q.words
    assert w.is_phrase and has_phrase(c.folded, w)  # the first 333 words of it, as cut
    assert not has_phrase(c.folded, parse('"cd ab"').words[0])


# --- a site folder from someone else -----------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile-search") / "site"
    build_site(SAMPLES, out, jobs=1)
    return out


def _limit_memory() -> None:  # the child: a gigabyte inflated would fail here
    resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_index_is_named_bounded_and_no_traceback(
    site: Path, tmp_path: Path, kind: str
) -> None:
    copy = tmp_path / "copy"
    said = damaged_copy(site, copy, kind, "coupon")
    proc = subprocess.run(
        [sys.executable, "-m", "piexport", "search", "coupon", "--site", str(copy)],
        capture_output=True,
        check=False,
        preexec_fn=_limit_memory,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 2, (proc.returncode, err[-2000:])
    assert "Traceback" not in err and "MemoryError" not in err
    assert "search index cannot be read" in err and said in err, err
    assert "build the site again" in err


def test_an_intact_copy_searches_as_the_site(site: Path, tmp_path: Path) -> None:
    shutil.copytree(site, tmp_path / "copy")
    result = CliRunner().invoke(cli, ["search", "coupon", "--site", str(tmp_path / "copy")])
    assert result.exit_code == 0 and "coupon" in result.stdout.lower()

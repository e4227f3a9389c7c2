"""Red-team input for search (issue 27), shared by the CLI tests and the page's.

A query is input from whoever sent the link (``search.html?q=``), and a site folder may come
from someone else (a CI artifact) with its index edited or damaged. Each maker here writes
one such input; tests run ``piexport search`` and ``search.html`` on them.
"""

from __future__ import annotations

import base64
import re
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

from tests.support.sessions import HEADER, msg, to_lines

REPEAT = "ab "
BIG_TEXT = REPEAT * 600_000 + "cd"
"""1.8 MB of one short word, the other word of the phrase at the very end: a phrase scan
that tries every start and every word of the query costs their product."""


def big_record_session(folder: Path) -> Path:
    """A session holding the repetitive record, and a small one that has the words too."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "2025-01-01T00-00-00-000Z_big.jsonl"
    records = [
        msg("u1", None, "user", BIG_TEXT, 1),
        msg("u2", "u1", "user", "ab ab cd, and the end", 2),
    ]
    path.write_bytes(to_lines([HEADER, *records]))
    return path


QUERIES = {
    "ten-thousand-words": " ".join(f"w{i}" for i in range(10_000)),
    "seventy-thousand-words": " ".join(f"ab{i % 97}" for i in range(70_000)),
    "long-phrase": '"' + " ".join(["ab"] * 3000) + ' cd"',
    "long-phrase-unquoted-end": '"' + " ".join(["ab"] * 3000),
    "chinese-run": "优惠券" * 700,
    "many-filters": " ".join(f"project:p{i}" for i in range(5000)) + " ab",
    "many-exclusions": "ab " + " ".join(f"-x{i}" for i in range(5000)),
}
"""Queries past every bound: characters, words and filters, terms, phrase length."""


# --- a site folder from someone else ---------------------------------------------------------


def _script(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _edit_meta(site: Path, old: str, new: str) -> None:
    meta = site / "search" / "meta.js"
    text = _script(meta)
    changed = re.sub(old, new, text, count=1)
    assert changed != text, old
    meta.write_text(changed, encoding="utf-8")


def _needed_docs(site: Path, word: str) -> list[Path]:
    from piexport.search.index import read_script, unpack_docs

    return [
        d
        for d in sorted((site / "search" / "d").glob("*.js"))
        if any(word in row[3].lower() for row in unpack_docs(read_script(d)[1][1]))
    ]


def _needed_shard(site: Path, word: str) -> Path:
    from piexport.search.index import read_script
    from piexport.search.tokens import term_shard

    _, (meta,) = read_script(site / "search" / "meta.js")
    return site / "search" / "t" / f"{term_shard(word, meta['shards'], meta.get('split'))}.js"


def zero_shards(site: Path, word: str) -> str:
    _edit_meta(site, r'"shards":\d+', '"shards":0')
    return "0 term shards"


def negative_shards(site: Path, word: str) -> str:
    _edit_meta(site, r'"shards":\d+', '"shards":-16')
    return "-16 term shards"


def fractional_shards(site: Path, word: str) -> str:
    _edit_meta(site, r'"shards":\d+', '"shards":2.5')
    return "2.5 term shards"


def key_out_of_the_folder(site: Path, word: str) -> str:
    _edit_meta(site, r'"k":"[0-9a-f]{16}"', '"k":"../../../../etc/x"')
    return "session 1 is not one"


def records_past_the_entries(site: Path, word: str) -> str:
    _edit_meta(site, r'"records":\d+', '"records":99999999')
    return "column is not 99999999 numbers"


def truncated_shard(site: Path, word: str) -> str:
    shard = _needed_shard(site, word)
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 2])
    return f"t/{shard.stem}.js"


def shard_of_no_terms(site: Path, word: str) -> str:
    shard = _needed_shard(site, word)
    shard.write_text(f"piexportSearch.terms({shard.stem},[1,2,3]);\n", encoding="utf-8")
    return f"t/{shard.stem}.js"


def postings_not_numbers(site: Path, word: str) -> str:
    shard = _needed_shard(site, word)
    text = _script(shard)
    shard.write_text(
        re.sub(r'"' + word + r'":"[^"]*"', f'"{word}":"!!,??"', text), encoding="utf-8"
    )
    return f"t/{shard.stem}.js"


def truncated_text_part(site: Path, word: str) -> str:
    doc = _needed_docs(site, word)[0]
    data = doc.read_bytes()
    doc.write_bytes(data[: len(data) - 40])
    return f"d/{doc.stem}.js"


def text_part_cut_inside(site: Path, word: str) -> str:
    """Valid JavaScript whose deflated text stops half way."""
    doc = _needed_docs(site, word)[0]
    m = re.match(r'piexportSearch\.docs\("([^"]+)","([^"]+)"\);', _script(doc))
    assert m is not None
    raw = base64.b64decode(m[2])
    cut = base64.b64encode(raw[: len(raw) // 2]).decode()
    doc.write_text(f'piexportSearch.docs("{m[1]}","{cut}");\n', encoding="utf-8")
    return f"d/{doc.stem}.js"


BOMB_BYTES = 1 << 30
"""What the bomb inflates to: 1 GB of spaces, about 1 MB deflated."""


def compression_bomb(site: Path, word: str) -> str:
    """Every text part a query needs inflates to a gigabyte (valid JSON all the same)."""
    packer = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    raw = packer.compress(b"[")
    for _ in range(BOMB_BYTES >> 20):
        raw += packer.compress(chunk)
    raw += packer.compress(b"]") + packer.flush()
    packed = base64.b64encode(raw).decode()
    for doc in _needed_docs(site, word):
        doc.write_text(f'piexportSearch.docs("{doc.stem}","{packed}");\n', encoding="utf-8")
    return "inflates to more than 32 MB"


def text_part_not_records(site: Path, word: str) -> str:
    doc = _needed_docs(site, word)[0]
    packed = base64.b64encode(zlib.compress(b'[["a","b",1,2],{"x":1}]')).decode()
    doc.write_text(f'piexportSearch.docs("{doc.stem}","{packed}");\n', encoding="utf-8")
    return "not records"


DAMAGE: dict[str, Callable[[Path, str], str]] = {
    f.__name__: f
    for f in (
        zero_shards,
        negative_shards,
        fractional_shards,
        key_out_of_the_folder,
        records_past_the_entries,
        truncated_shard,
        shard_of_no_terms,
        postings_not_numbers,
        truncated_text_part,
        text_part_cut_inside,
        compression_bomb,
        text_part_not_records,
    )
}
"""Each edits a copy of a built site so that a search for ``word`` meets the damage, and
returns what the message naming it holds."""


def damaged_copy(site: Path, into: Path, kind: str, word: str) -> str:
    shutil.copytree(site, into)
    return DAMAGE[kind](into, word)

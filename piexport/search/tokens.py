"""Words as search sees them: case- and accent-insensitive, CJK as character bigrams.

``static/js/search.js`` implements exactly these rules (``fold`` and ``tokens``); a browser
test compares the two on the hostile corpus, so change both or neither.

- fold, one character at a time (so positions map back to the text for snippets): NFKD,
  drop combining marks, lower case, NFC (so a Hangul syllable comes back whole); how is
  ``text/fold.py``'s, shared with the session pages.
- words: runs of letters and digits; everything else separates (``coupon_rounding`` is two
  words, ``terraform apply`` two, ``v1.2`` two).
- scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar): every pair
  of neighbouring characters is a term, and a lone character is a term of its own.
- a word longer than ``MAX_WORD`` characters is not indexed: base64 blobs, hashes and ids.
"""

from __future__ import annotations

import re
from collections.abc import Container, Iterator, Mapping, Sequence

from ..text.fold import NOSPACE, fold

MAX_WORD = 40

_RUN = re.compile(rf"[{NOSPACE}]+|[^\W_{NOSPACE}]+")
_NOSPACE_RUN = re.compile(rf"[{NOSPACE}]")


def runs(folded: str) -> Iterator[tuple[str, bool]]:
    """(run, spaceless) for each word or spaceless run of already-folded text, in order."""
    for m in _RUN.finditer(folded):
        run = m.group()
        yield run, bool(_NOSPACE_RUN.match(run))


def run_terms(run: str, spaceless: bool) -> list[str]:
    """The index terms of one run: the word itself, or a spaceless run's bigrams."""
    if not spaceless:
        return [run] if len(run) <= MAX_WORD else []
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def terms(text: str) -> list[str]:
    """Every term of ``text`` in order (with repeats)."""
    return folded_terms(fold(text))


def folded_terms(folded: str) -> list[str]:
    """Every term of text that is already folded."""
    if _NOSPACE_RUN.search(folded) is None:  # words only (most text): one pass in C
        return [run for run in _RUN.findall(folded) if len(run) <= MAX_WORD]
    out: list[str] = []
    for run, spaceless in runs(folded):
        out.extend(run_terms(run, spaceless))
    return out


def shard_key(term: str, split: Container[str] = ()) -> str:
    """The prefix that places a term in a shard: its first two characters, or, where the
    index split that two-character group for being too big, one more character for each
    split prefix the term goes through (``00042``: ``00`` split, ``000`` split → ``0004``)."""
    k = 2
    while len(term) > k and term[:k] in split:
        k += 1
    return term[:k]


def term_shard(term: str, shards: int, split: Container[str] = ()) -> int:
    """Which shard holds a term: by its ``shard_key``, so a prefix finds its shard(s).

    FNV-1a over code points, the same in static/js/search.js."""
    h = 0x811C9DC5
    for ch in shard_key(term, split):
        h ^= ord(ch)
        h = (h * 0x01000193) & 0xFFFFFFFF
    return h % shards


def prefix_shards(stem: str, shards: int, split: Mapping[str, Sequence[int]]) -> list[int]:
    """The shards holding every term that starts with ``stem`` (two characters or more):
    one, unless the stem is itself a split prefix, whose terms ``split`` lists the shards of."""
    key = shard_key(stem, split)
    if key == stem and stem in split:
        return list(split[stem])
    return [term_shard(stem, shards, split)]

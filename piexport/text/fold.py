"""Folding text for search: case and accents away, one character at a time, and the scripts
written without spaces. The archive search (``search/``), a search result's landing on a
session page and a page's own search box all fold this way; the page scripts take the
``NOSPACE_RANGES`` table from here (``page/scripts.py``) and fold as ``fold_char`` does
(``static/js/fold.js``); a browser test compares the two.

- fold, one character at a time (so positions map back to the text for snippets): NFKD,
  drop combining marks, lower case, NFC (so a Hangul syllable comes back whole).
- scripts written without spaces: Thai, Lao, Myanmar, Khmer, kana, bopomofo, Han, Hangul.
"""

from __future__ import annotations

import unicodedata

NOSPACE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0E7F),  # Thai
    (0x0E80, 0x0EFF),  # Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3100, 0x312F),  # bopomofo
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0x3400, 0x4DBF),  # Han, extension A
    (0x4E00, 0x9FFF),  # Han
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # Han compatibility
    (0x20000, 0x3134F),  # Han, extensions B to G
)
"""Scripts written without spaces: search indexes them as pairs of characters."""

NOSPACE = "".join(f"{chr(a)}-{chr(b)}" for a, b in NOSPACE_RANGES)
"""The body of a regular expression's character class holding ``NOSPACE_RANGES``."""


def fold_char(ch: str) -> str:
    decomposed = unicodedata.normalize("NFKD", ch)
    kept = "".join(c for c in decomposed if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", kept.lower())


class _Folds(dict[int, str]):
    """A ``str.translate`` table that fills itself in as characters are met."""

    def __missing__(self, code: int) -> str:
        folded = self[code] = fold_char(chr(code))
        return folded


_FOLDS = _Folds()


def fold(text: str) -> str:
    """Case and accents folded away, character by character, the way the pages fold."""
    if text.isascii():
        return text.lower()
    return text.translate(_FOLDS)


def fold_map(text: str) -> tuple[str, list[int]]:
    """The folded text, and for each of its characters the index of the one it came from."""
    if text.isascii():  # one to one (a loop per character costs seconds on a 2 MB text)
        return text.lower(), list(range(len(text)))
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        f = fold_char(ch) if not ch.isascii() else ch.lower()
        out.append(f)
        where.extend([i] * len(f))
    return "".join(out), where

"""textsafe: what a reader cannot see is shown as a mark, and emoji keep their selectors."""

from __future__ import annotations

import pytest

from piexport.text.textsafe import INVISIBLE_RENDERING, plain_controls, reveal_controls

# issue 14: characters that are not format characters but draw as nothing or as a blank
BLANKS = [
    "\u034f",  # combining grapheme joiner
    "\u3164",  # Hangul filler
    "\u115f",  # Hangul choseong filler
    "\u1160",  # Hangul jungseong filler
    "\uffa0",  # halfwidth Hangul filler
    "\u180e",  # Mongolian vowel separator
    "\u2800",  # braille pattern blank
    "\u00ad",  # soft hyphen
    "\u17b4",  # Khmer vowel inherent
    "\ufe00",
    "\ufe0f",
    "\U000e0100",
    "\U000e01ef",
]


@pytest.mark.parametrize("ch", BLANKS, ids=lambda c: f"U+{ord(c):04X}")
def test_blank_characters_inside_a_key_are_marked(ch: str) -> None:
    key = f"AKIA{ch}IOSFODNN7EXAMPLE"
    assert ch in INVISIBLE_RENDERING
    assert plain_controls(key) == f"AKIA⟪U+{ord(ch):04X}⟫IOSFODNN7EXAMPLE"
    html = reveal_controls(key)
    assert ch not in html and f'title="U+{ord(ch):04X}"' in html


def test_the_set_covers_bidi_zero_width_and_tags() -> None:
    for ch in "\u202e\u2066\u2069\u200b\u200d\u2060\ufeff\U000e0041":
        assert ch in INVISIBLE_RENDERING
    for ch in "a \t\n\u00e9\u4e2d\u2764":
        assert ch not in INVISIBLE_RENDERING


@pytest.mark.parametrize(
    "text",
    [
        "\u2764\ufe0f",  # heart
        "\u26a0\ufe0f warning",  # warning sign
        "\u2714\ufe0e",  # heavy check mark, text style
        "\u2139\ufe0f",  # information source (a lower-case letter by category)
        "1\ufe0f\u20e3 #\ufe0f\u20e3",  # keycaps
        "\u8fbb\U000e0100",  # an ideographic variation sequence
        "\u2229\ufe00",  # ∩ with serifs
    ],
)
def test_selectors_that_change_how_a_character_looks_are_kept(text: str) -> None:
    assert plain_controls(text) == text
    assert reveal_controls(text) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ghp_\ufe0fabc", "ghp_⟪U+FE0F⟫abc"),
        ("\ufe0fstart", "⟪U+FE0F⟫start"),
        ("\u2764\ufe0f\ufe0f", "\u2764\ufe0f⟪U+FE0F⟫"),  # one selector per character
        ("1\ufe0f2", "1⟪U+FE0F⟫2"),  # a digit takes one only in a keycap
        ("caf\u00e9\ufe0f", "caf\u00e9⟪U+FE0F⟫"),
        (" \ufe0f", " ⟪U+FE0F⟫"),
        ("\u202e\ufe0f", "⟪U+202E⟫⟪U+FE0F⟫"),
    ],
)
def test_selectors_that_change_nothing_are_marked(text: str, shown: str) -> None:
    assert plain_controls(text) == shown


def test_controls_and_bidi_are_still_marked() -> None:
    assert plain_controls("a\x1bb\u202ec\r") == "a\\x1bb⟪U+202E⟫c\\x0d"
    assert reveal_controls("x") == "x"

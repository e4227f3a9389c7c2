"""Make invisible and direction-changing characters visible in escaped HTML.

Bidi overrides (Trojan Source) and zero-width characters let a shared page show code that
is not the code that ran; raw control characters have no business in HTML at all. The
markup inserted here comes from a fixed table, never from content.
"""

from __future__ import annotations

_VISIBLE = {
    **{
        c: f'<span class="ctl" title="U+{c:04X}">⟪U+{c:04X}⟫</span>'
        for c in [
            *range(0x202A, 0x202F),
            *range(0x2066, 0x206A),
            0x200B,
            0x200C,
            0x200D,
            0x2060,
            0xFEFF,
            0x200E,
            0x200F,
            0x061C,
        ]
    },
    **{
        c: f'<span class="ctl" title="U+{c:04X}">\\x{c:02x}</span>'
        for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F]
    },
    0xFFFE: '<span class="ctl">⟪U+FFFE⟫</span>',
    0xFFFF: '<span class="ctl">⟪U+FFFF⟫</span>',
}


def reveal_controls(escaped_html: str) -> str:
    """Replace hidden characters in already-escaped HTML with visible markers."""
    return escaped_html.translate(_VISIBLE)

"""Terminal output → HTML: escape first, then SGR colours become classes; other escapes go.

Only a fixed set of class names is ever emitted, never a colour or style from content.
OSC 8 hyperlinks keep their text and lose their target: a terminal link is no page link.
"""

from __future__ import annotations

import re

from .textsafe import reveal_controls

# CSI ... final byte; OSC ... BEL or ST; other two-byte escapes.
_ESCAPES = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]?"
)
_SPLIT = re.compile(f"({_ESCAPES.pattern})")
_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]


def strip_ansi(text: str) -> str:
    return _ESCAPES.sub("", text)


def _code(param: str) -> int:
    if not param.isdigit():
        return 0
    return int(param) if len(param) <= 9 else -1


def _classes(params: str, state: dict[str, str]) -> None:
    # a parameter too long to be any code is ignored (-1): int() refuses 4,300+ digits
    codes = [_code(p) for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            state.clear()
        elif c == 1:
            state["b"] = "ansi-bold"
        elif c == 2:
            state["d"] = "ansi-dim"
        elif c == 3:
            state["i"] = "ansi-italic"
        elif c == 4:
            state["u"] = "ansi-underline"
        elif c in (22, 23, 24):
            state.pop({22: "b", 23: "i", 24: "u"}[c], None)
            if c == 22:
                state.pop("d", None)
        elif 30 <= c <= 37 or 90 <= c <= 97:
            state["fg"] = f"ansi-{'bright-' if c >= 90 else ''}{_NAMES[c % 10]}"
        elif 40 <= c <= 47 or 100 <= c <= 107:
            state["bg"] = f"ansi-bg-{_NAMES[c % 10]}"
        elif c == 39:
            state.pop("fg", None)
        elif c == 49:
            state.pop("bg", None)
        elif c in (38, 48) and i + 1 < len(codes):
            key = "fg" if c == 38 else "bg"
            if codes[i + 1] == 5 and i + 2 < len(codes):
                n = codes[i + 2] % 256
                state[key] = (
                    f"ansi-{'bg-' if key == 'bg' else ''}{_NAMES[n % 8]}"
                    if n < 16
                    else state.get(key, "")
                )
                i += 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                r, g, b = codes[i + 2 : i + 5]
                idx = (1 if r > 127 else 0) | (2 if g > 127 else 0) | (4 if b > 127 else 0)
                state[key] = f"ansi-{'bg-' if key == 'bg' else ''}{_NAMES[idx]}"
                i += 4
        i += 1


def escape_text(text: str) -> str:
    """HTML-escape text (what markupsafe does) without building Markup objects."""
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&#34;")
        .replace("'", "&#39;")
    )


_State = tuple[tuple[str, str], ...]
_step_cache: dict[tuple[str, _State], tuple[_State, str]] = {}


def _step(seq: str, params: str | None, final: str | None, state: _State) -> tuple[_State, str]:
    """The state after one escape sequence and the HTML it becomes. Terminal output repeats
    the same few sequences thousands of times, so the answers are kept."""
    key = (seq, state)
    hit = _step_cache.get(key)
    if hit is None:
        if final != "m":
            hit = (state, "")  # cursor moves, clears, OSC, …: removed
        else:
            new = dict(state)
            _classes(params or "", new)
            after = tuple(new.items())
            classes = " ".join(v for _, v in after if v)
            html = ("</span>" if any(v for _, v in state) else "") + (
                f'<span class="{classes}">' if classes else ""
            )
            hit = (after, html)
        if len(_step_cache) < 8192:
            _step_cache[key] = hit
    return hit


def ansi_to_html(text: str) -> str:
    """Escaped HTML with ``<span class="ansi-…">`` for SGR colours; nothing else survives.

    The text is escaped first and the escapes matched in the escaped text: escaping leaves
    ESC and the bytes of SGR sequences alone, and whatever else a sequence held is removed.
    A loop over ``split`` rather than ``sub`` with a callback: a coloured build log has a
    sequence every few words, and a Python call for each costs more than the rest."""
    escaped = escape_text(text)
    if "\x1b" not in escaped:
        return reveal_controls(escaped)
    pieces = _SPLIT.split(escaped)  # text, (sequence, params, final, text)*
    out = [pieces[0]]
    state: _State = ()
    for i in range(1, len(pieces), 4):
        seq = pieces[i]
        hit = _step_cache.get((seq, state)) or _step(seq, pieces[i + 1], pieces[i + 2], state)
        state = hit[0]
        out.append(hit[1])
        out.append(pieces[i + 3])
    if any(v for _, v in state):
        out.append("</span>")
    return reveal_controls("".join(out))

"""Terminal output → HTML, as pi 1.6.0's export reads it: colours, links, and nothing lost.

The text is escaped first, then SGR colours become classes and other escapes go:

- every colour is a class from a fixed set, never a colour or style from content (the
  page's CSP allows no ``style`` attribute): the 16 named colours follow the page's theme,
  the 256-colour palette (``38;5;n``) has a class per index (:func:`palette_css`), and a
  truecolour (``38;2;r;g;b``) takes the class of the nearest palette colour;
- an OSC 8 hyperlink to an ``http``, ``https`` or ``mailto`` address becomes a link
  (``rel="noopener noreferrer"``); any other target keeps only its text;
- OSC, DCS, APC (Kitty images), PM and SOS strings go with their payload when their
  terminator (BEL or ESC \\) ends them on the same line. pi converts a line at a time, so a
  string never runs past the end of its line: one with no terminator there loses only its
  ESC (and a DCS, APC, PM or SOS its introducer), and what it held is shown as text, as pi
  shows it (``]8;;https://…``). Nothing after it is swallowed.

Where a string and its payload go, the text on either side comes together. The redactor
reads outputs with these very escapes left out (``redact.views`` reads :data:`ESCAPES`), so a
secret split by an image is seen joined, as a reader sees it, and replaced where it was
written. :func:`strip_ansi` (search, CSV) leaves a space where a string was besides.
"""

from __future__ import annotations

import re
from functools import cache

from .textsafe import HIDDEN, reveal_controls

# CSI ... final byte; a string sequence ended on its line; any other escape (ESC and one
# more byte at most: an unended string loses only that much).
_ESCAPES = re.compile(
    r"\x1b\[([0-?]*)[ -/]*([@-~])"
    r"|\x1b([\]P_X^])([^\x07\x1b\n]*)(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\^_]?"
)
ESCAPES = _ESCAPES
"""Every escape sequence as pages and Markdown leave it out: what a secret scanner must
leave out too to see the text a reader sees (``redact.views`` reads this one)."""
_SPLIT = re.compile(
    r"(\x1b\[((?:[0-;=?]|&lt;|&gt;)*)(?:[ !#-%(-/]|&#34;|&#39;|&amp;)*([@-~])"
    r"|\x1b([\]P_X^])([^\x07\x1b\n]*)(?:\x07|\x1b\\)"
    r"|\x1b[@-Z\\^_]?)"
)
"""``_ESCAPES`` as :func:`escape_text` leaves them: ``<``, ``>``, ``"``, ``'`` and ``&`` of a
CSI's parameters (``ESC[<35;59;1M``, a mouse report) and intermediates are entities there."""
_SGR_PARAMS = re.compile(r"[0-9;:]*")
_GROUPS = 6
"""What ``_SPLIT.split`` gives per escape: the sequence, its four groups, the text after."""
_NAMES = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]
MAX_LINK = 4096
"""A hyperlink target longer than this is not made a link (its text stays)."""
_SAFE_SCHEME = re.compile(r"(?:https?:|mailto:)", re.IGNORECASE)
_LINK_REFUSED = frozenset("\"'<>`\\ \t\n\r\f\v") | HIDDEN
"""Characters a link target may not hold: none could end the attribute or hide a part."""


def _plain_escape(m: re.Match[str]) -> str:
    return " " if m.group(3) in ("P", "_", "X", "^") else ""


def strip_ansi(text: str) -> str:
    """The text with every escape sequence left out (and the payloads of strings); a DCS,
    APC, PM or SOS string (an image) leaves a space, so the words around it stay apart."""
    if "\x1b" not in text:
        return text
    return _ESCAPES.sub(_plain_escape, text)


def link_target(payload: str) -> str | None:
    """The address of an OSC 8 payload (``8;params;URI``, unescaped text) when it may be a
    page link: http, https or mailto, with C0 controls and DEL removed and the ends trimmed
    (what browsers do, and pi), and nothing left that could end an attribute or hide."""
    if not payload.startswith("8;"):
        return None
    parts = payload.split(";", 2)
    if len(parts) < 3:
        return None
    url = re.sub(r"[\x00-\x1f\x7f]", "", parts[2].strip())
    if not url or len(url) > MAX_LINK or not _SAFE_SCHEME.match(url):
        return None
    if any(c in _LINK_REFUSED for c in url):
        return None
    return url


def ansi_plain(text: str) -> str:
    """Plain text (a Markdown code fence): escapes left out, and the address of a safe link
    kept after its text, ``text (address)``, unless the text is the address (or empty)."""
    if "\x1b" not in text:
        return text
    out: list[str] = []
    pos = 0
    link: str | None = None
    start = 0

    def address() -> None:
        shown = "".join(out[start:]).strip()
        if link is not None and shown and shown != link:
            out.append(f" ({link})")

    for m in _ESCAPES.finditer(text):
        out.append(text[pos : m.start()])
        pos = m.end()
        payload = m.group(4)
        if m.group(3) != "]" or payload is None or not payload.startswith("8;"):
            continue
        address()
        link = link_target(payload)
        start = len(out)
    out.append(text[pos:])
    address()
    return "".join(out)


def _code(param: str) -> int:
    if not param.isdigit():
        return 0
    return int(param) if len(param) <= 9 else -1


_CUBE = (0, 95, 135, 175, 215, 255)


def palette_rgb(n: int) -> tuple[int, int, int]:
    """The colour of xterm's 256-colour palette index 16-255 (the cube, then the greys)."""
    if n < 232:
        n -= 16
        return _CUBE[n // 36], _CUBE[n // 6 % 6], _CUBE[n % 6]
    grey = 8 + (n - 232) * 10
    return grey, grey, grey


def nearest_index(r: int, g: int, b: int) -> int:
    """The palette index (16-255) nearest a truecolour: the cube's or the greys' nearest."""

    def level(v: int) -> int:
        return min(range(6), key=lambda i: abs(_CUBE[i] - v))

    cube = 16 + 36 * level(r) + 6 * level(g) + level(b)
    grey = 232 + min(23, max(0, round(((r + g + b) / 3 - 8) / 10)))

    def distance(n: int) -> int:
        pr, pg, pb = palette_rgb(n)
        return (pr - r) ** 2 + (pg - g) ** 2 + (pb - b) ** 2

    return cube if distance(cube) <= distance(grey) else grey


def _indexed(n: int, bg: bool) -> str:
    """The class of palette index ``n`` (0-255): the named colours follow the theme."""
    if n < 16:
        bright = "bright-" if n >= 8 and not bg else ""
        return f"ansi-{'bg-' if bg else ''}{bright}{_NAMES[n % 8]}"
    return f"ansi-{'bg' if bg else 'fg'}-{n}"


def _extended(codes: list[int], i: int, key: str, state: dict[str, str]) -> int:
    """``38;5;n`` / ``38;2;r;g;b`` (and 48): the colour set, and how many codes it used."""
    if i + 1 >= len(codes):
        return 0
    if codes[i + 1] == 5 and i + 2 < len(codes):
        n = codes[i + 2]
        if 0 <= n <= 255:
            state[key] = _indexed(n, key == "bg")
        return 2
    if codes[i + 1] == 2 and i + 4 < len(codes):
        rgb = codes[i + 2 : i + 5]
        if all(v >= 0 for v in rgb):
            r, g, b = (min(v, 255) for v in rgb)
            state[key] = _indexed(nearest_index(r, g, b), key == "bg")
        return 4
    return 0


def _sub_codes(param: str) -> list[int]:
    """A parameter with ``:`` sub-parameters (``38:5:196``, ``38:2::r:g:b``, ``4:3``) as
    the codes its ``;`` form has."""
    sub = param.split(":")
    head = _code(sub[0])
    if head in (38, 48) and len(sub) >= 3:
        if sub[1] == "5":
            return [head, 5, _code(sub[2])]
        if sub[1] == "2" and len(sub) >= 5:
            return [head, 2, *(_code(p) for p in sub[-3:])]
        return [-1]
    return [head]


def _classes(params: str, state: dict[str, str]) -> None:
    # a parameter too long to be any code is ignored (-1): int() refuses 4,300+ digits
    if not params:
        codes = [0]
    elif ":" in params:
        codes = [c for p in params.split(";") for c in (_sub_codes(p) if ":" in p else [_code(p)])]
    else:
        codes = [_code(p) for p in params.split(";")]
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
        elif c in (38, 48):
            i += _extended(codes, i, "fg" if c == 38 else "bg", state)
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


def _unescape(text: str) -> str:
    """What :func:`escape_text` made, as it was."""
    return (
        text.replace("&#39;", "'")
        .replace("&#34;", '"')
        .replace("&gt;", ">")
        .replace("&lt;", "<")
        .replace("&amp;", "&")
    )


_State = tuple[tuple[str, str], ...]
_step_cache: dict[tuple[str, _State], tuple[_State, str]] = {}


def _open(state: _State) -> str:
    classes = " ".join(v for _, v in state if v)
    return f'<span class="{classes}">' if classes else ""


def _close(state: _State) -> str:
    return "</span>" if any(v for _, v in state) else ""


def _step(seq: str, params: str | None, final: str | None, state: _State) -> tuple[_State, str]:
    """The state after one escape sequence and the HTML it becomes. Terminal output repeats
    the same few sequences thousands of times, so the answers are kept."""
    key = (seq, state)
    hit = _step_cache.get(key)
    if hit is None:
        if final != "m" or not _SGR_PARAMS.fullmatch(params or ""):
            hit = (state, "")  # cursor moves, clears, strings, private modes…: removed
        else:
            new = dict(state)
            _classes(params or "", new)
            after = tuple(new.items())
            hit = (after, _close(state) + _open(after))
        if len(_step_cache) < 8192:
            _step_cache[key] = hit
    return hit


def ansi_to_html(text: str) -> str:
    """Escaped HTML with ``<span class="ansi-…">`` for SGR colours and ``<a>`` for safe
    OSC 8 links; every other escape goes, and every character outside them stays.

    The text is escaped first and the escapes matched in the escaped text: escaping leaves
    ESC and the bytes of SGR sequences alone, and whatever else a sequence held is removed.
    A link's target is unescaped to be checked, and escaped again for its attribute. A
    loop over ``split`` rather than ``sub`` with a callback: a coloured build log has a
    sequence every few words, and a Python call for each costs more than the rest."""
    escaped = escape_text(text)
    if "\x1b" not in escaped:
        return reveal_controls(escaped)
    pieces = _SPLIT.split(escaped)  # text, (sequence, params, final, kind, payload, text)*
    out = [pieces[0]]
    state: _State = ()
    linked = False
    for i in range(1, len(pieces), _GROUPS):
        seq = pieces[i]
        payload = pieces[i + 4]
        if payload is not None and pieces[i + 3] == "]" and payload.startswith("8;"):
            # a link starts or ends: the colour's span closes around it and opens again
            url = link_target(_unescape(payload))
            out.append(_close(state) + ("</a>" if linked else ""))
            if url is not None:
                out.append(f'<a href="{escape_text(url)}" rel="noopener noreferrer">')
            linked = url is not None
            out.append(_open(state))
        else:
            hit = _step_cache.get((seq, state)) or _step(seq, pieces[i + 1], pieces[i + 2], state)
            state = hit[0]
            out.append(hit[1])
        out.append(pieces[i + 5])
    out.append(_close(state) + ("</a>" if linked else ""))
    return reveal_controls("".join(out))


def _luminance(rgb: tuple[float, float, float]) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def _contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    x, y = _luminance(a), _luminance(b)
    return (max(x, y) + 0.05) / (min(x, y) + 0.05)


def _readable(
    rgb: tuple[int, int, int], ground: tuple[int, int, int], toward: int
) -> tuple[int, int, int]:
    """``rgb`` mixed toward black (0) or white (255) in steps of 5% until it reads at
    WCAG AA (4.5:1, with a margin) on ``ground``: the same hue, as near as it can be."""
    for step in range(21):
        t = step / 20
        r, g, b = (v + (toward - v) * t for v in rgb)
        mixed = (r, g, b)
        if _contrast(mixed, ground) >= 4.7:
            return round(r), round(g), round(b)
    return (toward, toward, toward)


_LIGHT_GROUND = (0xF6, 0xF8, 0xFA)
"""The page's ``--code`` background, light theme (outputs are drawn on it)."""
_DARK_GROUND = (0x1C, 0x21, 0x28)
"""A little lighter than the dark theme's ``--code`` and ``--card``: the worst case."""


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


@cache
def palette_css() -> str:
    """The classes of palette indices 16-255: each colour as near as it can be while its
    text reads at WCAG AA in either theme; a background is the colour at 25%, over the
    page's own, so the text on it stays readable."""
    light, dark, back = [], [], []
    for n in range(16, 256):
        rgb = palette_rgb(n)
        light.append(f".ansi-fg-{n}{{color:{_hex(_readable(rgb, _LIGHT_GROUND, 0))}}}")
        dark.append(f":root.dark .ansi-fg-{n}{{color:{_hex(_readable(rgb, _DARK_GROUND, 255))}}}")
        back.append(f".ansi-bg-{n}{{background:{_hex(rgb)}40}}")
    return "\n".join(["/* terminal palette (text/ansi.py) */", *light, *dark, *back]) + "\n"

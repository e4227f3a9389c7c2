"""What every page must satisfy (docs/threats.md#static-checks), and the characters a reader cannot see."""

from __future__ import annotations

import base64
import hashlib
import re

import orjson
from bs4 import BeautifulSoup

SAFE_URL = re.compile(
    r"^(#|https?://|mailto:|data:image/(png|jpeg|gif|webp);base64,"
    r"|(\./|(\.\./)*)([\w.%-]+/)*[\w.%-]+\.html(#\S*)?$)"
)
FORBIDDEN_TAGS = ("base", "form", "iframe", "object", "embed", "link", "frame")
UNSEEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5"
    "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff"
    "\uffa0\ufff0-\ufffb\ufffe\uffff\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
"""What a reader cannot see, listed here rather than imported so the check does not trust
the table it checks: controls, bidi controls (Trojan Source), zero-width and other
default-ignorable characters, Hangul fillers, the braille blank, variation selectors."""
SHOWN_ATTRS = ("title", "alt", "aria-label", "placeholder")


def unseen(text: str) -> list[str]:
    """Characters in text the reader would not see; a variation selector after a character
    that takes it (an emoji, an ideograph, a keycap) draws that character, and is allowed."""
    found = []
    for m in UNSEEN.finditer(text):
        if "\ufe00" <= m.group() <= "\ufe0f" or "\U000e0100" <= m.group() <= "\U000e01ef":
            from piexport.text.textsafe import selector_is_shown

            if selector_is_shown(text, m.start()):
                continue
        found.append(f"U+{ord(m.group()):04X}")
    return found


def static_checks(html: str) -> BeautifulSoup:
    """What every page must satisfy, whatever was in the session (docs/threats.md#static-checks)."""
    soup = BeautifulSoup(html, "html.parser")
    head = soup.head
    assert head is not None
    # a browser shows <title>'s source as text: markup there (a mark's <span>) is seen raw
    title = html[html.index("<title>") + len("<title>") : html.index("</title>")]
    assert "<" not in title, title
    first = head.find(True)
    assert first.name == "meta" and first.get("http-equiv") == "Content-Security-Policy"
    csp = first["content"]
    for part in (
        "default-src 'none'",
        "img-src data:",
        "base-uri 'none'",
        "form-action 'none'",
        "require-trusted-types-for 'script'",
    ):
        assert part in csp
    scripts = soup.find_all("script")
    # data islands (the compare view's): never run, hold strict JSON and no "<" at all
    islands = [t for t in scripts if t.get("type") == "application/json"]
    assert len(islands) <= 1
    if islands:
        raw = html[html.index('<script type="application/json"') :]
        raw = raw[raw.index(">") + 1 : raw.index("</script>")]
        assert "<" not in raw and ">" not in raw and "&" not in raw
        assert isinstance(orjson.loads(raw), dict)
    scripts = [t for t in scripts if t not in islands]
    styles = soup.find_all("style")
    assert len(scripts) == 1 and len(styles) == 1
    for inline, directive in ((scripts[0], "script-src"), (styles[0], "style-src")):
        digest = base64.b64encode(hashlib.sha256(inline.string.encode()).digest()).decode()
        # search.html alone also loads its index files, scripts from its own folder
        extra = " 'self'" if directive == "script-src" and 'id="search-box"' in html else ""
        assert f"{directive} 'sha256-{digest}'{extra};" in csp
    for tag in soup.find_all(True):
        assert tag.name not in FORBIDDEN_TAGS, tag.name
        for attr, value in tag.attrs.items():
            assert not attr.lower().startswith("on"), (tag.name, attr)
            assert attr != "style", tag.name
            if attr in ("href", "src"):
                assert re.match(SAFE_URL, value), value
        if tag.name == "meta":
            assert tag.get("http-equiv", "").lower() != "refresh"
        for attr in SHOWN_ATTRS:
            if isinstance(tag.get(attr), str):
                assert not unseen(tag[attr]), (tag.name, attr, unseen(tag[attr]))
    # every character of text from a session is one the reader can see (issues 13 and 14)
    for node in soup.find_all(string=True):
        if node.parent is not None and node.parent.name not in ("script", "style"):
            assert not unseen(str(node)), (node.parent.name, unseen(str(node)), str(node)[:200])
    return soup

"""Terminal escapes as pi 1.6.0's export reads them: every visible character reaches the page
and the Markdown, colours of every kind become classes, safe OSC 8 links become links and
nothing else does (issue 36 "Silently lost", issue 38 "Terminal links")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from bs4 import BeautifulSoup
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from piexport.page.render import render_session
from piexport.read.loader import load_session
from piexport.report.formats import session_markdown
from piexport.text.ansi import (
    ansi_plain,
    ansi_to_html,
    link_target,
    nearest_index,
    palette_css,
    palette_rgb,
    strip_ansi,
)
from piexport.text.textsafe import HIDDEN

from tests.support.sessions import HEADER, msg, to_lines

E = "\x1b"
ST = E + "\\"
ISSUE_EXAMPLE = f"line A {E}]8;;https://example.com/docs cut here\nline B\nline C"


def _soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(f"<pre>{html}</pre>", "html.parser")


# -- what one sequence does ----------------------------------------------------------------


def test_the_issues_unended_osc_swallows_nothing() -> None:
    html = ansi_to_html(ISSUE_EXAMPLE)
    text = _soup(html).get_text()
    # as pi shows it: the ESC goes, the rest is text
    assert text.splitlines() == ["line A ]8;;https://example.com/docs cut here", "line B", "line C"]
    assert "<a" not in html  # an unended link is no link
    assert ansi_plain(ISSUE_EXAMPLE).splitlines() == text.splitlines()
    assert strip_ansi(ISSUE_EXAMPLE) == text


def test_apc_dcs_pm_sos_go_with_their_payload() -> None:
    kitty = f"{E}_Gf=100,a=T;iVBORw0KGgoAAAANSUhEUg=={ST}"
    sixel = f"{E}Pq#0;2;0;0;0#1;2;100;100;0{ST}"
    text = f"before{kitty}middle{sixel}{E}^private{ST}{E}Xstring\x07after"
    assert _soup(ansi_to_html(text)).get_text() == "beforemiddleafter"
    assert ansi_plain(text) == "beforemiddleafter"
    assert strip_ansi(text).split() == ["before", "middle", "after"]  # words kept apart


def test_256_colours_and_truecolour_become_palette_classes() -> None:
    html = ansi_to_html(
        f"{E}[38;5;196ma{E}[48;5;22mb{E}[0m{E}[38;2;0;135;255mc{E}[38:5:99md{E}[38:2::255:0:0me"
        f"{E}[38;5;9mf{E}[38;5;3mg"
    )
    spans = [(s.get_text(), s["class"]) for s in _soup(html).find_all("span")]
    assert spans == [
        ("a", ["ansi-fg-196"]),
        ("b", ["ansi-fg-196", "ansi-bg-22"]),
        ("c", ["ansi-fg-33"]),  # 0;135;255 is palette 33 exactly
        ("d", ["ansi-fg-99"]),
        ("e", ["ansi-fg-196"]),
        ("f", ["ansi-bright-red"]),  # the 16 named colours keep their themed classes
        ("g", ["ansi-yellow"]),
    ]
    for n in (16, 33, 99, 196, 231, 232, 255):
        assert nearest_index(*palette_rgb(n)) == n
        assert f".ansi-fg-{n}{{color:#" in palette_css()
        assert f".ansi-bg-{n}{{background:#" in palette_css()
    assert "style=" not in html  # the page's CSP allows no style attribute


def test_a_colour_from_content_never_reaches_the_markup() -> None:
    html = ansi_to_html(
        f"{E}[38;2;999;1000;99999mA{E}[0;38;5;300mB{E}[38;5mC{E}[0;48;2;1;2mD{E}[38;5;{'9' * 5000}mE"
    )
    classes = {c for cs in re.findall(r'class="([^"]*)"', html) for c in cs.split()}
    assert classes == {"ansi-fg-231", "ansi-dim", "ansi-bold"}  # clamped; 38;5 with no index
    assert _soup(html).get_text() == "ABCDE"


def test_safe_links_become_links_and_keep_their_text() -> None:
    text = f"see {E}]8;id=1;https://example.com/a?b=1&c=2{ST}the docs{E}]8;;{ST} and {E}]8;;mailto:a@b.c\x07mail{E}]8;;\x07."
    soup = _soup(ansi_to_html(text))
    links = soup.find_all("a")
    assert [(a["href"], a["rel"], a.get_text()) for a in links] == [
        ("https://example.com/a?b=1&c=2", ["noopener", "noreferrer"], "the docs"),
        ("mailto:a@b.c", ["noopener", "noreferrer"], "mail"),
    ]
    assert soup.get_text() == "see the docs and mail."
    assert (
        ansi_plain(text) == "see the docs (https://example.com/a?b=1&c=2) and mail (mailto:a@b.c)."
    )


def test_a_coloured_link_nests_its_spans() -> None:
    html = ansi_to_html(f"{E}[31mred {E}]8;;https://x.org{ST}link {E}[1mbold{E}]8;;{ST} after")
    assert html == (
        '<span class="ansi-red">red </span><a href="https://x.org" rel="noopener noreferrer">'
        '<span class="ansi-red">link </span><span class="ansi-red ansi-bold">bold</span></a>'
        '<span class="ansi-red ansi-bold"> after</span>'
    )


HOSTILE_TARGETS = [
    "javascript:alert(1)",
    " JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    'https://x.org/"><script>alert(1)</script>',
    "https://x.org/' onmouseover='alert(1)",
    "https://x.org/\u202egpj.exe",
    "https://x.org/a b",
    "https://x.org/`x`",
    "https://x.org/\\x",
    "https://" + "a" * 5000,
]


def test_hostile_targets_make_no_link_and_no_markup() -> None:
    for target in HOSTILE_TARGETS:
        html = ansi_to_html(f"{E}]8;;{target}{ST}TEXT{E}]8;;{ST}")
        soup = _soup(html)
        assert soup.find("a") is None, target
        assert soup.find("script") is None
        assert [t.name for t in soup.find_all(True)] == ["pre"], target
        assert soup.get_text() == "TEXT"
        assert link_target(f"8;;{target}") is None


def test_a_hostile_target_in_the_text_stays_text() -> None:
    """A payload that is not a link target is escaped text, never markup."""
    for target in HOSTILE_TARGETS:
        html = ansi_to_html(f"{target}{E}]8;;{target}")  # unended: the payload is text
        soup = _soup(html)
        assert soup.find("a") is None and soup.find("script") is None
        assert target.replace("\u202e", "") in soup.get_text().replace("\\x09", "\t").replace(
            "⟪U+202E⟫", ""
        )


# -- every visible character, whatever the mix (hypothesis) --------------------------------

VISIBLE = st.text(
    alphabet=st.characters(
        codec="utf-8",
        categories=["L", "N", "P", "S", "Zs"],
        include_characters="<>&\"'\n[];\\",
    ),
    max_size=12,
).map(lambda s: "".join(c for c in s if c not in HIDDEN))
"""Text a reader sees as written (no control or invisible character: those show as marks)."""
TARGET = st.one_of(
    st.builds(lambda s: "https://example.com/" + s, st.text("abc/?=&%.-_", max_size=10)),
    st.sampled_from(["mailto:a@b.c", "javascript:alert(1)", "data:,x", '"><script>', ""]),
)
PAYLOAD = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x1b\x07\n"), max_size=16
)


@dataclass(frozen=True)
class Piece:
    raw: str
    """What the terminal was sent."""
    visible: str
    """What a reader sees of it."""


SEQUENCES = st.one_of(
    st.builds(
        lambda ps: Piece(f"{E}[{';'.join(map(str, ps))}m", ""),
        st.lists(st.integers(0, 300), max_size=6),
    ),
    st.sampled_from(
        [f"{E}[2K", f"{E}[1;1H", f"{E}[?25l", f"{E}[<35;59;1M", f"{E}[38:2::1:2:3m", f"{E}M"]
    ).map(lambda s: Piece(s, "")),
    st.builds(lambda t, end: Piece(f"{E}]8;;{t}{end}", ""), TARGET, st.sampled_from([ST, "\x07"])),
    st.builds(
        lambda kind, p, end: Piece(f"{E}{kind}{p}{end}", ""),
        st.sampled_from(list("]P_X^")),
        PAYLOAD,
        st.sampled_from([ST, "\x07"]),
    ),
    # a string with no terminator on its line: only ESC goes (and a DCS, APC, PM or SOS
    # introducer)
    st.builds(
        lambda kind, p: Piece(f"{E}{kind}{p}\n", ("]" if kind == "]" else "") + p + "\n"),
        st.sampled_from(list("]P_X^")),
        VISIBLE.map(lambda p: p.replace("\n", "").replace("\\", "")),
    ),
)
MIXES = st.lists(st.one_of(VISIBLE.map(lambda v: Piece(v, v)), SEQUENCES), max_size=14)


def _join(pieces: list[Piece]) -> tuple[str, str]:
    return "".join(p.raw for p in pieces), "".join(p.visible for p in pieces)


def _shown(text: str) -> str:
    """What the page shows of text with no hidden characters (what VISIBLE makes)."""
    return text


@settings(max_examples=300, deadline=None, derandomize=True)
@given(MIXES)
def test_every_visible_character_reaches_the_page_and_the_plain_text(pieces: list[Piece]) -> None:
    raw, visible = _join(pieces)
    html = ansi_to_html(raw)
    soup = _soup(html)
    assert soup.get_text() == visible
    assert strip_ansi(raw).replace(" ", "") == visible.replace(" ", "")
    for a in soup.find_all("a"):
        assert re.match(r"(?:https?|mailto):", str(a["href"])), a["href"]
        assert a["rel"] == ["noopener", "noreferrer"]
    assert {t.name for t in soup.find_all(True)} <= {"pre", "span", "a"}
    # the plain text is the visible text with safe links' addresses added after their text
    plain = ansi_plain(raw)
    at = 0
    for ch in visible:
        found = plain.find(ch, at)
        assert found >= 0, (ch, plain)
        at = found + 1


def _session(tmp: Path, outputs: list[str]) -> Path:
    records: list[Any] = [msg("u0", None, "user", "run it", 0)]
    parent = "u0"
    for i, out in enumerate(outputs):
        call = {"type": "toolCall", "id": f"t{i}", "name": "bash", "arguments": {"command": "x"}}
        records.append(msg(f"a{i}", parent, "assistant", [call], 2 * i + 1))
        records.append(
            msg(
                f"r{i}",
                f"a{i}",
                "toolResult",
                [{"type": "text", "text": out}],
                2 * i + 2,
                toolCallId=f"t{i}",
                toolName="bash",
                isError=False,
            )
        )
        parent = f"r{i}"
    path = tmp / "s.jsonl"
    path.write_bytes(to_lines([HEADER, *records]))
    return path


def _in_order(haystack: str, needles: list[str]) -> bool:
    at = 0
    for n in needles:
        found = haystack.find(n, at)
        if found < 0:
            return False
        at = found + len(n)
    return True


@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(MIXES, min_size=1, max_size=3))
def test_every_visible_character_reaches_a_session_page_and_its_markdown(
    tmp_path: Path, mixes: list[list[Piece]]
) -> None:
    joined = [_join(m) for m in mixes]
    path = _session(tmp_path, [raw + "\nend-of-output" for raw, _ in joined])
    session = load_session(path)
    page = BeautifulSoup(render_session(session), "html.parser")
    outputs = [(r.select("pre")[-1].get_text()) for r in page.select(".tool-result")]
    assert len(outputs) == len(joined)
    for (_, visible), shown in zip(joined, outputs, strict=True):
        assert shown.replace("\r\n", "\n") == (visible + "\nend-of-output").replace("\r\n", "\n")
    for a in page.select("main a[href]"):
        assert not str(a["href"]).lower().lstrip().startswith(("javascript:", "data:"))
    md = re.sub(r" \((?:https?|mailto):[^)\s]*\)", "", session_markdown(session))
    for _, visible in joined:
        lines = [line for line in visible.replace("\r", "\n").split("\n") if line.strip()]
        assert _in_order(md, [*lines, "end-of-output"]), (lines, md)


def test_the_issues_example_in_a_page_and_in_markdown(tmp_path: Path) -> None:
    session = load_session(_session(tmp_path, [ISSUE_EXAMPLE + f"\n{E}[31mline D{E}[0m"]))
    page = BeautifulSoup(render_session(session), "html.parser")
    shown = page.select(".tool-result pre")[-1].get_text()
    assert shown.splitlines() == [
        "line A ]8;;https://example.com/docs cut here",
        "line B",
        "line C",
        "line D",
    ]
    md = session_markdown(session)
    assert _in_order(md, ["line A", "cut here", "line B", "line C", "line D"])


def test_a_safe_link_in_a_page_and_in_markdown(tmp_path: Path) -> None:
    out = f"{E}]8;;https://ci.example/run/7{ST}build 7{E}]8;;{ST} {E}]8;;javascript:alert(1){ST}bad{E}]8;;{ST}"
    session = load_session(_session(tmp_path, [out]))
    page = BeautifulSoup(render_session(session), "html.parser")
    links = page.select(".tool-result pre a")
    assert {(a["href"], a.get_text()) for a in links} == {("https://ci.example/run/7", "build 7")}
    assert "javascript:" not in str(page.select_one(".tool-result"))
    md = session_markdown(session)
    assert "build 7 (https://ci.example/run/7) bad" in md
    assert orjson.dumps(md)  # one string, whole


def test_every_palette_colour_reads_at_wcag_aa_in_both_themes() -> None:
    from piexport.text.ansi import _contrast

    def rgb(h: str) -> tuple[int, int, int]:
        return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

    css = palette_css()
    light = re.findall(r"^\.ansi-fg-(\d+)\{color:#([0-9a-f]{6})\}$", css, re.M)
    dark = re.findall(r"^:root\.dark \.ansi-fg-(\d+)\{color:#([0-9a-f]{6})\}$", css, re.M)
    assert [int(n) for n, _ in light] == [int(n) for n, _ in dark] == list(range(16, 256))
    for _, colour in light:
        for ground in ("f6f8fa", "ffffff"):  # --code, --card
            assert _contrast(rgb(colour), rgb(ground)) >= 4.5, colour
    for _, colour in dark:
        for ground in ("0d1116", "161b21"):
            assert _contrast(rgb(colour), rgb(ground)) >= 4.5, colour


def test_a_secret_split_by_an_image_never_shows_joined(tmp_path: Path) -> None:
    """The page drops an APC/DCS payload and joins the text around it: what it joins is
    read again, so a key split by an image is redacted on the page, in Markdown, and kept
    apart where escapes are only stripped (search, CSV)."""
    from piexport import Redactor
    from piexport.redact.session import redact_session

    key = "ghp_" + "k7Qz9mXw2Lp4Rt8Vn3Bc6Hy1Jd5Fs0Ga2Ue4"
    splits = {
        "apc": f"{key[:14]}{E}_Gf=100;AAAA{ST}{key[14:]}",
        "dcs": f"{key[:14]}{E}Pq#0;2{ST}{key[14:]}",
        "sos": f"{key[:14]}{E}Xx\x07{key[14:]}",
    }
    for name, out in splits.items():
        folder = tmp_path / name
        folder.mkdir()
        session = redact_session(load_session(_session(folder, [out])), Redactor.create())
        page = BeautifulSoup(render_session(session), "html.parser")
        shown = page.select(".tool-result pre")[-1].get_text()
        assert key not in shown and "REDACTED" in shown, (name, shown)
        assert key not in session_markdown(session)
        assert key not in strip_ansi(out)

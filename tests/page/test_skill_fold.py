"""Issue 38, item 5: a skill pi sent in a user message (``<skill name=… location=…>`` and the
whole skill file) is folded on load to "[skill] name", a <details> that opens without
JavaScript, with the user's own words after it shown; the tree and Prompts say the same."""

from __future__ import annotations

from pathlib import Path

from bs4 import BeautifulSoup

from piexport.page.render import render_session
from piexport.read.loader import load_session
from piexport.read.model import skill_block

from tests.support.sessions import HEADER, msg, to_lines

BODY = (
    "References are relative to /home/alice/.pi/skills/release.\n\n# Release\n\n"
    "```md\n</skill>\n```\n\n" + "\n".join(f"- rule {i}" for i in range(60))
)
TEXT = (
    '<skill name="release" location="/home/alice/.pi/skills/release/SKILL.md">\n'
    f"{BODY}\n</skill>\n\nship version 1.2"
)


def test_the_skill_block_is_read_as_pi_reads_it() -> None:
    sk = skill_block(TEXT)
    assert sk is not None
    assert (sk.name, sk.location, sk.body, sk.rest) == (
        "release",
        "/home/alice/.pi/skills/release/SKILL.md",
        BODY,
        "ship version 1.2",
    )
    assert skill_block(TEXT.replace("\n</skill>\n", "\n")) is None  # never closed: not one
    assert skill_block('say <skill name="x" location="y">\nbody\n</skill>') is None
    no_args = skill_block('<skill name="x" location="y">\nbody\n</skill>')
    assert no_args is not None and no_args.rest == "" and no_args.body == "body"


def test_a_skill_is_folded_to_its_name(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    records = [
        msg("u1", None, "user", TEXT, 1),
        msg("a1", "u1", "assistant", [{"type": "text", "text": "Shipping."}], 2),
        msg("u2", "a1", "user", [{"type": "text", "text": TEXT}], 3),
    ]
    path.write_bytes(to_lines([HEADER, *records]))
    soup = BeautifulSoup(render_session(load_session(path)), "html.parser")
    for eid in ("u1", "u2"):
        entry = soup.select_one(f"#entry-{eid}")
        assert entry is not None
        fold = entry.select_one("details.skill")
        assert fold is not None and not fold.has_attr("open")
        assert fold.summary is not None
        assert fold.summary.get_text(" ", strip=True) == "[skill] release"
        assert "rule 59" in fold.get_text() and "</skill>" in fold.get_text()
        after = fold.find_next_sibling("div", class_="md")
        assert after is not None and after.get_text(strip=True) == "ship version 1.2"
        assert "rule 0" not in after.get_text()
    rows = [a.get_text(strip=True) for a in soup.select("nav.outline li a")]
    assert "user: [skill] release · ship version 1.2" in rows
    prompts = [a.get_text(" ", strip=True) for a in soup.select("ol.prompts a")]
    assert all(p.endswith("[skill] release · ship version 1.2") for p in prompts)

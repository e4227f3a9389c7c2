"""text.cut.Derive: every text made from session text for display is redacted where it is
made, and only where it is new (near a cut, where parts meet)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from piexport import Redactor, load_session, redact_session
from piexport.read.selection import Selection, apply_selection
from piexport.text.cut import CUT_WINDOW, PLAIN, Derive

from tests.support.sessions import msg

GHP = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_a_session_carries_the_derive_that_fits_it(make_session: Any) -> None:
    path: Path = make_session(
        [msg("u1", None, "user", "hi", 1), msg("a1", "u1", "assistant", "x", 2)]
    )
    session = load_session(path)
    assert session.derive is PLAIN
    redacted = redact_session(session, Redactor.create())
    assert redacted.derive.redactor is not None
    chosen = apply_selection(redacted, Selection(branch="current"))
    assert chosen.derive is redacted.derive


def test_only_what_a_derivation_makes_is_read_again() -> None:
    d = Derive(Redactor.create())
    assert d.line("CLIENT_SECRET=\nCLIENT_ID=my-public-client-id").startswith(
        "CLIENT_SECRET= [REDACTED:secret-assignment:"
    )
    text = "export API_KEY=YOUR_API_KEY_HERE && ./start.sh"
    assert d.cut(text, 30).startswith("export API_KEY=[REDACTED:")  # a cut placeholder
    assert PLAIN.cut(text, 30) == "export API_KEY=YOUR_API_KEY_H…"
    assert d.join(["DB_PASS", "WORD=hunter2-Sup3r!"], "") == (
        "DB_PASSWORD=" + Redactor.create().token("secret-assignment", "hunter2-Sup3r!")
    )
    assert d.join(["one part"]) == "one part"  # a field as it was: nothing new


def test_long_texts_are_read_again_only_near_a_cut_or_a_join() -> None:
    """A join or a cut changes what rules read only near it: the rest of a long text is not
    read again (its secrets were replaced when it was read as a field)."""
    r = Redactor.create()
    d = Derive(r)
    far = "AKIA" + "IOSFODNN7EXAMPL2"  # left in on purpose: only a derivation's redaction
    filler = "log line\n" * (CUT_WINDOW // 4)
    joined = d.join([far + "\n" + filler + "token " + GHP[:12], GHP[12:] + "\n" + filler], "")
    assert GHP not in joined and "[REDACTED:github-token:" in joined
    assert joined.startswith(far)  # more than a window away from the join
    # the text is given unredacted: near the cut it is read again (the secret goes), far
    # from it not (the key a field's reading would have replaced stays)
    line = "password: hunter2-Sup3r and more"
    block = d.block(far + "\n" + filler + line, len(far) + 1 + len(filler) + 23)
    assert block.startswith(far) and "\npassword: [REDACTED:secret-assignment:" in block[-60:]


def test_a_secret_split_across_text_blocks_is_one_secret(make_session: Any) -> None:
    blocks = [
        {"type": "text", "text": "use " + GHP[:15]},
        {"type": "text", "text": GHP[15:] + " ok"},
    ]
    path = make_session([msg("u1", None, "user", blocks, 1)])
    session = redact_session(load_session(path), Redactor.create())
    content = session.entries[0].raw["message"]["content"]
    token = Redactor.create().token("github-token", GHP)
    assert [b["text"] for b in content] == [f"use {token}", " ok"]


def test_views_map_a_secret_back_to_what_was_written() -> None:
    r = Redactor.create()
    token = r.token("github-token", GHP)
    encoded = "gh%70_" + GHP[4:10] + "%44" + GHP[11:]  # p and D as %xx
    assert r.redact_text(f"cb?x=1 {encoded} end") == f"cb?x=1 {token} end"
    coloured = f"{GHP[:9]}\x1b[1;31m{GHP[9:]}\x1b[0m!"
    assert r.redact_text(coloured) == f"{token}\x1b[0m!"
    assert r.redact_text("AKIA\u27eaU+FE0F\u27ebIOSFODNN7EXAMPL2 x").startswith("[REDACTED:aws")
    assert r.redact_text("PASSWORD=\u27eaU+200B\u27eb") == "PASSWORD=\u27eaU+200B\u27eb"

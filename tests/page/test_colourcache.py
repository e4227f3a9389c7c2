"""The on-disk cache of coloured blocks: same pages, hit or miss; never trusts its files."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from piexport.page import colourcache, highlight
from piexport.page.highlight import HighlightBudget, highlight_code, lexer_for_path

from tests.support.sessions import MakeSession, msg, tool_result

CODE = "\n".join(
    f"def f_{i}(x):\n    '''<b>&amp;</b>'''\n    return x * {i}  # \"q\" & <tag>" for i in range(80)
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", str(tmp_path))
    colourcache.reset()
    monkeypatch.setattr(highlight, "_cache", {})  # the in-process cache would hide the disk
    yield tmp_path / "colour"
    colourcache.reset()


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.z")) if root.exists() else []


def test_a_hit_gives_the_same_html_and_charges_the_budget(cache: Path) -> None:
    lexer = lexer_for_path("a.py")
    cold_budget = HighlightBudget(10_000)
    cold = highlight_code(CODE, lexer, cold_budget)
    assert "<span" in cold and len(_files(cache)) == 1
    highlight._cache.clear()
    calls = []
    real = highlight._colour
    highlight._colour = lambda *a: calls.append(a) or real(*a)  # type: ignore[assignment]
    try:
        warm_budget = HighlightBudget(10_000)
        warm = highlight_code(CODE, lexer, warm_budget)
    finally:
        highlight._colour = real  # type: ignore[assignment]
    assert warm == cold
    assert calls == []  # read back, not coloured again
    assert warm_budget.chars == cold_budget.chars == 10_000 - len(CODE)


def test_small_blocks_are_not_stored(cache: Path) -> None:
    highlight_code("x = 1\n", lexer_for_path("a.py"), HighlightBudget())
    assert _files(cache) == []


@pytest.mark.parametrize(
    "poison",
    [
        '<img src=x onerror="alert(1)">',
        "<script>alert(1)</script>",
        '<span class="k" onclick="alert(1)">x</span>',
        "&#60;script&#62;",
        "",
    ],
)
@pytest.mark.parametrize("packed", [True, False])
def test_a_hostile_or_corrupt_file_is_never_used(cache: Path, poison: str, packed: bool) -> None:
    lexer = lexer_for_path("a.py")
    good = highlight_code(CODE, lexer, HighlightBudget())
    (path,) = _files(cache)
    data = poison.encode() + good.encode()[:50]
    path.write_bytes(zlib.compress(data) if packed else data)
    highlight._cache.clear()
    again = highlight_code(CODE, lexer, HighlightBudget())
    assert again == good
    assert "alert" not in again and "<img" not in again and "<script" not in again
    assert zlib.decompress(path.read_bytes()).decode() == good  # coloured again and replaced


def test_a_file_that_unpacks_too_big_is_refused(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexer = lexer_for_path("a.py")
    good = highlight_code(CODE, lexer, HighlightBudget())
    (path,) = _files(cache)
    monkeypatch.setattr(colourcache, "MAX_HTML_BYTES", len(good) - 1)
    assert colourcache.load(CODE, lexer.name) is None
    monkeypatch.setattr(colourcache, "MAX_HTML_BYTES", len(good))
    assert colourcache.load(CODE, lexer.name) == good
    path.write_bytes(zlib.compress(good.encode())[:-8])  # cut short
    assert colourcache.load(CODE, lexer.name) is None


def test_text_that_differs_from_the_code_is_refused() -> None:
    assert colourcache.is_colouring_of('<span class="k">def</span> f', "def f")
    assert not colourcache.is_colouring_of('<span class="k">def</span> g', "def f")
    assert not colourcache.is_colouring_of('<span class="k">def f', "def f")
    assert not colourcache.is_colouring_of('</span>def f<span class="k">', "def f")
    assert not colourcache.is_colouring_of("&#60;", "<")
    assert colourcache.is_colouring_of("&lt;&amp;lt;&quot;&#39;", "<&lt;\"'")


def test_off_and_unwritable_folders_colour_as_usual(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(highlight, "_cache", {})
    lexer = lexer_for_path("a.py")
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", "off")
    colourcache.reset()
    plain_run = highlight_code(CODE, lexer, HighlightBudget())
    highlight._cache.clear()
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", str(blocked))
    colourcache.reset()
    assert highlight_code(CODE, lexer, HighlightBudget()) == plain_run
    colourcache.reset()


def test_the_folder_is_pruned_oldest_first(tmp_path: Path) -> None:
    import os

    for i in range(10):
        p = tmp_path / "ab" / f"{i}.z"
        p.parent.mkdir(exist_ok=True)
        p.write_text("x" * 100)
        os.utime(p, (1000 + i, 1000 + i))
    assert colourcache.prune(tmp_path, max_bytes=2000) == 0
    assert colourcache.prune(tmp_path, max_bytes=800) == 4  # down to 600 bytes
    assert sorted(p.name for p in (tmp_path / "ab").iterdir()) == [f"{i}.z" for i in range(4, 10)]


def test_a_page_is_the_same_with_a_poisoned_cache(
    cache: Path, make_session: MakeSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end: a page made while every cache file of its blocks was replaced by markup
    is the page made without a cache, byte for byte."""
    from piexport.export.pipeline import export_session

    call = {"type": "toolCall", "id": "t1", "name": "read", "arguments": {"path": "/w/a.py"}}
    path = make_session(
        [
            msg("u1", None, "user", "read it", 1),
            msg("a1", "u1", "assistant", [call], 2),
            tool_result("r1", "a1", CODE, 3, "t1", "read"),
            msg("a2", "r1", "assistant", [{"type": "text", "text": f"```python\n{CODE}\n```"}], 4),
        ]
    )
    warm, poisoned, plain = (
        tmp_path / "warm.html",
        tmp_path / "poisoned.html",
        tmp_path / "off.html",
    )
    export_session(path, tmp_path / "cold.html")
    stored = _files(cache)
    assert stored  # the blocks were kept
    highlight._cache.clear()
    export_session(path, warm)
    for f in stored:
        f.write_bytes(zlib.compress(b'<span class="k"><img src=x onerror=alert(1)></span>'))
    highlight._cache.clear()
    export_session(path, poisoned)
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", "off")
    colourcache.reset()
    highlight._cache.clear()
    export_session(path, plain)
    assert (tmp_path / "cold.html").read_bytes() == warm.read_bytes() == plain.read_bytes()
    assert poisoned.read_bytes() == plain.read_bytes()
    assert b"onerror" not in poisoned.read_bytes()


def test_only_the_owner_may_read_the_cache(cache: Path) -> None:
    cache.mkdir(parents=True)
    cache.chmod(0o755)
    highlight_code(CODE, lexer_for_path("a.py"), HighlightBudget())
    assert _files(cache)
    assert cache.stat().st_mode & 0o777 == 0o700


def test_a_planted_class_is_refused_even_around_the_exact_code(cache: Path) -> None:
    """A file whose text is exactly the code but which wraps part of it in a class Pygments
    never writes (one the page uses to hide text: ``js-only``) is coloured again."""
    lexer = lexer_for_path("a.py")
    good = highlight_code(CODE, lexer, HighlightBudget())
    (path,) = _files(cache)
    planted = good.replace('<span class="k">', '<span class="js-only">', 1)
    assert planted != good and colourcache.is_colouring_of(planted, CODE) is False
    path.write_bytes(zlib.compress(planted.encode()))
    highlight._cache.clear()
    assert highlight_code(CODE, lexer, HighlightBudget()) == good
    assert zlib.decompress(path.read_bytes()).decode() == good


def test_only_the_token_classes_of_pygments_pass() -> None:
    from pygments.token import STANDARD_TYPES

    classes = colourcache.token_classes()
    assert classes == {c for c in STANDARD_TYPES.values() if c}
    for name in classes:
        assert colourcache.is_colouring_of(f'<span class="{name}">x</span>', "x")
    page_classes = {"js-only", "preview", "off-choice", "wide-only", "hl", "k nf", "k x"}
    for name in page_classes:
        assert not colourcache.is_colouring_of(f'<span class="{name}">x</span>', "x"), name


def _planted(root: Path, lexer_name: str) -> Path:
    """A cache file, under ``root``, that would be read for CODE if ``root`` were trusted."""
    path = colourcache._path(root, CODE, lexer_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("shape", ["symlink", "others-write", "group-write", "foreign-owner"])
def test_a_folder_another_user_could_fill_is_neither_used_nor_pruned(
    shape: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    monkeypatch.setattr(highlight, "_cache", {})
    lexer = lexer_for_path("a.py")
    real = tmp_path / "real"
    (real / "colour").mkdir(parents=True, mode=0o700)
    if shape == "symlink":
        base = tmp_path / "link"
        base.symlink_to(real, target_is_directory=True)
    else:
        base = real
        if shape == "others-write":
            (real / "colour").chmod(0o703)
        elif shape == "group-write":
            real.chmod(0o770)
        else:
            monkeypatch.setattr(os, "geteuid", lambda: os.stat(real).st_uid + 1)
    root = base / "colour"
    # a planted file with the right key, and junk past the size limit for pruning to eat
    planted = _planted(root, lexer.name)
    planted.write_bytes(zlib.compress(b'<span class="js-only">' + b"x" * 10 + b"</span>"))
    ballast = root / "ab" / "old.z"
    ballast.parent.mkdir(exist_ok=True)
    ballast.write_bytes(b"x" * 4096)
    before = sorted(p.name for p in root.rglob("*"))
    monkeypatch.setenv("PIEXPORT_CACHE_DIR", str(base))
    colourcache.reset()
    try:
        assert colourcache.load(CODE, lexer.name) is None
        first = highlight_code(CODE, lexer, HighlightBudget())
        highlight._cache.clear()
        second = highlight_code(CODE, lexer, HighlightBudget())
        assert colourcache.prune(root, max_bytes=10) == 0
    finally:
        colourcache.reset()
    assert first == second and "js-only" not in first and '<span class="k">' in first
    assert sorted(p.name for p in root.rglob("*")) == before  # nothing written, nothing pruned
    err = capsys.readouterr().err
    assert err.count("colour cache not used") == 1, err

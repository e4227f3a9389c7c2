"""write_atomic: readers see the old page or the new one, never half of either, no litter."""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

import pytest

import piexport.output as output
from piexport.errors import OutputError
from piexport.output import write_atomic


def test_writes_text_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    out = tmp_path / "deep" / "er" / "page.html"
    write_atomic(out, "<p>é ✓</p>\n")
    assert out.read_text(encoding="utf-8") == "<p>é ✓</p>\n"
    assert [p.name for p in out.parent.iterdir()] == ["page.html"]
    assert out.stat().st_mode & 0o777 == 0o644


def test_replaces_an_existing_page(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    out.write_text("old page")
    write_atomic(out, "new page")
    assert out.read_text() == "new page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


class Boom(Exception):
    pass


class FailingFile(io.TextIOWrapper):
    """A file that writes half of the text, then fails: a full disk, say."""

    def write(self, text: str) -> int:
        super().write(text[: len(text) // 2])
        self.flush()
        raise Boom


@pytest.mark.parametrize("error", [Boom, KeyboardInterrupt])
def test_a_failed_write_keeps_the_old_page_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: type[BaseException]
) -> None:
    out = tmp_path / "page.html"
    out.write_text("old page")
    real_fdopen = os.fdopen

    def fdopen(fd: int, *args: object, **kwargs: object) -> io.TextIOWrapper:
        f = real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]
        broken = FailingFile(f.detach(), encoding="utf-8")
        if error is not Boom:

            def interrupt(text: str) -> int:
                raise error

            broken.write = interrupt  # type: ignore[method-assign]
        return broken

    monkeypatch.setattr(output.os, "fdopen", fdopen)
    with pytest.raises(error):
        write_atomic(out, "new page " * 10_000)
    assert out.read_text() == "old page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_a_failed_rename_keeps_the_old_page_and_cleans_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "page.html"
    out.write_text("old page")

    def replace(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "replace", replace)
    with pytest.raises(OutputError, match=r"page\.html: cannot write: No space left"):
        write_atomic(out, "new page")
    assert out.read_text() == "old page"
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"]


def test_an_unwritable_folder_is_an_output_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OutputError, match="cannot write"):
        write_atomic(blocker / "page.html", "x")


def test_text_with_lone_surrogates_is_still_written(tmp_path: Path) -> None:
    """A page must never fail at the last step on text the loader let through."""
    out = tmp_path / "page.html"
    write_atomic(out, "a\udcffb")
    assert out.read_bytes() == b"a\xffb"


def test_open_is_never_used_on_the_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page itself is only ever renamed into place, never opened for writing."""
    out = tmp_path / "page.html"
    real_open = builtins.open

    def guarded(file: object, *args: object, **kwargs: object) -> object:
        assert Path(str(file)) != out, "the target was opened directly"
        return real_open(file, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(builtins, "open", guarded)
    write_atomic(out, "page")
    assert out.read_text() == "page"

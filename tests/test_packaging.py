"""The wheel carries templates/ and static/ inside the package (hatch force-include)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from .conftest import REPO


def test_wheel_contains_templates_and_static(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
        ],
        check=True,
    )
    [wheel] = tmp_path.glob("piexport-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("templates", "static"):
        files = [p for p in (REPO / folder).rglob("*") if p.is_file()]
        assert files, f"{folder}/ is empty"
        for f in files:
            assert f"piexport/{folder}/{f.relative_to(REPO / folder).as_posix()}" in names
    assert "piexport/py.typed" in names
    assert not any(n.startswith(("tests/", "sample_sessions/")) for n in names)


def test_asset_dir_finds_the_checkout_in_an_editable_install() -> None:
    from piexport.page.assets import asset_dir

    assert (asset_dir("templates")).is_dir()
    assert (asset_dir("static")).is_dir()

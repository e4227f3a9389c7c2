"""The stages' layer order (``[tool.importlinter]`` in pyproject.toml, the one place it is
written) leaves no part of the package outside it. That every import points down is checked
by ``lint-imports`` in ``.ci/run``'s checks step (tests/quality/test_readme.py keeps it there)."""

from __future__ import annotations

from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: import-linter brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
NOT_CODE = {"__init__", "templates_compiled", "py"}
"""The package's own ``__init__`` (its lazy public names), templates compiled at build
time, and ``py.typed``: not stages."""


def _layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = config["tool"]["importlinter"]["contracts"]
    assert contract["type"] == "layers"
    return [
        name.strip() for layer in contract["layers"] for name in layer.replace(":", "|").split("|")
    ]


def test_every_part_of_the_package_has_a_layer() -> None:
    """A new module or package beside the stages must be given its place in the order."""
    parts = {
        p.name.split(".")[0]
        for p in (ROOT / "piexport").iterdir()
        if (p.is_dir() and (p / "__init__.py").exists()) or p.suffix == ".py"
    }
    named = {name.removeprefix("piexport.") for name in _layers()}
    assert parts - NOT_CODE == named, (parts - NOT_CODE) ^ named

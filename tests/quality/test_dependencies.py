"""Version floors that keep known holes out (docs/threats.md#threats, threat 10)."""

from __future__ import annotations

import tomllib

from tests.support.sessions import REPO

FLOORS = {"pygments": ">=2.20", "jinja2": ">=3.1.6", "markdown-it-py": ">=3.0", "orjson": ">=3.9"}


def test_dependency_floors() -> None:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for name, floor in FLOORS.items():
        assert f"{name}{floor}" in deps, name

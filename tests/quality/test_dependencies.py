"""Version floors that keep known holes out (docs/threats.md#threats, threat 10), and
ceilings where piexport reads a library's internals (README, Install)."""

from __future__ import annotations

import tomllib

from tests.support.sessions import REPO

FLOORS = {"pygments": "2.21", "jinja2": "3.1.6", "markdown-it-py": "3.0", "orjson": "3.9"}
CEILINGS = {"pygments": "2.22", "jinja2": "3.2"}
"""page/lexing.py follows Pygments' RegexLexer loop; page/compiled.py Jinja's code generator."""


def _specifiers() -> dict[str, set[str]]:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    found: dict[str, set[str]] = {}
    for dep in deps:
        requirement = dep.split(";")[0].strip()
        name = requirement.split(">")[0].split("<")[0].split("=")[0].split("!")[0]
        found[name] = set(requirement[len(name) :].split(","))
    return found


def test_dependency_floors() -> None:
    specifiers = _specifiers()
    for name, floor in FLOORS.items():
        assert f">={floor}" in specifiers[name], name


def test_ceilings_where_internals_are_read() -> None:
    specifiers = _specifiers()
    for name, ceiling in CEILINGS.items():
        assert f"<{ceiling}" in specifiers[name], name

"""The stages' layer order (``[tool.importlinter]`` in pyproject.toml, the one place it is
written) leaves no part of the package outside it. That every import points down is checked
by ``lint-imports`` in ``.ci/run``'s checks step (tests/quality/test_readme.py keeps it there)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

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


def _imports(path: Path, module: str) -> set[str]:
    """The piexport modules ``module`` imports, at its top or inside a function (a
    function-level import hides a cycle from the layer check, not from a reader); imports
    only a type checker reads are left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for node in ast.walk(stmt)
    }
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            names = [target] + [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        found |= {n for n in names if n.startswith("piexport.")}
    return found


def test_no_module_imports_itself_back() -> None:
    """No import cycle between modules, through any number of them (a cycle makes two
    modules one in all but name: neither can be read, changed or tested without the other)."""
    modules: dict[str, Path] = {}
    for path in (ROOT / "piexport").rglob("*.py"):
        if "templates_compiled" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph = {
        m: {t for t in _imports(p, m) if t in modules and t != m and not m.startswith(t + ".")}
        for m, p in modules.items()
    }
    graph = {m: {t for t in ts if modules[t].name != "__init__.py"} for m, ts in graph.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def visit(m: str, trail: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append([*trail[trail.index(t) :], t])
            elif t not in state:
                visit(t, [*trail, t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == [], cycles

"""The tests' own import rules: a test module takes its helpers from tests/support/ and
never imports another test module (so each can move or run alone), and only the browser
tests load Playwright."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.support.sessions import TESTS


def _module(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """Every module a file may import (relative imports resolved), with its line; for
    ``from a import b`` both ``a`` and ``a.b``, since ``b`` may be a module."""
    module = _module(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            yield node.lineno, base
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}"


def _is_test_module(name: str, root: Path) -> bool:
    path = root.parent / (name.replace(".", "/") + ".py")
    return path.is_file() and (path.name.startswith("test_") or path.name == "conftest.py")


def violations(root: Path) -> list[str]:
    """What breaks the rules in the tests under ``root`` (a folder named tests)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root.parent).as_posix()
        browser = where.startswith(("tests/browser/", "tests/support/browser.py"))
        for line, name in imports(path, root):
            if _is_test_module(name, root):
                found.append(f"{where}:{line} imports the test module {name}")
            if not browser and (
                name.split(".")[0] == "playwright" or name == "tests.support.browser"
            ):
                found.append(f"{where}:{line} loads Playwright ({name}) outside tests/browser/")
    return found


def test_no_test_imports_another_and_only_browser_tests_load_playwright() -> None:
    assert violations(TESTS) == []


def test_the_rules_catch_what_they_forbid(tmp_path: Path) -> None:
    root = tmp_path / "tests"
    files = {
        "__init__.py": "",
        "conftest.py": "",
        "support/__init__.py": "",
        "support/sessions.py": "",
        "support/browser.py": "import playwright.sync_api\n",
        "support/pages.py": "from tests.support import browser\n",
        "a/__init__.py": "",
        "a/test_x.py": (
            "from tests.support.sessions import HEADER\n"
            "from tests.b.test_y import helper\n"
            "from ..b import test_y\n"
            "from ..conftest import HEADER\n"
            "from playwright.sync_api import Page\n"
        ),
        "b/__init__.py": "",
        "b/test_y.py": "from .test_z import other\n",
        "b/test_z.py": "",
        "browser/__init__.py": "",
        "browser/test_page.py": "from tests.support.browser import probe\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert violations(root) == [
        "tests/a/test_x.py:2 imports the test module tests.b.test_y",
        "tests/a/test_x.py:3 imports the test module tests.b.test_y",
        "tests/a/test_x.py:4 imports the test module tests.conftest",
        "tests/a/test_x.py:5 loads Playwright (playwright.sync_api) outside tests/browser/",
        "tests/a/test_x.py:5 loads Playwright (playwright.sync_api.Page) outside tests/browser/",
        "tests/b/test_y.py:1 imports the test module tests.b.test_z",
        "tests/support/pages.py:1 loads Playwright (tests.support.browser) outside tests/browser/",
    ]

"""Lexers are chosen exactly as Pygments chooses them, from an index built once per process.

``highlight.lexer_class_for_filename`` and ``lexer_class_by_name`` replace Pygments' own
lookups (which compile ~930 glob patterns and walk ~600 lexers per call): the page must not
change, so for every name Pygments knows, and for names made of its patterns' pieces, they
must answer as Pygments does.
"""

from __future__ import annotations

import subprocess
import sys

import pygments.lexers
from hypothesis import given, settings
from hypothesis import strategies as st
from pygments.lexers._mapping import LEXERS
from pygments.util import ClassNotFound

from piexport.page.highlight import (
    lexer_by_name,
    lexer_class_by_name,
    lexer_class_for_filename,
    lexer_for_path,
)


def pygments_for_filename(name: str) -> type | None:
    return pygments.lexers.find_lexer_class_for_filename(name)


def pygments_by_name(alias: str) -> type | None:
    try:  # get_lexer_by_name's choice, without compiling every lexer
        return pygments.lexers.find_lexer_class_by_name(alias)
    except ClassNotFound:
        return None


GLOBS = sorted({g for entry in LEXERS.values() for g in entry[3]})
ALIASES = sorted({a for entry in LEXERS.values() for a in entry[2]})


def names_for(glob: str) -> list[str]:
    """File names a glob matches (and near misses): each wildcard filled in a few ways."""
    plain = glob.replace("[", "").replace("]", "")
    fills = [
        glob.replace("*", "x").replace("?", "a"),
        glob.replace("*", "").replace("?", "b"),
        glob.replace("*", "dir.name.").replace("?", "_"),
        glob.replace("*", "x").upper(),
    ]
    out = []
    for name in fills:
        if "[" in name:  # a class: its first and its last character, and none
            start, end = name.index("["), name.index("]")
            chars = name[start + 1 : end]
            out += [name[:start] + c + name[end + 1 :] for c in (chars[0], chars[-1], "")]
        else:
            out.append(name)
    return [*out, plain, plain + "~", "a" + plain]


def test_every_pattern_gives_the_lexer_pygments_gives() -> None:
    names = {n for g in GLOBS for n in names_for(g)}
    assert len(names) > 4000
    differ = [
        n for n in sorted(names) if lexer_class_for_filename(n) is not pygments_for_filename(n)
    ]
    assert differ == []


def test_names_several_lexers_claim_go_by_priority() -> None:
    # not the first claimant in Pygments' table: the order alone would choose another
    first = {}
    for _module, name, _aliases, globs, _mimes in LEXERS.values():
        for g in globs:
            first.setdefault(g, name)
    assert first["*.S"] == "GAS" and lexer_class_for_filename("boot.S").name == "S"
    assert first["*.as"] == "ActionScript 3"
    assert lexer_class_for_filename("x.as").name == "ActionScript"
    assert lexer_class_for_filename("no-lexer-for-this") is None


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "x",
                ".",
                "py",
                "c",
                "h",
                "in",
                "Makefile",
                "bash_",
                "CMakeLists.txt",
                "1",
                "tar",
                "gz",
                "Spec.hs",
                "Kconfig",
                "php4",
                "lasso9",
                "xbm",
                "gsed",
                "-",
                "_",
                "rc",
                "json",
            ]
        ),
        max_size=5,
    ).map("".join)
)
def test_names_made_of_pattern_pieces_agree(name: str) -> None:
    assert lexer_class_for_filename(name) is pygments_for_filename(name)


def test_every_alias_gives_the_lexer_pygments_gives() -> None:
    names = [*ALIASES, "no-such-language", "PYTHON", "c++", ""]
    differ = [a for a in names if a and lexer_class_by_name(a.lower()) is not pygments_by_name(a)]
    assert differ == []
    assert lexer_by_name("") is None and lexer_by_name("x" * 41) is None


def test_lexers_are_made_as_before() -> None:
    lexer = lexer_for_path("/home/u/src/app.py")
    assert type(lexer).__name__ == "PythonLexer"
    assert lexer.stripnl is False and lexer.ensurenl is False
    assert type(lexer_by_name("Bash")).__name__ == "BashLexer"
    assert lexer_for_path("C:\\\\work\\\\x.rs") is not None


def test_a_lookup_imports_only_the_lexers_it_needs() -> None:
    probe = (
        "import sys\n"
        "from piexport.page.highlight import lexer_for_path, lexer_by_name\n"
        "lexer_for_path('a/b.py'); lexer_by_name('bash')\n"
        "print(sorted(m for m in sys.modules if m.startswith('pygments.lexers.')))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = eval(done.stdout.strip())
    assert loaded == ["pygments.lexers._mapping", "pygments.lexers.python", "pygments.lexers.shell"]


def test_lexers_other_packages_add_are_not_used(monkeypatch) -> None:
    """Only Pygments' own lexers colour a page (they are fuzzed against hostile text; a
    plugin is whatever happens to be installed)."""
    from pygments.lexer import RegexLexer
    from pygments.token import Text

    class Planted(RegexLexer):
        name, aliases, filenames = "Planted", ["planted", "python"], ["*.planted", "*.py"]
        priority = 100
        tokens = {"root": [(r".+", Text)]}  # noqa: RUF012

    import pygments.plugin

    monkeypatch.setattr(pygments.plugin, "find_plugin_lexers", lambda: iter([Planted]))
    # pygments.lexers replaces its module object: its functions read the original's globals
    scope = pygments.lexers.find_lexer_class_for_filename.__globals__
    monkeypatch.setitem(scope, "find_plugin_lexers", lambda: iter([Planted]))
    assert pygments.lexers.find_lexer_class_for_filename("a.planted") is Planted  # it is there
    assert lexer_class_by_name("planted") is None
    assert lexer_class_for_filename("a.planted") is None
    assert lexer_class_for_filename("a.py").name == "Python"


def test_a_page_reads_no_installed_package_metadata(tmp_path) -> None:
    """Looking for plugins imported importlib.metadata and read every installed
    distribution's entry points: a tenth of a small page's work."""
    from tests.support.sessions import sample_files

    sample = next(p for p in sample_files() if "01955f7c" in p.name)
    probe = (
        "import sys\n"
        "from pathlib import Path\n"
        "from piexport.export.pipeline import export_session\n"
        f"export_session(Path({str(sample)!r}), Path({str(tmp_path / 'p.html')!r}))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('importlib.metadata', "
        "'pygments.lexers.'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = eval(done.stdout.strip().splitlines()[-1])
    assert not [m for m in loaded if m.startswith("importlib.metadata")]
    assert "pygments.lexers.python" in loaded  # the probe sees what a page loads

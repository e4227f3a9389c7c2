"""Templates compiled when the package is built (piexport/page/compiled.py, hatch_build.py).

A page rendered from the compiled modules is the page compiled from source; a template whose
source changed after the build is compiled from its source (a stale module is never run);
and nothing of piexport's own Python runs while a template is compiled, so a module does not
go stale when a filter's Python changes.
"""

from __future__ import annotations

import shutil
import traceback
from pathlib import Path

import jinja2
import pytest

from piexport.export.pipeline import export_session
from piexport.page import render
from piexport.page.assets import asset_dir
from piexport.page.compiled import (
    TemplateLoader,
    compile_templates,
    environment_key,
    module_name,
    precompilable,
)

from tests.support.sessions import sample_files


@pytest.fixture
def templates(tmp_path: Path) -> Path:
    """A copy of templates/ that a test may change."""
    folder = tmp_path / "templates"
    shutil.copytree(asset_dir("templates"), folder)
    return folder


def page_with(env: jinja2.Environment, out: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The sample's page, rendered with this environment's templates."""
    monkeypatch.setattr(render, "make_env", lambda: env)
    sample = next(p for p in sample_files() if "01955f7c" in p.name)
    export_session(sample, out)
    return out.read_text(encoding="utf-8")


def test_the_page_from_compiled_templates_is_the_page_from_source(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = tmp_path / "compiled"
    written = compile_templates(render.environment(TemplateLoader(templates, compiled)), compiled)
    names = TemplateLoader(templates).list_templates()
    assert len(written) == len(names) >= 11

    ahead = render.environment(TemplateLoader(templates, compiled))
    from_source = render.environment(TemplateLoader(templates, tmp_path / "none"))
    page = page_with(ahead, tmp_path / "a.html", monkeypatch)
    assert page == page_with(from_source, tmp_path / "b.html", monkeypatch)
    assert ahead.loader.used and all(ahead.loader.used.values())  # type: ignore[union-attr]
    assert not any(from_source.loader.used.values())  # type: ignore[union-attr]


def test_a_template_changed_after_the_build_is_compiled_from_its_source(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = tmp_path / "compiled"
    compile_templates(render.environment(TemplateLoader(templates, compiled)), compiled)
    base = templates / "base.html.j2"
    base.write_text(
        base.read_text(encoding="utf-8").replace("<body", "<body data-changed", 1),
        encoding="utf-8",
    )
    env = render.environment(TemplateLoader(templates, compiled))
    page = page_with(env, tmp_path / "p.html", monkeypatch)
    assert "<body data-changed" in page  # the new source, not the module compiled before
    used = env.loader.used  # type: ignore[union-attr]
    assert used["base.html.j2"] is False
    assert used["session.html.j2"] is True and used["macros/entries.html.j2"] is True


def test_a_module_that_does_not_compile_is_passed_over(
    templates: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiled = tmp_path / "compiled"
    for module in compile_templates(
        render.environment(TemplateLoader(templates, compiled)), compiled
    ):
        module.write_text("def root(:\n", encoding="utf-8")  # cut short
    env = render.environment(TemplateLoader(templates, compiled))
    assert "<!doctype html>" in page_with(env, tmp_path / "p.html", monkeypatch)
    assert not any(env.loader.used.values())  # type: ignore[union-attr]


def test_no_piexport_code_runs_while_a_template_is_compiled(templates: Path) -> None:
    """Jinja calls filters and finalize on constants while compiling, unless the optimizer
    is off and finalize takes the evaluation context: then a compiled module's code is a
    function of its key alone."""
    env = render.environment(TemplateLoader(templates))
    assert precompilable(env)
    called: list[str] = []

    def spy(name: str, f: object) -> object:
        def wrapper(*args: object, **kwargs: object) -> object:
            called.append(name)
            return f(*args, **kwargs)  # type: ignore[operator]

        wrapper.__dict__.update(getattr(f, "__dict__", {}))  # the same pass_* marks
        return wrapper

    for name, f in list(env.filters.items()):
        env.filters[name] = spy(name, f)
    env.finalize = spy("finalize", env.finalize)  # type: ignore[assignment]
    loader = env.loader
    assert isinstance(loader, TemplateLoader)
    for name in loader.list_templates():
        env.compile(loader.get_source(env, name)[0], name)
    probe = '{{ "a\u202eb" | plain }}{{ "c\u202ed" }}'
    env.compile(probe)
    assert called == []
    # the spies do see a call when the optimizer folds one: the check above can fail
    env.optimized = True
    env.compile(probe)
    assert called


def test_the_key_covers_what_changes_the_code(templates: Path) -> None:
    env = render.environment(TemplateLoader(templates))
    key = environment_key(env)
    assert module_name(key, "a.html.j2", "x") != module_name(key, "a.html.j2", "y")
    assert module_name(key, "a.html.j2", "x") != module_name(key, "b.html.j2", "x")
    env.trim_blocks = False
    assert environment_key(env) != key
    env.trim_blocks = True
    plain = env.filters["plain"]
    env.filters["plain"] = jinja2.pass_context(lambda _context, value: plain(value))
    assert environment_key(env) != key  # the code passes it the context now
    env.filters["plain"] = render.FILTERS["plain"]
    assert environment_key(env) == key
    env.optimized = True  # would fold our filters into the code: never compiled ahead
    assert not precompilable(env)


def test_an_error_in_a_compiled_template_names_the_template(tmp_path: Path) -> None:
    folder, compiled = tmp_path / "t", tmp_path / "c"
    folder.mkdir()
    (folder / "t.html.j2").write_text("line one\n{{ missing.attribute }}\n", encoding="utf-8")
    env = render.environment(TemplateLoader(folder, compiled))
    compile_templates(env, compiled)
    with pytest.raises(jinja2.UndefinedError) as caught:
        env.get_template("t.html.j2").render()
    assert env.loader.used == {"t.html.j2": True}  # type: ignore[union-attr]
    frames = traceback.extract_tb(caught.value.__traceback__)
    assert (str(folder / "t.html.j2"), 2) in [(f.filename, f.lineno) for f in frames]


def test_the_build_writes_one_module_per_template_and_removes_old_ones(
    templates: Path, tmp_path: Path
) -> None:
    compiled = tmp_path / "compiled"
    compiled.mkdir()
    (compiled / "base-0000.py").write_text("raise SystemExit\n", encoding="utf-8")
    env = render.environment(TemplateLoader(templates, compiled))
    written = compile_templates(env, compiled)
    assert sorted(compiled.glob("*.py")) == sorted(written)
    with pytest.raises(ValueError):
        compile_templates(render.environment(jinja2.FileSystemLoader(templates)), compiled)

"""Templates compiled once per version, not once per process.

Compiling our templates with Jinja (lexing, parsing, generating Python, compiling that) took
most of a small page's time. So the package build compiles every template to a Python module
(``hatch_build.py`` calls :func:`compile_templates`), shipped inside the package next to the
code, and :class:`TemplateLoader` runs that module's code instead of compiling the template.

Where the compiled form lives must not let anyone plant code. So:

- It lives only inside the installed package (``piexport/templates_compiled/``), written by the
  build, never at run time: whoever can write there can change piexport's own modules too.
  There is no cache in the user's folders or in CI caches (a cache restored from another
  branch could hold code that never came from this one: why Jinja's bytecode cache was
  rejected).
- A compiled module is found by a name that is a hash of everything its code depends on: the
  template's source, its name, Jinja's version and every option of the environment that
  changes the generated code. A template whose source changed has another name, and is
  compiled from its source in the process as before: a stale compiled form is never used.
- Nothing of piexport's own runs while a template is compiled: the environment's optimizer
  is off and ``finalize`` takes the evaluation context, so Jinja folds no filter call or
  ``{{ … }}`` output into the code at compile time (it would otherwise call our filters on
  constants then). The generated code is therefore a function of the key's inputs alone, and
  a module compiled before a change to a filter's Python is still right after it.

After a template changes, an editable install (``pip install -e .``) compiles that template
in each process, as before, until ``pip install -e .`` runs again (it rewrites
``piexport/templates_compiled/``); a wheel always carries forms of its own templates. A Jinja
release other than the one the wheel was built with also means compiling in process.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import shutil
from collections.abc import MutableMapping
from pathlib import Path
from types import CodeType
from typing import Any

import jinja2
from jinja2.compiler import CodeGenerator
from jinja2.utils import internalcode

FOLDER_NAME = "templates_compiled"
FOLDER = Path(__file__).resolve().parents[1] / FOLDER_NAME
"""Where the build puts the compiled templates: inside the package (an editable install's
is in the checkout's ``piexport/``, written by ``pip install -e .``)."""


def _pass_arg(function: object) -> str:
    """What Jinja passes a filter, test or finalize first (the generated code differs)."""
    kind = getattr(function, "jinja_pass_arg", None)
    return str(getattr(kind, "name", "")) if kind is not None else ""


def precompilable(env: jinja2.Environment) -> bool:
    """Whether the code Jinja generates for this environment depends only on what
    :func:`environment_key` hashes: no piexport code folded in at compile time, no extension
    or autoescape function whose behaviour a hash cannot see."""
    return (
        type(env) is jinja2.Environment
        and env.code_generator_class is CodeGenerator
        and isinstance(env.autoescape, bool)
        and not env.extensions
        and not env.optimized
        and not env.is_async
        and (env.finalize is None or _pass_arg(env.finalize) in {"context", "eval_context"})
    )


def environment_key(env: jinja2.Environment) -> str:
    """A hash of everything about the environment that changes the code of a template."""
    parts: list[Any] = [
        "piexport compiled templates 1",
        jinja2.__version__,
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.autoescape,
        env.optimized,
        env.finalize is not None and _pass_arg(env.finalize),
        sorted((name, _pass_arg(f)) for name, f in env.filters.items()),
        sorted((name, _pass_arg(f)) for name, f in env.tests.items()),
    ]
    return hashlib.sha256(repr(parts).encode()).hexdigest()


def module_name(env_key: str, name: str, source: str) -> str:
    """The compiled module's file name: the template's name, readable, and the hash."""
    h = hashlib.sha256()
    for part in (env_key, name, source):
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    stem = name.removesuffix(".html.j2").replace("/", "-")
    return f"{stem}-{h.hexdigest()[:32]}.py"


def _with_filename(code: CodeType, filename: str) -> CodeType:
    """The code as if compiled from the template's file (tracebacks name the template)."""
    consts = tuple(
        _with_filename(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


class TemplateLoader(jinja2.FileSystemLoader):
    """Templates from a folder; each one's code from its compiled module in ``compiled`` when
    there is one for exactly this source and environment, else compiled as Jinja does."""

    def __init__(self, folder: Path, compiled: Path = FOLDER) -> None:
        super().__init__(folder)
        self.compiled = compiled
        self.used: MutableMapping[str, bool] = {}
        """Each template loaded: whether from its compiled module (for the tests)."""

    def compiled_code(self, env: jinja2.Environment, name: str, source: str) -> CodeType | None:
        """The code of the template's compiled module, or None when there is none for this
        source (changed since the build) or environment, or it cannot be read."""
        if not precompilable(env):
            return None
        path = self.compiled / module_name(environment_key(env), name, source)
        if not path.is_file():
            return None
        module = f"piexport.{FOLDER_NAME}.{path.stem.replace('.', '_').replace('-', '_')}"
        try:  # through Python's own loader: its __pycache__, like any module of the package
            code = importlib.machinery.SourceFileLoader(module, str(path)).get_code(module)
        except (OSError, SyntaxError, ValueError, ImportError):
            return None
        return code

    @internalcode
    def load(
        self,
        environment: jinja2.Environment,
        name: str,
        globals: MutableMapping[str, Any] | None = None,
    ) -> jinja2.Template:
        source, filename, uptodate = self.get_source(environment, name)
        code = self.compiled_code(environment, name, source)
        self.used[name] = code is not None
        if code is None:
            code = environment.compile(source, name, filename)
        else:
            code = _with_filename(code, filename)
        return environment.template_class.from_code(
            environment, code, globals if globals is not None else {}, uptodate
        )


def compile_templates(env: jinja2.Environment, target: Path) -> list[Path]:
    """Compile every template of ``env`` (a :class:`TemplateLoader`'s) into ``target``,
    emptied first; returns the modules written. The build runs this."""
    loader = env.loader
    if not isinstance(loader, TemplateLoader) or not precompilable(env):
        msg = "these templates cannot be compiled ahead (see piexport/page/compiled.py)"
        raise ValueError(msg)
    if target.is_dir():
        for old in target.glob("*.py"):
            old.unlink()
        shutil.rmtree(target / "__pycache__", ignore_errors=True)
    target.mkdir(parents=True, exist_ok=True)
    key = environment_key(env)
    written = []
    for name in loader.list_templates():
        source, filename, _ = loader.get_source(env, name)
        code = env.compile(source, name, filename, raw=True)
        path = target / module_name(key, name, source)
        trailer = (
            f"\n# templates/{name}, compiled by Jinja {jinja2.__version__} when the package "
            "was built (piexport/page/compiled.py): not edited by hand.\n"
        )
        path.write_text(code + trailer, encoding="utf-8")
        written.append(path)
    return written

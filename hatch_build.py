"""Build hook: compile piexport's Jinja templates into Python modules inside the package.

A page's process then runs the compiled code instead of compiling the templates itself
(piexport/page/compiled.py says why this is safe and never stale). A wheel gets them in
``piexport/templates_compiled/``; an editable install writes them into the checkout's
``piexport/templates_compiled/`` (ignored by git), so ``pip install -e .`` again after a
template changes compiles it ahead again (until then that template is compiled per process).

The hook imports piexport from this source tree to make its Jinja environment, so the build
needs the runtime dependencies (``require-runtime-dependencies`` in pyproject.toml).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class CompileTemplates(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        sys.path.insert(0, str(root))
        try:
            from piexport.page.compiled import FOLDER_NAME, compile_templates
            from piexport.page.render import make_env

            if version == "editable":
                compile_templates(make_env(), root / "piexport" / FOLDER_NAME)
                return
            self._tmp = Path(tempfile.mkdtemp(prefix="piexport-templates-"))
            for path in compile_templates(make_env(), self._tmp):
                build_data["force_include"][str(path)] = f"piexport/{FOLDER_NAME}/{path.name}"
        finally:
            sys.path.remove(str(root))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)

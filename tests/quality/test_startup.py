"""Start-up: the CLI and ``import piexport`` load no renderer until a page is made.

Commands that print facts (``--version``, ``info``, ``tree``) must start fast; what they must
not pay for is imported on first use. Checked in a fresh interpreter, on ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = (
    "jinja2",
    "pygments",
    "markdown_it",
    "watchfiles",
    "platformdirs",
    "multiprocessing",
    "genai_prices",  # cost estimates: pydantic, 0.2 s; loaded when a message needs one
    "pydantic",
    "piexport.page.render",
    "piexport.page.highlight",
    "piexport.export.pipeline",
    "piexport.site.build",
    # not heavy, but not what printing facts needs either (they cost ~20 ms together)
    "piexport.redact",
    "piexport.page.view",
    "piexport.report.branches",
    "tempfile",
)


def _loaded(code: str) -> set[str]:
    """The modules (of HEAVY) a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    names = set(json.loads(done.stdout.strip().splitlines()[-1]))
    return {h for h in HEAVY if h in names or any(n.startswith(h + ".") for n in names)}


@pytest.mark.parametrize(
    "code", ["import piexport.cli", "import piexport", "import piexport.read.loader"]
)
def test_import_loads_no_renderer(code: str) -> None:
    assert _loaded(code) == set()


def test_the_probe_sees_a_renderer_when_one_is_loaded() -> None:
    # the check above can fail: rendering a page does load them
    loaded = _loaded("import piexport\npiexport.render_session")
    assert {"jinja2", "pygments", "markdown_it", "piexport.page.render"} <= loaded


def test_info_runs_without_the_renderer(tmp_path) -> None:
    src = tmp_path / "s.jsonl"
    src.write_text(
        '{"type":"session","version":3,"id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}\n'
        '{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01Z",'
        '"message":{"role":"user","content":"hello"}}\n'
    )
    code = (
        "import sys\nfrom piexport.cli import cli\n"
        f"sys.argv = ['piexport', 'info', {str(src)!r}]\n"
        "try:\n    cli()\nexcept SystemExit:\n    pass\n"
    )
    assert _loaded(code) == set()


def test_lazy_names_are_the_real_ones() -> None:
    import piexport
    from piexport.export.pipeline import export_session
    from piexport.redact import rules
    from piexport.redact.engine import Redactor

    assert piexport.export_session is export_session
    assert set(piexport.__all__) <= set(dir(piexport))
    for name in piexport.__all__:
        assert getattr(piexport, name) is not None
    with pytest.raises(AttributeError):
        _ = piexport.no_such_name
    assert rules.RULES is rules.builtin_rules()
    assert Redactor().rules == rules.RULES
    with pytest.raises(AttributeError):
        _ = rules.NO_SUCH_RULES

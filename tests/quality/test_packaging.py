"""The wheel carries templates/ and static/ inside the package (hatch force-include), installs
on its own in a fresh venv, and the release workflow builds, checks and publishes it."""

from __future__ import annotations

import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from piexport.version import __version__

from tests.support.sessions import REPO, sample_files


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
        ],
        check=True,
    )
    [built] = out.glob("piexport-*.whl")
    return built


def test_wheel_contains_templates_and_static(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("templates", "static"):
        files = [p for p in (REPO / folder).rglob("*") if p.is_file()]
        assert files, f"{folder}/ is empty"
        for f in files:
            assert f"piexport/{folder}/{f.relative_to(REPO / folder).as_posix()}" in names
    assert "piexport/py.typed" in names
    assert not any(n.startswith(("tests/", "sample_sessions/")) for n in names)
    assert f"piexport-{__version__}.dist-info/licenses/LICENSE" in names
    metadata = zipfile.ZipFile(wheel).read(f"piexport-{__version__}.dist-info/METADATA").decode()
    assert "License-Expression: MIT" in metadata


def test_the_wheel_says_where_piexport_lives_and_what_it_is(wheel: Path) -> None:
    """Project-URLs, classifiers, an author and keywords; the README as its description with
    every image and link to a file of the repository made absolute (an index page has no
    repository around it), the README in the checkout unchanged."""
    metadata = zipfile.ZipFile(wheel).read(f"piexport-{__version__}.dist-info/METADATA").decode()
    head, description = metadata.split("\n\n", 1)
    urls = dict(
        line.removeprefix("Project-URL: ").split(", ", 1)
        for line in head.splitlines()
        if line.startswith("Project-URL: ")
    )
    assert {"Homepage", "Repository", "Issues", "Changelog"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    classifiers = [line for line in head.splitlines() if line.startswith("Classifier: ")]
    assert "Classifier: Programming Language :: Python :: 3" in classifiers
    assert "Classifier: Environment :: Console" in classifiers
    assert "\nAuthor: " in head and "\nKeywords: " in head
    assert "Description-Content-Type: text/markdown" in head
    targets = re.findall(r"\]\(([^()\s]+)\)", description)
    assert targets and all(t.startswith(("https://", "http://", "mailto:", "#")) for t in targets)
    images = re.findall(r"!\[[^\]]*\]\(([^()\s]+)\)", description)
    raw = urls["Repository"].replace("https://github.com/", "https://raw.githubusercontent.com/")
    assert images and all(i.startswith(raw + "/main/docs/") for i in images)
    for image in images:  # each names a file that is in the repository
        assert (REPO / image.removeprefix(raw + "/main/")).is_file()
    assert "](docs/screenshot-light-desktop.png)" in (REPO / "README.md").read_text("utf-8")


def test_relative_links_are_made_absolute_and_others_kept() -> None:
    sys.path.insert(0, str(REPO))
    try:
        from hatch_readme import absolute
    finally:
        sys.path.remove(str(REPO))
    base = "https://github.com/o/p"
    text = (
        "![alt [x]](docs/a.png) [doc](docs/format.md) [log](./CHANGELOG.md) "
        "[web](https://example.com/x) [top](#usage) [mail](mailto:a@b.c) `[code](not/a/link)`"
    )
    got = absolute(text, base)
    assert "![alt [x]](https://raw.githubusercontent.com/o/p/main/docs/a.png)" in got
    assert "[doc](https://github.com/o/p/blob/main/docs/format.md)" in got
    assert "[log](https://github.com/o/p/blob/main/CHANGELOG.md)" in got
    for kept in ("(https://example.com/x)", "(#usage)", "(mailto:a@b.c)"):
        assert kept in got


def test_the_wheel_installs_and_renders_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    """No checkout on the path: templates and static files come from inside the wheel, and
    the dependencies from the package index."""
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # this pip installs into it: no copy of pip needed
    bin_dir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
    python = str(bin_dir / "python")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "-q", str(wheel)],
        check=True,
        cwd=tmp_path,
    )
    piexport = str(bin_dir / "piexport")
    version = subprocess.run(
        [piexport, "--version"], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert version.stdout.strip() == f"piexport, version {__version__}"
    sample = next(p for p in sample_files() if "01955f7c" in p.name)
    page = tmp_path / "page.html"
    done = subprocess.run(
        [piexport, "render", str(sample), "-o", str(page)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "Content-Security-Policy" in html
    assert "<style" in html and "<script" in html  # the CSS and JS from the wheel, inline
    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import piexport; print(piexport.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert str(env_dir) in where.stdout  # the installed copy, not this checkout
    # its templates come compiled with it (when its Jinja is the one the wheel was built with)
    probe = (
        "import sys, jinja2\n"
        "from pathlib import Path\n"
        "from piexport.export.pipeline import export_session\n"
        "from piexport.page.render import make_env\n"
        "export_session(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "used = make_env().loader.used\n"
        "print(jinja2.__version__, len(used), sum(used.values()))"
    )
    done = subprocess.run(
        [str(bin_dir / "python"), "-c", probe, str(sample), str(tmp_path / "again.html")],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    jinja, loaded, compiled = done.stdout.split()
    assert int(loaded) >= 7
    assert int(compiled) == (int(loaded) if jinja == jinja2.__version__ else 0)
    assert (tmp_path / "again.html").read_text(encoding="utf-8").startswith("<!doctype html>")


def test_the_wheel_carries_its_templates_compiled(wheel: Path) -> None:
    """One module per template, named by the hash of its source and the environment (see
    piexport/page/compiled.py), and nothing else in that folder."""
    from piexport.page.compiled import FOLDER_NAME, TemplateLoader, environment_key, module_name
    from piexport.page.render import make_env

    env = make_env()
    key = environment_key(env)
    loader = TemplateLoader(REPO / "templates")
    expected = {
        f"piexport/{FOLDER_NAME}/{module_name(key, name, loader.get_source(env, name)[0])}"
        for name in loader.list_templates()
    }
    names = {n for n in zipfile.ZipFile(wheel).namelist() if f"/{FOLDER_NAME}/" in n}
    assert names == expected


def test_asset_dir_finds_the_checkout_in_an_editable_install() -> None:
    from piexport.page.assets import asset_dir

    assert (asset_dir("templates")).is_dir()
    assert (asset_dir("static")).is_dir()


def _workflow() -> dict[Any, Any]:
    data = yaml.safe_load((REPO / ".github/workflows/release.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_release_workflow_publishes_tags_with_trusted_publishing() -> None:
    wf = _workflow()
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    assert on == {"push": {"tags": ["v*"]}}
    build, publish = wf["jobs"]["build"], wf["jobs"]["publish"]
    build_script = "\n".join(s.get("run", "") for s in build["steps"])
    assert "python -m build" in build_script and "twine check --strict dist/*" in build_script
    assert publish["needs"] == "build"
    assert publish["permissions"] == {"id-token": "write"}
    assert wf["permissions"] == {"contents": "read"}
    assert publish["environment"]["name"] == "pypi"
    [pypi] = [s for s in publish["steps"] if "gh-action-pypi-publish" in s.get("uses", "")]
    assert "with" not in pypi  # no password or token: trusted publishing
    for job in wf["jobs"].values():
        for step in job["steps"]:
            if "uses" in step:  # every action pinned to a release
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+\.\d+\.\d+", step["uses"]), step


@pytest.mark.parametrize("tag, ok", [(f"v{__version__}", True), ("v0.0.0-not-it", False)])
def test_release_workflow_checks_the_tag_against_the_version(tag: str, ok: bool) -> None:
    [check] = [
        s["run"] for s in _workflow()["jobs"]["build"]["steps"] if "twine check" in s.get("run", "")
    ]
    script = check.replace("python -m twine check --strict dist/*\n", "")
    script = script.replace("python ", f"{sys.executable} ")
    script = re.sub(r"\n\s*ls dist/.*", "", script)
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script],
        cwd=REPO,
        env={"GITHUB_REF_NAME": tag, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert (done.returncode == 0) == ok, done.stdout + done.stderr
    if not ok:
        assert f"does not match piexport {__version__}" in done.stdout

"""Are the pages byte-for-byte the same as another version's? Prints each that differs.

    .venv/bin/python bench/same_pages.py BASE_CHECKOUT [--sizes 2000 20000] [--real 3]

Exports the sample sessions, the bench's sessions of the given sizes and its real-shaped
sessions, and builds a site of sample_sessions/, once with the checkout at BASE_CHECKOUT and
once with this one (each on PYTHONPATH, in its own process), then compares every file. The
base's output is kept in bench/.cache/same/<base commit or folder name> and reused. Exit 1 when
anything differs. A performance change must leave this silent, or say why a page changed.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import CACHE, real_file, session_file  # noqa: E402

RENDER = """
import sys
from pathlib import Path
try:
    from piexport.export.pipeline import export_session
except ImportError:  # a base from before export/ was a stage
    from piexport.page.export import export_session
from piexport.site.build import build_site
out = Path(sys.argv[1])
for src in sys.argv[3:]:
    export_session(Path(src), out / (Path(src).stem + ".html"))
build_site(Path(sys.argv[2]), out / "site", jobs=2)
"""


def render(checkout: Path, out: Path, inputs: list[Path], cache: Path | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    env["PIEXPORT_CACHE_DIR"] = str(cache) if cache is not None else "off"
    samples = HERE.parent / "sample_sessions"
    cmd = [sys.executable, "-c", RENDER, str(out), str(samples), *map(str, inputs)]
    done = subprocess.run(cmd, env=env, cwd=CACHE, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{checkout}: render failed\n{done.stderr[-3000:]}")


MANIFEST = ".piexport-manifest.json"
"""Not compared: it holds the time it was written and a hash of the code itself."""


def files(root: Path) -> set[Path]:
    return {p.relative_to(root) for p in root.rglob("*") if p.is_file() and p.name != MANIFEST}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="a checkout of the version to compare with")
    parser.add_argument("--sizes", type=int, nargs="*", default=[2000])
    parser.add_argument("--real", type=int, default=3)
    args = parser.parse_args()
    samples = sorted((HERE.parent / "sample_sessions").rglob("*.jsonl"))
    inputs = samples + [session_file(n) for n in args.sizes]
    inputs += [real_file(seed) for seed in range(1, args.real + 1)]
    key = hashlib.sha256(
        "\n".join([str(args.base.resolve()), *map(str, inputs)]).encode()
    ).hexdigest()[:12]
    base_out = CACHE / "same" / f"base-{key}"
    if not (base_out / "site").exists():
        render(args.base.resolve(), base_out, inputs)
    # this version twice: with its colour cache empty, then with what the first run left
    cache = CACHE / "same" / "colour-cache"
    subprocess.run(["rm", "-rf", str(cache)], check=True)
    failed = False
    for run in ("cold", "warm"):
        new_out = CACHE / "same" / f"new-{run}"
        subprocess.run(["rm", "-rf", str(new_out)], check=True)
        render(HERE.parent, new_out, inputs, cache)
        old, new = files(base_out), files(new_out)
        differ = sorted(old ^ new) + sorted(
            p for p in old & new if not filecmp.cmp(base_out / p, new_out / p, shallow=False)
        )
        for p in differ:
            print(f"differs ({run} colour cache): {p}")
        print(f"{run} colour cache: {len(old | new)} files compared, {len(differ)} differ")
        failed = failed or bool(differ)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

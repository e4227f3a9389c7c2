"""Regenerate tests/reference/contexts/ from pi's own buildSessionContext().

    npm install --prefix /tmp/pi @mariozechner/pi-coding-agent
    python tests/reference/update_goldens.py --pi /tmp/pi/node_modules/@mariozechner/pi-coding-agent

Runs pi_context.mjs on every well-formed session under sample_sessions/ and tests/data/
(pi skips bad lines silently, so damaged files are left out: there the two tools are meant
to differ) and writes one JSON golden per file. Needs Node 20.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GOLDENS = HERE / "contexts"
DAMAGED = (
    "0196f145-0a00-7e11-8a22-33b44c55d66e",
)  # the damaged sample: pi and piexport differ by design


def session_files() -> list[Path]:
    files = sorted(REPO.glob("sample_sessions/*/*.jsonl")) + sorted(
        REPO.glob("tests/data/context/*.jsonl")
    )
    return [f for f in files if not any(d in f.name for d in DAMAGED)]


def golden_path(session: Path) -> Path:
    return GOLDENS / (session.relative_to(REPO).as_posix().replace("/", "__") + ".json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--pi", required=True, help="the @mariozechner/pi-coding-agent package folder"
    )
    args = parser.parse_args()
    files = session_files()
    out = subprocess.run(
        ["node", str(HERE / "pi_context.mjs"), args.pi, *map(str, files)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    GOLDENS.mkdir(exist_ok=True)
    for old in GOLDENS.glob("*.json"):
        old.unlink()
    for item in json.loads(out):
        session = Path(item["file"])
        item["file"] = session.relative_to(REPO).as_posix()
        header = json.loads(session.read_text(encoding="utf-8").split("\n", 1)[0])
        if "version" not in header:  # pi gives v1 entries random ids: compare leaves by position
            for leaf in item["leaves"]:
                leaf["id"] = None
        golden_path(session).write_text(
            json.dumps(item, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        )
        print(f"{item['file']}: {len(item['leaves'])} leaves")


if __name__ == "__main__":
    main()

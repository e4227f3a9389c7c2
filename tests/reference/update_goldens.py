"""Regenerate tests/reference/contexts/ from pi's own buildSessionContext().

    npm install --prefix /tmp/pi @mariozechner/pi-coding-agent@0.73.1
    python tests/reference/update_goldens.py --pi /tmp/pi/node_modules/@mariozechner/pi-coding-agent

Runs pi_context.mjs (Node 20+) on a temporary copy of every session under sample_sessions/
and tests/data/, and writes one golden per session,
tests/reference/contexts/<relative path with "/" as "__">.json:
{file, loaded, defaultLeaf, leaves: [{id, context}, ...]}, leaves in file order, JSON with
sorted keys. tests/reference/test_reference.py checks `piexport context` against them without Node.

A session is left out, with the reason printed, when pi cannot read it the way piexport does:
no header, malformed lines (pi drops them silently), entries without ids, duplicate ids or a
parent cycle. There the two tools are meant to differ. Version 1 files get random ids from pi's
migration, so their leaves are compared by position (the golden's leaf "id" is null).
Stale goldens are removed. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
GOLDENS = HERE / "contexts"
SOURCES = ("sample_sessions", "tests/data")


def session_files() -> list[Path]:
    files: list[Path] = []
    for folder in SOURCES:
        files += sorted((REPO / folder).rglob("*.jsonl"))
    return files


def golden_path(session: Path) -> Path:
    return GOLDENS / (session.relative_to(REPO).as_posix().replace("/", "__") + ".json")


def is_version_1(session: Path) -> bool:
    first = session.read_text(encoding="utf-8", errors="replace").split("\n", 1)[0]
    try:
        header = json.loads(first)
    except ValueError:
        return False
    return isinstance(header, dict) and "version" not in header


def run_pi(pi: str, files: list[Path]) -> list[dict]:
    """pi_context.mjs over copies (pi must never get a chance to touch the originals)."""
    with tempfile.TemporaryDirectory(prefix="pi-goldens-") as tmp:
        copies = []
        for i, f in enumerate(files):
            copy = Path(tmp) / f"{i:04d}.jsonl"
            shutil.copyfile(f, copy)
            copies.append(copy)
        out = subprocess.run(
            ["node", str(HERE / "pi_context.mjs"), pi, *map(str, copies)],
            capture_output=True,
            text=True,
            check=True,
            timeout=600,
        ).stdout
    results = json.loads(out)
    for item, original in zip(results, files, strict=True):
        item["file"] = original.relative_to(REPO).as_posix()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--pi", required=True, help="the @mariozechner/pi-coding-agent package folder"
    )
    args = parser.parse_args()
    if not (Path(args.pi) / "dist/core/session-manager.js").is_file():
        sys.exit(f"{args.pi}: no dist/core/session-manager.js there")
    files = session_files()
    GOLDENS.mkdir(exist_ok=True)
    written: set[Path] = set()
    for item, session in zip(run_pi(args.pi, files), files, strict=True):
        if "skipped" in item:
            print(f"{item['file']}: skipped: {item['skipped']}")
            continue
        if is_version_1(session):
            for leaf in item["leaves"]:
                leaf["id"] = None
        target = golden_path(session)
        target.write_text(
            json.dumps(item, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        written.add(target)
        print(f"{item['file']}: {len(item['leaves'])} leaves")
    for old in GOLDENS.glob("*.json"):
        if old not in written:
            old.unlink()
            print(f"removed stale {old.name}")


if __name__ == "__main__":
    main()

"""Are two folders of pages the same but for their inline script and its CSP hash?

    .venv/bin/python bench/same_but_script.py OLD_FOLDER NEW_FOLDER

For a change meant to alter the pages' script only (``static/js/``, ``page/scripts.py``):
``same_pages.py`` then says every page differs, and this says whether anything else does.
Run it on the folders ``same_pages.py`` leaves (``bench/.cache/same/base-*`` and
``bench/.cache/same/new-cold``). In every ``.html`` file the one inline ``<script>`` that runs
(not a JSON data island) and the ``script-src 'sha256-…'`` of the CSP are replaced by
placeholders, after checking the hash is that script's; every other file is compared as it
is. Prints each file that still differs, and the script bytes of each kind of page before and
after; exit 1 when anything but the script differs.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from collections import defaultdict
from pathlib import Path

SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
HASH = re.compile(r"script-src &#39;sha256-([A-Za-z0-9+/=]+)&#39;")
MANIFEST = ".piexport-manifest.json"


def blank(path: Path) -> tuple[bytes, int]:
    """The page with its script and script hash replaced, and the script's size in bytes."""
    text = path.read_text(encoding="utf-8")
    scripts = SCRIPT.findall(text)
    hashes = HASH.findall(text)
    if len(scripts) != 1 or len(hashes) != 1:
        sys.exit(f"{path}: {len(scripts)} inline scripts, {len(hashes)} script hashes")
    js = scripts[0]  # a script element's text is raw: no entities
    digest = base64.b64encode(hashlib.sha256(js.encode()).digest()).decode()
    if digest != hashes[0]:
        sys.exit(f"{path}: the CSP's script hash is not its script's")
    text = SCRIPT.sub("<script>SCRIPT</script>", text).replace(hashes[0], "HASH")
    return text.encode(), len(js.encode())


def kind(rel: Path) -> str:
    """What sort of page a file of an export or a site is."""
    if rel.name == "search.html":
        return "search"
    if rel.name in ("index.html", "sessions.html"):
        return "index"
    return "session"


def main() -> None:
    old_root, new_root = (Path(a) for a in sys.argv[1:3])
    old = {p.relative_to(old_root) for p in old_root.rglob("*") if p.is_file()}
    new = {p.relative_to(new_root) for p in new_root.rglob("*") if p.is_file()}
    old = {p for p in old if p.name != MANIFEST}
    new = {p for p in new if p.name != MANIFEST}
    differ = sorted(old ^ new)
    sizes: dict[str, dict[str, set[int]]] = defaultdict(lambda: defaultdict(set))
    pages = 0
    for rel in sorted(old & new):
        a, b = old_root / rel, new_root / rel
        if rel.suffix == ".html":
            pages += 1
            (x, before), (y, after) = blank(a), blank(b)
            sizes[kind(rel)]["before"].add(before)
            sizes[kind(rel)]["after"].add(after)
        else:
            x, y = a.read_bytes(), b.read_bytes()
        if x != y:
            differ.append(rel)
    for rel in differ:
        print(f"differs beyond its script: {rel}")
    for k, s in sorted(sizes.items()):
        print(f"{k}: script bytes {sorted(s['before'])} -> {sorted(s['after'])}")
    print(f"{len(old | new)} files, {pages} pages compared; {len(differ)} differ beyond the script")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()

"""Metadata hook: the README as a package index shows it. Its images and links to files of
the repository are relative (they work on the repository's own page); an index has no
repository around it, so each is made absolute here, at build time, from the project's
``Repository`` URL in pyproject.toml: images to their raw file, other files to their page
on the default branch. The README in the checkout is never changed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

BRANCH = "main"
_LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]+)\)")
"""A Markdown link or image: ``[text](target)``, ``![alt](target)`` (a target with no
spaces or parentheses: what the README's relative ones are)."""


def absolute(text: str, repository: str) -> str:
    """``text`` with every relative link and image made absolute under ``repository``
    (a GitHub URL); links with a scheme, anchors and mail links are left as they are."""
    base = repository.rstrip("/")
    raw = base.replace("https://github.com/", "https://raw.githubusercontent.com/", 1)

    def one(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target, re.IGNORECASE):
            return m.group(0)
        target = target.removeprefix("./")
        url = f"{raw}/{BRANCH}/{target}" if bang else f"{base}/blob/{BRANCH}/{target}"
        return f"{bang}[{label}]({url})"

    return _LINK.sub(one, text)


class IndexReadme(MetadataHookInterface):
    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        text = (Path(self.root) / "README.md").read_text(encoding="utf-8")
        repository = metadata["urls"]["Repository"]
        metadata["readme"] = {"content-type": "text/markdown", "text": absolute(text, repository)}

"""A site's local links, to check that no page links a page that is not there."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

from bs4 import BeautifulSoup


def local_links(page: Path) -> list[Path]:
    """The files a page's local links lead to (anchors, web and mail links left out)."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    out = []
    for a in soup.find_all("a", href=True):
        href = str(a["href"])
        if href.startswith(("#", "http:", "https:", "mailto:")):
            continue
        out.append((page.parent / unquote(href.split("#")[0])).resolve())
    return out


def assert_links_resolve(site: Path) -> None:
    """Every local link of every page of the site leads to a file that is there."""
    for page in site.rglob("*.html"):
        for target in local_links(page):
            assert target.is_file(), f"{page} links to missing {target}"

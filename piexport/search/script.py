"""What the search page's script (``static/js/search.js``) takes from Python: the limits it
must apply as the Python search does. Written into the page's script by the site
(``page/scripts.py`` assembles it); a test compares the page's copy with these."""

from __future__ import annotations

from typing import Any

from .index import MAX_DOC_BYTES, MAX_SHARDS
from .query import FILTERS, MAX_ITEMS, MAX_QUERY_CHARS, MAX_TERMS, SNIPPET_WIDTH, SPACE, SPAN_CAP
from .tokens import MAX_WORD


def script_constants() -> dict[str, Any]:
    """search.js's constants, by the names it reads them under (``PIEXPORT.<name>``)."""
    return {
        "filters": list(FILTERS),
        "maxQueryChars": MAX_QUERY_CHARS,
        "maxItems": MAX_ITEMS,
        "maxTerms": MAX_TERMS,
        "space": SPACE,
        "maxWord": MAX_WORD,
        "snippetWidth": SNIPPET_WIDTH,
        "spanCap": SPAN_CAP,
        "maxShards": MAX_SHARDS,
        "maxDocBytes": MAX_DOC_BYTES,
    }

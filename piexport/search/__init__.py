"""Archive search: what is indexed, the query language, and the index the site ships.

The same rules run in two places: here (``piexport search``, the index writer) and in
``static/js/search.js`` (the search page). Tests run both on the same archive and compare.
"""

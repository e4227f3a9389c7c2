"""The archive: a static site over a sessions folder.

``build`` runs the five steps over the records of ``records``: ``gather`` (the session files
and their pages), plan (``links``: how the sessions relate; ``manifest``: which pages are
current), render (each page through ``export.pipeline``; ``summary``: its index row), prune,
and ``indexes``. ``names`` makes file-name-safe names, ``gated`` redacts and gates what the
site writes; ``watch`` and ``serve`` keep a site current."""

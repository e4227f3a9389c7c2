"""``--redact``: the rules, the redactor that applies them to a session, and the output gate
every writer passes. Below the renderers: pages, search indexes and shares take its output.

``rules`` (what a secret looks like) → ``views`` (how outputs show text) → ``engine`` (the
Redactor: matching and tokens) → ``session`` (a whole session redacted) → ``gate`` (an
output read again before it is written); ``config`` reads ``--redact-config``."""

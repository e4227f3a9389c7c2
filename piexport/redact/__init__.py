"""``--redact``: the rules, the redactor that applies them to a session, and the output gate
every writer passes. Below the renderers: pages, search indexes and shares take its output."""

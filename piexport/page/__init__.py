"""Pages: the model becomes self-contained HTML (view, templates, markdown, colour)."""

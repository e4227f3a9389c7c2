"""The pipeline at the top of the rendering stages: load → select → redact → view → render
→ gate → write, the one path every output of a session takes. ``shown``: load, select and
redact; ``pipeline``: a page, written as it is made; ``outputs``: Markdown, JSON, a page for
stdout, summaries and printed reports; ``gate``: the output gate every writer is handed."""

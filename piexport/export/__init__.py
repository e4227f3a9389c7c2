"""The pipeline at the top of the rendering stages: load → select → redact → view → render
→ gate → write, the one path every output of a session takes."""

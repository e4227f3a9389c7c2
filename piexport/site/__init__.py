"""The archive: a static site over a sessions folder."""

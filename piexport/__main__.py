"""``python -m piexport``: the same as the ``piexport`` command."""

from .cli import main

main()

"""Sharing safely: redaction of secrets and the output gate."""

"""Checks of the redaction rules (being written)."""

"""Checks of the schema rules (being written)."""

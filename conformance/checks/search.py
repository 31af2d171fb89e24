"""Checks of the search rules (being written)."""

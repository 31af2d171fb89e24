"""Checks of the paging rules (being written)."""

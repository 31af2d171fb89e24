"""Checks of the host rules (being written)."""

"""Checks of the scope rules (being written)."""

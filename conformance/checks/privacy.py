"""Checks of the privacy rules (being written)."""

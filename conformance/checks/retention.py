"""Checks of the retention rules (being written)."""

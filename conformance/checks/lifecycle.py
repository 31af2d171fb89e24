"""Checks of the lifecycle rules (being written)."""

"""Checks of the gate rules (being written)."""

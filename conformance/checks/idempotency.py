"""Checks of the idempotency rules (being written)."""

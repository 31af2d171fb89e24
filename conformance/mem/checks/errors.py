"""Errors (ERR): tool errors, never JSON-RPC errors; unknown tools -32602.

No check yet: its helper fills this module in."""

from __future__ import annotations

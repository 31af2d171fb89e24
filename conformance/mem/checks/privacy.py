"""Privacy (PRIV): <private> spans redacted before anything is stored.

No check yet: its helper fills this module in."""

from __future__ import annotations

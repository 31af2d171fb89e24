"""Search (SRCH): filters, limits, no-hit answers and hostile query text.

No check yet: its helper fills this module in."""

from __future__ import annotations

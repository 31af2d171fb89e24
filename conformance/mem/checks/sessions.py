"""Sessions (SESS): started, summarised and ended, and what carries over.

No check yet: its helper fills this module in."""

from __future__ import annotations

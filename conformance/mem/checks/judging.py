"""Judge (JUDGE): mem_judge relates memories that may conflict.

No check yet: its helper fills this module in."""

from __future__ import annotations

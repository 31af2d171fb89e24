"""Updates (UPD): mem_update changes one observation in place.

No check yet: its helper fills this module in."""

from __future__ import annotations

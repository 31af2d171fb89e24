"""Projects (PROJ): mem_current_project and where a memory belongs.

No check yet: its helper fills this module in."""

from __future__ import annotations

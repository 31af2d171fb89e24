"""Context (CTX): what mem_context brings back for a project.

No check yet: its helper fills this module in."""

from __future__ import annotations

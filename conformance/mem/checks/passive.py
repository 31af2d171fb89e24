"""Passive capture (PASS): learnings extracted from free text.

No check yet: its helper fills this module in."""

from __future__ import annotations

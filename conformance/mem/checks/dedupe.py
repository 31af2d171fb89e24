"""Dedupe (DEDUP): repeated saves inside the window make no second observation.

No check yet: its helper fills this module in."""

from __future__ import annotations

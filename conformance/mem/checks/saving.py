"""Saving (SAVE): mem_save stores what the agent asks, as given, and only that.

No check yet: its helper fills this module in."""

from __future__ import annotations

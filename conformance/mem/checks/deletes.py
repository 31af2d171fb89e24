"""Deletes (DEL): soft and hard mem_delete.

No check yet: its helper fills this module in."""

from __future__ import annotations

"""Scopes (SCOPE): project and personal memories, and isolation by project.

No check yet: its helper fills this module in."""

from __future__ import annotations

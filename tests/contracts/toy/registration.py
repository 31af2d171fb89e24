"""The toy contract's entry in the kit's registry: its plug-in (no reference server ships)."""

from __future__ import annotations

from engram_conformance.spec.registry import Registration

REGISTRATION = Registration(plugin="tests.contracts.toy.plugin:CONTRACT")

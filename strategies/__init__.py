"""Hypothesis strategies and state machines, one sub-package per contract (``engram_memory``),
beside what they share: sizes that shrink small (``sizes``) and exact-length text (``text``)."""

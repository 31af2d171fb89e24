"""Hypothesis strategies and state machines, one sub-package per contract (``engram_memory``),
beside what they share: sizes that shrink small (``sizes``), exact-length text (``text``) and
values drawn keyword by keyword (``walk``)."""

"""The contracts as data, one sub-package per contract (``engram_memory``), beside what they share:
canonical JSON and digests (``canonical``), instants (``instants``) and JSON Pointers
(``pointers``)."""

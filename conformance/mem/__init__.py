"""The ``mem`` contract's part of the harness (the ``mem_*`` protocol of seed 003, whose real
implementation is the Go server Gentleman-Programming/engram). ``answers`` reads what its tools
answer, in every upstream version's format, into the typed facts of ``facts``."""

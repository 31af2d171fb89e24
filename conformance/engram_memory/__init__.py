"""The ``engram-memory`` contract's part of the harness: its checks, the host it plays (signed
invocation contexts) and its plug-in entry (``plugin``)."""

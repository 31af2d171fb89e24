"""The reference server of the ``engram-memory`` contract: the governed memory service, its store,
the host binding it verifies and its MCP wiring."""

"""The conformance harness: plays the host against any MCP server of the Engram memory contract."""

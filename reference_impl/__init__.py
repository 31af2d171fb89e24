"""The reference MCP server of the Engram memory contract (issue: reference server)."""

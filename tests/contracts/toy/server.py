"""The toy contract's server on the official SDK: ``toy_echo`` answers its text; with
``--broken`` (the mutant) it answers it in capitals."""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

BROKEN = "--broken" in sys.argv[1:]
server = MCPServer("toy")


@server.tool()
def toy_echo(text: str) -> str:
    """Answer ``text``."""
    return text.upper() if BROKEN else text


if __name__ == "__main__":
    server.run("stdio")

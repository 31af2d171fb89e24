"""The toy contract's server on the official SDK: ``toy_echo`` answers its text; with
``--broken`` (the mutant) it answers it in capitals. ``--starts FILE`` adds a line to FILE each
time the server starts."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

BROKEN = "--broken" in sys.argv[1:]
server = MCPServer("toy")


@server.tool()
def toy_echo(text: str) -> str:
    """Answer ``text``."""
    return text.upper() if BROKEN else text


if __name__ == "__main__":
    if "--starts" in sys.argv:
        with Path(sys.argv[sys.argv.index("--starts") + 1]).open("a", encoding="utf-8") as starts:
            starts.write("started\n")
    server.run("stdio")

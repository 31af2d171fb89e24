"""The reference server of the ``mem`` contract (seed 003): the ``mem_*`` tools of the Engram
memory server for coding agents, on SQLite with FTS5, answering in upstream v1.7.0's text formats
and doing what the seed says where it and upstream disagree."""

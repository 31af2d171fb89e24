"""The exit codes of the ``engram-conformance`` commands: 0 ok, 1 failed, 2 unusable input."""

EXIT_OK, EXIT_FAILED, EXIT_UNUSABLE = 0, 1, 2

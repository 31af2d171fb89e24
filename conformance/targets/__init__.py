"""How the harness reaches a server: descriptors, launching, connections."""

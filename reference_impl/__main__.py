"""``python -m engram_conformance.reference_impl`` runs the ``engram-reference`` command."""

from .cli import console

console()

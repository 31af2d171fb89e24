"""The engram-memory contract's entry in the kit's registry (``spec.registry``): where its
harness plug-in and its reference server are."""

from __future__ import annotations

from ..registry import Registration

REGISTRATION = Registration(
    plugin="engram_conformance.conformance.engram_memory.plugin:CONTRACT",
    settings="engram_conformance.conformance.engram_memory.settings:SETTINGS",
    serving="engram_conformance.reference_impl.engram_memory.serving",
    reference_arguments=("--host-public-key", "{host_public_key_file}"),
    rule_index="engram_conformance.conformance.engram_memory:rule_index.json",
)

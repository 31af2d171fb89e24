"""The mem contract's entry in the kit's registry (``spec.registry``): where its harness
plug-in and its reference server are, and how ``run --reference`` starts that server."""

from __future__ import annotations

from types import MappingProxyType

from ..registry import Registration

#: the dedupe window ``run --reference`` starts the mem reference with: short enough for DEDUP-005
#: to wait it out, long enough for every other check's repeated saves to fall inside it
REFERENCE_DEDUPE_WINDOW_S = 6

REGISTRATION = Registration(
    plugin="engram_conformance.conformance.mem.plugin:CONTRACT",
    settings="engram_conformance.conformance.mem.settings:SETTINGS",
    serving="engram_conformance.reference_impl.mem.serving",
    reference_arguments=("--dedupe-window-s", str(REFERENCE_DEDUPE_WINDOW_S)),
    reference_policy=MappingProxyType({"dedupe_window_s": REFERENCE_DEDUPE_WINDOW_S}),
    rule_index="engram_conformance.conformance.mem:rule_index.json",
)

"""``targets/mem-reference.toml`` is a valid descriptor (the core's schema with every contract's
tables) of the mem reference; the tests start every server with its command
(``servers.mem_command``)."""

from __future__ import annotations

import tomllib

from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.targets.descriptor import load_descriptor

from .servers import DESCRIPTOR


def test_the_descriptor_is_valid() -> None:
    load_descriptor(DESCRIPTOR, every_settings())  # DescriptorError if not
    descriptor = tomllib.loads(DESCRIPTOR.read_text(encoding="utf-8"))
    assert descriptor["contract"] == {"name": "mem"}
    command = descriptor["server"]["command"]
    assert command[:4] == ["engram-reference", "serve", "--contract", "mem"]
    assert "{state_dir}" in command

"""``targets/mem-reference.toml`` is a valid descriptor (the schema's) of the mem reference; the
tests start every server with its command (``servers.mem_command``)."""

from __future__ import annotations

import json
import tomllib

from jsonschema import Draft202012Validator

from .servers import DESCRIPTOR

SCHEMA_FILE = DESCRIPTOR.parents[1] / "conformance" / "targets" / "descriptor.schema.json"


def test_the_descriptor_is_valid() -> None:
    descriptor = tomllib.loads(DESCRIPTOR.read_text(encoding="utf-8"))
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert list(Draft202012Validator(schema).iter_errors(descriptor)) == []
    assert descriptor["contract"] == {"name": "mem"}
    command = descriptor["server"]["command"]
    assert command[:4] == ["engram-reference", "serve", "--contract", "mem"]
    assert "{state_dir}" in command

"""A target is named by exactly one of a descriptor file, the reference server, a stdio command
line or a URL, and its descriptor keeps that name, so that a reproduction names it again."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.contracts import every_settings
from engram_conformance.conformance.targets.choice import (
    NotOneTarget,
    named_descriptor,
    target_name,
)
from engram_conformance.conformance.targets.descriptor import DescriptorError, TargetDescriptor

from ..conftest import REPO_ROOT


def chosen_descriptor(*target: Path, **options: object) -> TargetDescriptor:
    """The descriptor the front ends' target options name, as a request makes it."""
    return named_descriptor(target_name(*target, **options), every_settings())


def test_a_descriptor_file_is_named_by_its_full_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    descriptor = chosen_descriptor(Path("targets/reference.toml"))
    assert descriptor.source == "targets/reference.toml"  # as given: the reports show it so
    assert descriptor.origin == {"descriptor": str(REPO_ROOT / "targets" / "reference.toml")}


@pytest.mark.parametrize(
    ("options", "origin"),
    [
        ({"reference": True}, {"reference": "engram-memory"}),
        ({"reference": True, "contract": "engram-memory"}, {"reference": "engram-memory"}),
        ({"stdio": "server --flag"}, {"stdio": "server --flag"}),
        ({"url": "http://localhost:1/mcp"}, {"url": "http://localhost:1/mcp"}),
    ],
    ids=["reference", "reference-of-a-contract", "stdio", "url"],
)
def test_the_name_makes_the_same_descriptor_again(options: dict, origin: dict) -> None:
    descriptor = chosen_descriptor(**options)
    assert descriptor.origin == origin
    assert named_descriptor(origin, every_settings()) == descriptor


@pytest.mark.parametrize(
    "options",
    [{}, {"reference": True, "stdio": "x"}, {"stdio": "x", "url": "http://localhost/"}],
    ids=["none", "reference-and-stdio", "stdio-and-url"],
)
def test_not_one_target_is_no_choice(options: dict) -> None:
    with pytest.raises(NotOneTarget):
        chosen_descriptor(**options)


@pytest.mark.parametrize(
    "named",
    [{"target": "x.toml"}, {"reference": True}, {"stdio": "x", "contract": "engram-memory"}],
    ids=["unknown-kind", "no-string", "two-names"],
)
def test_a_name_of_no_known_kind_is_refused(named: dict) -> None:
    with pytest.raises(NotOneTarget):
        named_descriptor(named, every_settings())


def test_a_blank_command_line_is_a_descriptor_error_not_a_missing_option() -> None:
    with pytest.raises(DescriptorError, match="names no command to run"):
        chosen_descriptor(stdio="")

"""A descriptor's placeholders are names, or a name and one key: ``str.format`` read attributes
and items of any depth, format specifications and conversions (attack round 6:
``{file.__init__.__globals__[os].environ}`` put the harness's whole environment on a server's
command line, and ``{port:>9999999999999}`` asked for gigabytes)."""

from __future__ import annotations

import pytest
from engram_conformance.conformance.targets.placeholders import UnknownPlaceholder, filled, names


class _Keyed(dict[str, str]):
    def __missing__(self, key: str) -> str:
        raise LookupError(f"no {key}")


VALUES = {"port": "8080", "state_dir": "/s", "env": _Keyed(HOME="/h"), "file": _Keyed()}


def test_names_keys_and_doubled_braces_are_filled() -> None:
    assert filled("{state_dir}/x:{port} {env[HOME]} {{kept}}", VALUES) == "/s/x:8080 /h {kept}"
    assert filled("no placeholder", VALUES) == "no placeholder"


def test_a_missing_key_is_the_mappings_own_error() -> None:
    with pytest.raises(LookupError, match="no token"):
        filled("{file[token]}", VALUES)


@pytest.mark.parametrize(
    "text",
    [
        "{file.__init__.__globals__[os].environ}",
        "{env.__class__.__mro__}",
        "{env[HOME][0]}",
        "{port:>9999999999999}",
        "{port!r}",
        "{port[0]}",
        "{env}",
        "{nope}",
        "{0}",
        "{}",
        "{port",
        "port}",
    ],
)
def test_anything_else_is_unknown(text: str) -> None:
    with pytest.raises(UnknownPlaceholder):
        filled(text, VALUES)


def test_names_are_those_of_the_placeholders_alone() -> None:
    """What a launch must fill (``LaunchedTarget.unfilled``): no literal, no field that is no
    placeholder, nothing of a text whose braces do not pair."""
    assert names("--key {host_public_key_file} {{port}} {env[HOME]}:{port}") == {
        "host_public_key_file",
        "env",
        "port",
    }
    assert names("{file.__init__} {port}") == {"port"}
    assert names("{port") == set()

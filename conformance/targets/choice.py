"""Which target a run names, and the same target named again by a reproduction.

A target is named by one of four kinds: a descriptor file, the bundled reference server of a
contract, a stdio command line or a streamable HTTP URL. ``named_descriptor`` makes the
descriptor of such a name and keeps the name in it (``TargetDescriptor.origin``, a file by its
full path), so that a reproduction written after the run names the very same target
(``reproduction.reproduce``). ``target_name`` gives the name the front ends' options give
(``--target``, ``--reference``, ``--stdio``, ``--url``; ``--engram-target``, ...), which each
word ``NotOneTarget`` in their own options' names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from engram_conformance.spec import registry

from .contract_tables import ContractSettings
from .descriptor import TargetDescriptor, load_descriptor, stdio_descriptor, url_descriptor
from .reference import reference_descriptor

#: The kinds of name a target has, as ``TargetDescriptor.origin`` keys them.
KINDS = ("descriptor", "reference", "stdio", "url")


class NotOneTarget(Exception):
    """No target is named, or several are, or one by a kind ``KINDS`` does not hold."""


def target_name(
    target: Path | None = None,
    reference: bool = False,
    stdio: str | None = None,
    url: str | None = None,
    contract: str | None = None,
) -> dict[str, str]:
    """The names the options give, kind -> name: the ``target`` file, the reference server of
    ``contract`` (else the default contract), the ``stdio`` command line or the ``url``
    (``named_descriptor`` refuses any but exactly one)."""
    # given is given, even empty: `--stdio ""` is a blank command line, not a missing option
    given = {"descriptor": target, "stdio": stdio, "url": url}
    named = {kind: str(value) for kind, value in given.items() if value is not None}
    if reference:
        named["reference"] = contract or registry.DEFAULT
    return named


def named_descriptor(
    named: Mapping[str, str], settings: Iterable[ContractSettings[Any]]
) -> TargetDescriptor:
    """The descriptor of the one name in ``named`` (kind -> name), which it keeps as its
    ``origin``. NotOneTarget unless ``named`` holds exactly one name of a known kind;
    DescriptorError for a bad file, a blank or unparsable command line, or a URL that is no
    http(s) URL; UnknownContract for a reference server of no known contract. A file is
    validated against the tables of the contracts ``settings`` gives (``load_descriptor``)."""
    if len(named) != 1 or not all(k in KINDS and isinstance(v, str) for k, v in named.items()):
        raise NotOneTarget(f"{dict(named)!r} names no one target by {', '.join(KINDS)}")
    ((kind, name),) = named.items()
    if kind == "descriptor":
        path = Path(name)
        descriptor, name = load_descriptor(path, settings), str(path.resolve())
    elif kind == "reference":
        descriptor = reference_descriptor(name)
    elif kind == "stdio":
        descriptor = stdio_descriptor(name, settings)
    else:
        descriptor = url_descriptor(name)
    return dataclasses.replace(descriptor, origin={kind: name})

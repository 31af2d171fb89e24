"""The bundled reference server as a target (``engram-conformance run --reference``)."""

from __future__ import annotations

import sys

from .descriptor import TargetDescriptor


def reference_descriptor() -> TargetDescriptor:
    """``engram-reference serve`` over stdio, run by this Python, with its default policy.

    Its whole state folder is listed as state files, as in ``targets/reference.toml``.
    """
    command = (
        sys.executable,
        "-m",
        "engram_conformance.reference_impl",
        "serve",
        "--state-dir",
        "{state_dir}",
        "--host-public-key",
        "{host_public_key_file}",
    )
    return TargetDescriptor(
        name="reference", transport="stdio", command=command, state_files=("{state_dir}/**",)
    )

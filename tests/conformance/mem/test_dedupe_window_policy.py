"""The descriptor's ``[policy] dedupe_window_s``: the window a mem server was started with, read
from the shipped mem reference descriptor and from ``run --reference``, and refused when it is no
positive number."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.conformance.mem.plugin import REFERENCE_DEDUPE_WINDOW_S
from engram_conformance.conformance.targets.descriptor import DescriptorError, load_descriptor
from engram_conformance.conformance.targets.reference import reference_descriptor

from ...conftest import REPO_ROOT

SHIPPED = REPO_ROOT / "targets" / "mem-reference.toml"


def test_the_shipped_descriptor_says_the_window_it_starts_the_reference_with() -> None:
    descriptor = load_descriptor(SHIPPED)
    assert descriptor.policy.dedupe_window_s == REFERENCE_DEDUPE_WINDOW_S
    started = descriptor.command[descriptor.command.index("--dedupe-window-s") + 1]
    assert float(started) == REFERENCE_DEDUPE_WINDOW_S


def test_run_reference_starts_and_declares_the_same_window() -> None:
    descriptor = reference_descriptor("mem")
    assert descriptor.policy.dedupe_window_s == REFERENCE_DEDUPE_WINDOW_S
    assert descriptor.command[-2:] == ("--dedupe-window-s", str(REFERENCE_DEDUPE_WINDOW_S))
    assert reference_descriptor("engram-memory").policy.dedupe_window_s is None


@pytest.mark.parametrize("window", ["0", "-5", '"six"'])
def test_a_window_that_is_no_positive_number_is_refused(tmp_path: Path, window: str) -> None:
    text = SHIPPED.read_text(encoding="utf-8").replace(
        f"dedupe_window_s = {REFERENCE_DEDUPE_WINDOW_S} ", f"dedupe_window_s = {window} "
    )
    path = tmp_path / "window.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DescriptorError) as raised:
        load_descriptor(path)
    assert raised.value.key == "policy.dedupe_window_s"

"""The registry of contracts: the entry-point group, read when asked, the default first, and a
clear line for an entry that leads nowhere or an install that predates the group."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from engram_conformance.spec import registry


def entries(*pairs: tuple[str, str]) -> list[EntryPoint]:
    return [EntryPoint(name, value, registry.GROUP) for name, value in pairs]


def test_the_kit_registers_its_two_contracts_the_default_first() -> None:
    assert registry.names()[:2] == ["engram-memory", "mem"]
    mem = registry.registration("mem")
    assert mem.plugin == "engram_conformance.conformance.mem.plugin:CONTRACT"
    assert mem.serving == "engram_conformance.reference_impl.mem.serving"


def test_names_come_from_the_entries_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    found = entries(("zeta", "x:Y"), ("engram-memory", "x:Y"), ("alpha", "x:Y"))
    monkeypatch.setattr(registry, "entry_points", lambda group: found)
    assert registry.names() == ["engram-memory", "alpha", "zeta"]


def test_an_entry_that_is_no_registration_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    found = entries(("odd", "engram_conformance.spec.registry:GROUP"), ("gone", "no.such:X"))
    monkeypatch.setattr(registry, "entry_points", lambda group: found)
    with pytest.raises(registry.BadRegistration, match=r"odd = .*names a str, not a Registration"):
        registry.registration("odd")
    with pytest.raises(registry.BadRegistration, match=r"gone = no\.such:X: No module named"):
        registry.registration("gone")
    with pytest.raises(registry.UnknownContract, match="this kit knows gone, odd"):
        registry.registration("nope")


def test_an_install_without_the_group_says_to_reinstall(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    with pytest.raises(registry.UnknownContract, match=r"install engram-conformance again"):
        registry.registration("engram-memory")

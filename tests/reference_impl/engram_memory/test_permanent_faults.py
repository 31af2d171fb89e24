"""Permanent faults are not retriable (issue 12, finding 8): a pending candidate whose sealed
material no longer opens answers BLOB_MISSING (retriable false) on every try; a state folder
whose master key is lost, replaced or broken stops the server at start, in one line, exit 2,
and no new key is made for a folder that holds sealed material."""

from __future__ import annotations

from pathlib import Path

import pytest
from engram_conformance.reference_impl.cli import main
from engram_conformance.reference_impl.engram_memory.policy import HostPolicy
from engram_conformance.reference_impl.engram_memory.sealing import MASTER_KEY_FILE, WrongKey
from engram_conformance.reference_impl.engram_memory.service import MemoryService

from .test_at_rest import canary_capture, context

CAPTURE, ADMISSION = "engram_memory_capture", "engram_memory_request_admission"


def pending(service: MemoryService, number: int) -> str:
    answer = service.call(CAPTURE, canary_capture(number, "pending text"), context(CAPTURE))
    return answer["output"]["value"]["candidate_id"]


def admit(service: MemoryService, candidate_id: str, key: str) -> dict:
    arguments = {"candidate_id": candidate_id, "idempotency_key": key}
    return service.call(ADMISSION, arguments, context(ADMISSION))


@pytest.mark.parametrize("part", ["ciphertext", "wrapped_key"])
def test_material_that_no_longer_opens_is_blob_missing_every_time(
    tmp_path: Path, part: str
) -> None:
    service = MemoryService(tmp_path, HostPolicy())
    candidate_id = pending(service, 1)
    service.store.connection.execute(
        f"UPDATE candidates SET {part} = zeroblob(length({part})) WHERE candidate_id = ?",
        (candidate_id,),
    )
    for key in ("admit-damaged-0001", "admit-damaged-0001", "admit-damaged-0002"):
        answer = admit(service, candidate_id, key)
        assert answer["ok"] is False
        assert answer["error"]["code"] == "BLOB_MISSING"
        assert answer["error"]["retriable"] is False
    service.close()


def test_a_lost_key_is_not_replaced_while_sealed_material_exists(tmp_path: Path) -> None:
    service = MemoryService(tmp_path, HostPolicy())
    pending(service, 2)
    service.close()
    (tmp_path / MASTER_KEY_FILE).unlink()
    with pytest.raises(WrongKey, match="is missing, and the state folder"):
        MemoryService(tmp_path, HostPolicy())
    assert not (tmp_path / MASTER_KEY_FILE).exists()


def test_another_key_is_refused(tmp_path: Path) -> None:
    MemoryService(tmp_path / "a", HostPolicy()).close()
    MemoryService(tmp_path / "b", HostPolicy()).close()
    (tmp_path / "b" / MASTER_KEY_FILE).replace(tmp_path / "a" / MASTER_KEY_FILE)
    with pytest.raises(WrongKey, match="is not the key of the state folder"):
        MemoryService(tmp_path / "a", HostPolicy())


def test_the_same_key_opens_its_folder_again(tmp_path: Path) -> None:
    service = MemoryService(tmp_path, HostPolicy())
    candidate_id = pending(service, 3)
    service.close()
    service = MemoryService(tmp_path, HostPolicy())
    assert admit(service, candidate_id, "admit-reopened-01")["ok"] is True
    service.close()


@pytest.mark.parametrize("broken", ["missing", "empty", "other"])
def test_serve_stops_in_one_line_on_a_broken_key(
    tmp_path: Path, host_key_file: Path, capsys: pytest.CaptureFixture[str], broken: str
) -> None:
    state = tmp_path / "state"
    service = MemoryService(state, HostPolicy())
    pending(service, 4)
    service.close()
    key = state / MASTER_KEY_FILE
    if broken == "missing":
        key.unlink()
    elif broken == "empty":
        key.write_bytes(b"")
    else:
        key.write_bytes(b"k" * 32)
    argv = ["serve", "--state-dir", str(state), "--host-public-key", str(host_key_file)]
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = err.splitlines()
    assert line.startswith("engram-reference: ")
    assert "master key" in line or "32-byte key" in line

"""``engram-reference serve`` refuses bad input with one line on stderr and exit code 2."""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
)
from engram_conformance.reference_impl.cli import _open_to, main

from .servers import EXECUTABLE, TIMEOUT_S

Run = Callable[..., str]


@pytest.fixture
def refused(capsys: pytest.CaptureFixture[str]) -> Run:
    """Run the command in-process; return its one line of stderr after asserting exit code 2."""

    def run(*argv: str | Path) -> str:
        with pytest.raises(SystemExit) as exited:
            main([str(arg) for arg in argv])
        out, err = capsys.readouterr()
        assert exited.value.code == 2
        assert out == ""
        assert "Traceback" not in err
        [line] = err.splitlines()
        assert line.startswith("engram-reference: ")
        return line

    return run


def serve(state_dir: Path, key_file: Path, *options: str | Path) -> list[str | Path]:
    return ["serve", "--state-dir", state_dir, "--host-public-key", key_file, *options]


def test_a_missing_key_file(refused: Run, tmp_path: Path) -> None:
    line = refused(*serve(tmp_path / "state", tmp_path / "absent.pem"))
    assert "--host-public-key" in line
    assert "does not exist" in line


def test_a_missing_required_option(refused: Run, host_key_file: Path) -> None:
    assert "--state-dir" in refused("serve", "--host-public-key", host_key_file)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_key_file(refused: Run, host_key_file: Path, tmp_path: Path) -> None:
    unreadable = tmp_path / "host.pem"
    unreadable.write_bytes(host_key_file.read_bytes())
    unreadable.chmod(0)
    assert "not readable" in refused(*serve(tmp_path / "state", unreadable))


def pem_of(key_bytes: bytes) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        path = folder / "key.pem"
        path.write_bytes(key_bytes)
        return path

    return write


ED25519_PRIVATE = Ed25519PrivateKey.generate()
NOT_ED25519_KEYS = {
    "not PEM": pem_of(b"hello"),
    "empty": pem_of(b""),
    "an Ed25519 private key": pem_of(
        ED25519_PRIVATE.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    ),
    "an EC P-256 public key": pem_of(
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    ),
}


@pytest.mark.parametrize("write", NOT_ED25519_KEYS.values(), ids=NOT_ED25519_KEYS.keys())
def test_a_key_that_is_not_an_ed25519_public_key(
    refused: Run, tmp_path: Path, write: Callable[[Path], Path]
) -> None:
    line = refused(*serve(tmp_path / "state", write(tmp_path)))
    assert "key.pem" in line


@pytest.mark.parametrize(
    "options",
    [
        ("--http", "--port", "70000"),
        ("--http", "--port", "-1"),
        ("--http", "--port", "http"),
        ("--confirmation-required", "engram_memory_rewind"),
        ("--redact-field", "record_id"),
        ("--redact-field", "secret"),
        ("--retention-ceiling-s", "0"),
        ("--transport", "carrier-pigeon"),
    ],
)
def test_bad_options(
    refused: Run, tmp_path: Path, host_key_file: Path, options: tuple[str, ...]
) -> None:
    line = refused(*serve(tmp_path / "state", host_key_file, *options))
    assert options[0] in line or options[-1] in line


def test_a_state_folder_that_cannot_be_created(
    refused: Run, tmp_path: Path, host_key_file: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    line = refused(*serve(blocker / "state", host_key_file))
    assert "state" in line


def test_an_address_in_use(refused: Run, tmp_path: Path, host_key_file: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        line = refused(*serve(tmp_path / "state", host_key_file, "--http", "--port", port))
    assert f"cannot listen on 127.0.0.1:{port}" in line


def test_the_console_script_reports_without_traceback(tmp_path: Path) -> None:
    command = [EXECUTABLE, *serve(tmp_path / "state", tmp_path / "absent.pem")]
    run = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    assert run.returncode == 2
    assert run.stdout == ""
    [line] = run.stderr.splitlines()
    assert line.startswith("engram-reference: ")


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    main(["serve", "--help"])
    assert "--host-public-key" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "mode", "problem"),
    [
        ("a-token-long-enough-to-keep", 0o644, "can be used by others"),
        ("short", 0o600, "holds no token"),
        ("a token with spaces in it", 0o600, "holds no token"),
    ],
)
def test_a_token_file_others_can_read_or_without_a_token(
    refused: Run,
    tmp_path: Path,
    host_key_file: Path,
    content: str,
    mode: int,
    problem: str,
) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(content)
    token_file.chmod(mode)
    line = refused(*serve(tmp_path / "state", host_key_file, "--http", "--token-file", token_file))
    assert problem in line and str(token_file) in line


def test_no_auth_and_a_token_file_exclude_each_other(
    refused: Run, tmp_path: Path, host_key_file: Path
) -> None:
    options = ("--http", "--no-auth", "--token-file", tmp_path / "token")
    assert "exclude each other" in refused(*serve(tmp_path / "state", host_key_file, *options))


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("127.0.0.1", "every local user"),
        ("::1", "every local user"),
        ("localhost", "every local user"),
        ("0.0.0.0", "every local user and every host that reaches 0.0.0.0"),
        ("192.0.2.7", "every local user and every host that reaches 192.0.2.7"),
        ("my-host.example", "every local user and every host that reaches my-host.example"),
    ],
)
def test_no_auth_says_who_can_call_the_server(host: str, said: str) -> None:
    """Attack round 6: bound to 0.0.0.0 without a token, any host could call the server (it
    sends a Host of localhost), but the warning spoke of local users only."""
    assert _open_to(host) == said

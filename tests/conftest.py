"""Shared fixtures of the kit's own tests."""

from __future__ import annotations

import compileall
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from engram_conformance.spec.engram_memory import PACKAGED_ROOT, Spec, load
from hypothesis import HealthCheck, settings

from .prewarmed import commands_prewarmed

REPO_ROOT = Path(__file__).resolve().parent.parent

#: Every property test's defaults: nothing that reads the clock. Hypothesis' health check "input
#: generation is slow" failed a test of large captures (seconds a draw) whenever the machine was
#: loaded, and passed it alone (issue 25, item 6); its deadline does the same to a slow example.
#: The other health checks judge what is drawn, not how fast, and stay on. A test's own
#: ``@settings`` inherits these defaults.
settings.register_profile("kit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kit")


#: The folders of the kit's code and of the tests' own servers, which the suite's processes import.
COMPILED = ("conformance", "reference_impl", "reports", "spec", "strategies", "tests")


def pytest_configure(config: pytest.Config) -> None:
    """Write the bytecode of the kit's modules once, before any test starts a process. The suite
    starts hundreds of kits and servers (an editable install leaves the modules as source), and
    where ``PYTHONDONTWRITEBYTECODE`` is set, as on the machines the kit is developed on, each
    of them compiled every module it imports again: about 0.3 s of CPU a run and its server.
    Processes read bytecode whatever that variable says. The workers of a parallel run find it
    written by their controller."""
    # pytest caches the test modules it rewrites for its assertions only where bytecode may
    # be written: without the cache every worker of every run rewrites all of them again
    # (about 4 s of CPU a worker). Runs after the first find them written.
    sys.dont_write_bytecode = False
    if hasattr(config, "workerinput"):
        return
    for folder in COMPILED:
        compileall.compile_dir(REPO_ROOT / folder, quiet=2)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject's addopts): two workers per core. Much of the suite waits, not
    computes (servers started as processes, calls left unanswered until their time-out, windows
    waited out), so a second worker per core fills the waits of the first."""
    return 2 * len(os.sched_getaffinity(0))


@pytest.fixture(scope="session", autouse=True)
def prewarmed_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The servers the harness starts in this worker fork from one prewarmed interpreter
    (``tests/prewarmed``): each would otherwise pay about a second of CPU for its imports.
    ``ENGRAM_TESTS_EXEC_SERVERS=1`` starts each as a process of its own instead, to tell a fault
    of the zygote from one of the server."""
    if os.environ.get("ENGRAM_TESTS_EXEC_SERVERS") == "1":
        yield
        return
    with commands_prewarmed(tmp_path_factory.mktemp("prewarmed")):
        yield


@pytest.fixture(scope="session")
def spec() -> Spec:
    return load()


@pytest.fixture
def spec_copy(tmp_path: Path) -> Path:
    """A private copy of the packaged spec folder, for tests that break a file."""
    return copy_spec_folder(PACKAGED_ROOT, tmp_path / "spec")


def copy_spec_folder(root: Path, target: Path) -> Path:
    """A copy of the spec folder ``root`` at ``target``, without its Python modules."""
    shutil.copytree(root, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target

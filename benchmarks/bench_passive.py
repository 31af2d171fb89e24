"""``mem_capture_passive`` of the mem reference against the size of its text, side by side in
one run: milliseconds per call at each size for each shape of text, and the ratio of the
largest size's time to the smallest's (about the size ratio when the cost is linear, its
square when quadratic). The shapes are those that made the extraction quadratic (learnings
headings written with a tab, whose sections ran on to the end of the text; a heading followed
by a long run of blanks), ordinary ones (an error log, one learnings section), and the most
learnings one call saves (``--max-learnings``, 1,000 by default), each as long as the size
allows.

Each call goes through ``MemService.call`` in this process (arguments, extraction, the one
transaction that stores the learnings), on a fresh project, so that no learning is a duplicate.

``python benchmarks/bench_passive.py [--sizes 16384 65536 262144 1048576] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from engram_conformance.reference_impl.mem.memories import DEFAULT_MOST_LEARNINGS
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.service import MemService
from timing import median_ms  # type: ignore[import-not-found]


def repeated(unit: str) -> Callable[[int], str]:
    return lambda size: unit * (size // len(unit))


def blank_run(size: int) -> str:
    """A heading whose trailing blanks end in a character: two runs of blanks to weigh."""
    return "## Key Learnings" + " \t" * (size // 2) + ":x\n- not an item of any section"


def most_learnings(size: int) -> str:
    """``DEFAULT_MOST_LEARNINGS`` items, each as long as the size allows."""
    width = max(size // DEFAULT_MOST_LEARNINGS - 20, 24)
    item = "learned that " + "x" * width
    return "## Key Learnings:\n" + "".join(f"- {n} {item}\n" for n in range(DEFAULT_MOST_LEARNINGS))


SHAPES: dict[str, Callable[[int], str]] = {
    "headings written with a tab": repeated("##\tLearnings\n"),
    "heading, then a run of blanks": blank_run,
    "one-item sections": repeated("## Learnings\n- a learning of its own section\n"),
    "error log paragraphs": repeated("ERROR: the pool is exhausted\n\n"),
    f"{DEFAULT_MOST_LEARNINGS} learnings (the bound)": most_learnings,
}


def captured(service: MemService, text: str) -> None:
    """One capture of ``text``, in a project of its own; it must succeed."""
    project = f"p{time.perf_counter_ns()}"
    answer = service.call("mem_capture_passive", {"content": text, "project": project})
    assert not answer.is_error, answer.text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16384, 65536, 262144, 1048576])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    sizes = sorted(options.sizes)
    with tempfile.TemporaryDirectory() as folder:
        service = MemService(Path(folder), current_project("bench", Path(folder)), None)
        try:
            print(f"{'text':34}" + "".join(f"{size:>11} B" for size in sizes) + "   ratio")
            for name, shape in SHAPES.items():
                texts = [shape(size) for size in sizes]
                times = [
                    median_ms(lambda text=text: captured(service, text), options.repeats)
                    for text in texts
                ]
                cells = "".join(f"{ms:10.1f} ms" for ms in times)
                print(f"{name:34}{cells}  {times[-1] / times[0]:6.1f}")
        finally:
            service.close()
    print(f"(size ratio {sizes[-1] / sizes[0]:.0f}; medians of {options.repeats} calls)")


if __name__ == "__main__":
    main()

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
``--baseline FILE`` makes each call with another ``passive.py`` too, in the same run
(``git show REV:reference_impl/mem/passive.py > /tmp/passive_before.py``). The floor of the
bound is printed last, on a fresh store: the bound's capture, and in turn with it the same
learnings stored through the reference's ``Store`` alone (one transaction of inserts, each
indexed by FTS5), without arguments or extraction.

``python benchmarks/bench_passive.py [--sizes 16384 65536 262144 1048576] [--repeats 5]
[--baseline FILE]``
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from baseline import load_baseline  # type: ignore[import-not-found]
from engram_conformance.reference_impl.mem import passive, write_tools
from engram_conformance.reference_impl.mem.memories import DEFAULT_MOST_LEARNINGS, Draft
from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.store import Store
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
    "sections of one tiny item": repeated("## Learnings\n- a\n"),
    "sections of one item of markers": repeated("## Learnings\n- " + "*" * 19 + "\n"),
    "tiny paragraphs": repeated("ab\n\n"),
    "error log paragraphs": repeated("ERROR: the pool is exhausted\n\n"),
    f"{DEFAULT_MOST_LEARNINGS} learnings (the bound)": most_learnings,
}


def captured(service: MemService, text: str) -> None:
    """One capture of ``text``, in a project of its own; it must succeed."""
    project = f"p{time.perf_counter_ns()}"
    answer = service.call("mem_capture_passive", {"content": text, "project": project})
    assert not answer.is_error, answer.text


def drafts_of(text: str) -> list[Draft]:
    """The learnings of ``text`` as a capture stores them, in a project of their own."""
    project = f"s{time.perf_counter_ns()}"
    return [
        Draft.of(title=passive.title_of(learning), content=learning, session_id=project,
                 project=project, type=write_tools.PASSIVE_TYPE)
        for learning in passive.learnings(text)
    ]  # fmt: skip


def stored(service: MemService, drafts: list[Draft]) -> None:
    """``drafts`` stored through the ``Store`` alone: the part of a capture no extraction can
    cut (one transaction of inserts, each indexed by FTS5)."""
    store: Store = service.store
    with store.transaction():
        store.ensure_session(drafts[0].session_id, drafts[0].project)
        for draft in drafts:
            store.insert_observation(draft.values())


def floor(sizes: list[int], repeats: int) -> None:
    """The bound's capture beside its learnings stored by the ``Store`` alone, in turn on one
    fresh store (a store grows with every capture, and so does the cost of indexing)."""
    bound = SHAPES[f"{DEFAULT_MOST_LEARNINGS} learnings (the bound)"]
    rows: dict[str, list[float]] = {"the bound, captured": [], "the bound, stored alone": []}
    with tempfile.TemporaryDirectory() as folder:
        service = MemService(Path(folder), current_project("bench", Path(folder)), None)
        try:
            for size in sizes:
                text = bound(size)
                captures, stores = [], []
                for _ in range(repeats):
                    drafts = drafts_of(text)
                    captures.append(median_ms(lambda text=text: captured(service, text), 1))
                    stores.append(median_ms(lambda drafts=drafts: stored(service, drafts), 1))
                rows["the bound, captured"].append(statistics.median(captures))
                rows["the bound, stored alone"].append(statistics.median(stores))
        finally:
            service.close()
    for name, times in rows.items():
        print(f"{name + ' (fresh store)':46}" + "".join(f"{ms:10.1f} ms" for ms in times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[16384, 65536, 262144, 1048576])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="another passive.py to extract with")
    options = parser.parse_args()
    sizes = sorted(options.sizes)
    versions: dict[str, ModuleType] = {"": passive}
    if options.baseline:
        name = "engram_conformance.reference_impl.mem.passive_baseline"
        versions = {", today": passive, ", baseline": load_baseline(options.baseline, name)}
    with tempfile.TemporaryDirectory() as folder:
        service = MemService(Path(folder), current_project("bench", Path(folder)), None)
        try:
            print(f"{'text':46}" + "".join(f"{size:>11} B" for size in sizes) + "   ratio")
            for name, shape in SHAPES.items():
                texts = [shape(size) for size in sizes]
                for label, version in versions.items():
                    write_tools.passive = version  # type: ignore[attr-defined]
                    times = [
                        median_ms(lambda text=text: captured(service, text), options.repeats)
                        for text in texts
                    ]
                    cells = "".join(f"{ms:10.1f} ms" for ms in times)
                    print(f"{name + label:46}{cells}  {times[-1] / times[0]:6.1f}")
            write_tools.passive = passive  # type: ignore[attr-defined]
        finally:
            service.close()
    floor(sizes, options.repeats)
    print(f"(size ratio {sizes[-1] / sizes[0]:.0f}; medians of {options.repeats} calls)")


if __name__ == "__main__":
    main()

"""``mem_search`` of the mem reference against the number of words in its query, side by side
in one run, over the store that made a query slow: memories whose content, at the cap, is two
words repeated (``a b a b …``), so that each query word matches every memory at thousands of
positions, which FTS5 reads once per query word (and phrase position) to rank it. Queries of 1
to 32 words (the most the reference takes): a phrase every memory holds (``a-b-a-b…``), a phrase
none holds though each of its words is everywhere (``a-a-a…``), and the words apart (``a b a
b …``: a repeated word counts once). Before the bound, a 500-word phrase took 8 s and 500
separate repeats of one word minutes.

``python benchmarks/bench_mem_query.py [--memories 40] [--repeats 5]``
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path

from engram_conformance.reference_impl.mem.project import current_project
from engram_conformance.reference_impl.mem.read_tools import MAX_QUERY_WORDS
from engram_conformance.reference_impl.mem.service import MemService
from engram_conformance.reference_impl.mem.text import CONTENT_CAP
from timing import median_ms  # type: ignore[import-not-found]

COUNTS = [1, 4, 8, 16, MAX_QUERY_WORDS]


def alternating(count: int, joiner: str) -> str:
    return joiner.join("ab"[n % 2] for n in range(count))


SHAPES: dict[str, Callable[[int], str]] = {
    "phrase a-b-a-b…": lambda count: alternating(count, "-"),
    "phrase a-a-a…": lambda count: "-".join("a" * count),
    "words a b a b…": lambda count: alternating(count, " "),
}


def searched(service: MemService, query: str) -> None:
    """One search of ``query``; it must succeed."""
    answer = service.call("mem_search", {"query": query, "project": "bench"})
    assert not answer.is_error, answer.text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    content = "a b " * (CONTENT_CAP // 4)
    with tempfile.TemporaryDirectory() as folder:
        service = MemService(Path(folder), current_project("bench", Path(folder)), None)
        try:
            for number in range(options.memories):
                service.call("mem_save", {"title": f"memory {number}", "content": content})
            print(f"{'query':18}" + "".join(f"{count:>9} w" for count in COUNTS))
            for name, shape in SHAPES.items():
                queries = [shape(count) for count in COUNTS]
                times = [
                    median_ms(lambda q=query: searched(service, q), options.repeats)
                    for query in queries
                ]
                print(f"{name:18}" + "".join(f"{ms:8.1f} ms" for ms in times))
            too_many = " ".join(f"w{n}" for n in range(MAX_QUERY_WORDS + 1))
            refused = service.call("mem_search", {"query": too_many})
            print(f"{MAX_QUERY_WORDS + 1} words: {refused.text}")
        finally:
            service.close()
    stored = f"{options.memories} memories of {CONTENT_CAP} characters"
    print(f"({stored}; medians of {options.repeats})")


if __name__ == "__main__":
    main()

"""The reference's credential detector on texts built to make regular expressions backtrack.
Prints figures: milliseconds per text at two sizes, and their ratio (about 4 when the time is
linear in the text, about 16 when it is quadratic).

``python benchmarks/bench_credentials.py [--sizes 65536 262144]``
"""

from __future__ import annotations

import argparse
import time

from engram_conformance.reference_impl.credentials import carries_credential

#: name -> the unit repeated to fill a text; each once made some pattern rescan the rest.
UNITS = {
    "dotted words (URL scheme)": "a.",
    "JWT headers": "eyJ-",
    "URL userinfo": "a://a:",
    "Slack prefix": "xoxa-",
    "OpenAI prefix": "sk-",
    "password names": "pwd:",
}


def milliseconds(text: str) -> float:
    started = time.perf_counter()
    carries_credential([text])
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs=2, default=[65536, 262144])
    small, large = parser.parse_args().sizes
    print(f"{'text':28} {small:>9} B {large:>9} B  ratio")
    for name, unit in UNITS.items():
        first = milliseconds(unit * (small // len(unit)))
        second = milliseconds(unit * (large // len(unit)))
        print(f"{name:28} {first:9.1f} ms {second:9.1f} ms  {second / first:5.1f}")


if __name__ == "__main__":
    main()

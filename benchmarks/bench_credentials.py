"""The reference's credential detector on texts built to make regular expressions backtrack.
Prints figures: milliseconds per text at two sizes (by default the bounds that matter: a 64 KiB
component text and a 1 MiB argument object), and their ratio (about 16 for 16 times the text
when the time is linear in it, about 256 when it is quadratic).

Each text is scanned as the admission reads a capture: folded (format characters removed,
NFKC), alone and run together with its neighbour. The adversarial texts are repeated units,
ASCII or not (fullwidth forms and zero-width characters make the fold do its work), and a text
cut into as many components as the seed allows (64), so that the joined views are the longest.

``python benchmarks/bench_credentials.py [--sizes 65536 1048576]``
"""

from __future__ import annotations

import argparse
import time

from engram_conformance.reference_impl.engram_memory.credentials import carries_credential

#: name -> the unit repeated to fill a text; each once made some pattern rescan the rest, or
#: makes the fold or the bare-key test do the most work per character.
UNITS = {
    "dotted words (URL scheme)": "a.",
    "JWT headers": "eyJ-",
    "URL userinfo": "a://a:",
    "Slack prefix": "xoxa-",
    "OpenAI prefix": "sk-",
    "password names": "pwd:",
    "pair names, spaces": "password  ",
    "bearer, spaces": "bearer ",
    "armour headers": "-----BEGIN A B C D ",
    "cookie headers": "cookie:a",
    "40-char key-like runs": "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hI6kL9n ",
    "long base64 run": "aB3/",
    "fullwidth pairs": "\uff50\uff57\uff44\uff1a",
    "zero-width between letters": "a\u200b",
}
#: The most components a capture holds: its text cut this many times, to read run together.
COMPONENTS = 64


def milliseconds(texts: list[str]) -> float:
    started = time.perf_counter()
    carries_credential(texts)
    return (time.perf_counter() - started) * 1000


def filled(unit: str, size: int) -> str:
    """``unit`` repeated to ``size`` UTF-8 bytes (at most)."""
    return unit * (size // len(unit.encode()))


def split(text: str, parts: int) -> list[str]:
    step = -(-len(text) // parts)
    return [text[at : at + step] for at in range(0, len(text), step)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs=2, default=[65536, 1048576])
    small, large = parser.parse_args().sizes
    print(f"{'text':30} {small:>9} B {large:>9} B  ratio  {large:>9} B in {COMPONENTS} parts")
    for name, unit in UNITS.items():
        first = milliseconds([filled(unit, small)])
        second = milliseconds([filled(unit, large)])
        parts = milliseconds(split(filled(unit, large), COMPONENTS))
        print(f"{name:30} {first:9.1f} ms {second:9.1f} ms  {second / first:5.1f}  {parts:9.1f} ms")


if __name__ == "__main__":
    main()

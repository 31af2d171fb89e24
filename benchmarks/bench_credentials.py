"""The reference's credential detector on texts built to make regular expressions backtrack.
Prints figures: milliseconds per text at two sizes (by default the bounds that matter: a 64 KiB
component text and a 1 MiB argument object), and their ratio (about 16 for 16 times the text
when the time is linear in it, about 256 when it is quadratic).

Each text is scanned as the admission reads a capture: folded (format characters removed,
NFKC), alone and run together with its neighbour. The adversarial texts are repeated units,
ASCII or not (fullwidth forms and zero-width characters make the fold do its work), and a text
cut into as many components as the seed allows (64), so that the joined views are the longest.

Prose is scanned too (words drawn from a list, ASCII or with one accented letter per
component, and Japanese), in 16 components of 64 KiB, the way an ordinary capture at the 1 MiB
bound is read. ``--baseline FILE`` scans each text with another ``credentials.py`` too, in the
same run: ``git show REV:reference_impl/engram_memory/credentials.py > /tmp/before.py``.

``python benchmarks/bench_credentials.py [--sizes 65536 1048576] [--baseline /tmp/before.py]``
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from baseline import load_baseline  # type: ignore[import-not-found]
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


#: Words of prose, some of them names the detector looks for.
WORDS = ["the", "memory", "Decision", "applied", "aB3xYz", "configuration", "value", "token",
         "foo/bar+baz", "password", "session", "key", "cookie", "secret", "Bearer"]  # fmt: skip
PROSE_PARTS = 16

Scan = Callable[[Iterable[str]], bool]


def milliseconds(texts: list[str], scan: Scan = carries_credential) -> float:
    """The median of three scans of ``texts``."""
    samples = []
    for _ in range(3):
        started = time.perf_counter()
        scan(texts)
        samples.append((time.perf_counter() - started) * 1000)
    return sorted(samples)[1]


def prose(size: int, ending: str, rng: random.Random) -> str:
    words: list[str] = []
    while sum(map(len, words)) + len(words) < size:
        words.append(rng.choice(WORDS))
    return " ".join(words)[: size - len(ending)] + ending


def prose_texts() -> dict[str, list[str]]:
    rng = random.Random(7)
    part = 65536
    return {
        "prose, ASCII": [prose(part, "", rng) for _ in range(PROSE_PARTS)],
        "prose, one accented letter": [prose(part, "\u00f1", rng) for _ in range(PROSE_PARTS)],
        "prose, Japanese": ["\u8a18\u61b6\u3092\u9069\u7528\u3057\u305f\u3002" * 8192] * 16,
    }


def filled(unit: str, size: int) -> str:
    """``unit`` repeated to ``size`` UTF-8 bytes (at most)."""
    return unit * (size // len(unit.encode()))


def split(text: str, parts: int) -> list[str]:
    step = -(-len(text) // parts)
    return [text[at : at + step] for at in range(0, len(text), step)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs=2, default=[65536, 1048576])
    parser.add_argument("--baseline", type=Path, help="another credentials.py to scan with")
    options = parser.parse_args()
    small, large = options.sizes
    scans: dict[str, Scan] = {"today": carries_credential}
    if options.baseline:
        scans["baseline"] = load_baseline(
            options.baseline, "credentials_baseline"
        ).carries_credential
    print(f"{'text':40} {small:>9} B {large:>9} B  ratio  {large:>9} B in {COMPONENTS} parts")
    for name, unit in UNITS.items():
        for label, scan in scans.items():
            first = milliseconds([filled(unit, small)], scan)
            second = milliseconds([filled(unit, large)], scan)
            parts = milliseconds(split(filled(unit, large), COMPONENTS), scan)
            print(
                f"{name + ', ' + label:40} {first:9.1f} ms {second:9.1f} ms  {second / first:5.1f}"
                f"  {parts:9.1f} ms"
            )
    print(f"\n{'prose in ' + str(PROSE_PARTS) + ' components of 64 KiB':40} {'ms':>9}")
    for name, texts in prose_texts().items():
        for label, scan in scans.items():
            print(f"{name + ', ' + label:40} {milliseconds(texts, scan):9.1f}")


if __name__ == "__main__":
    main()

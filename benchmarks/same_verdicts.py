"""Same verdicts before and after a change: run the kit of two checkouts against the same
targets with the same seed, and compare every rule's verdict in their report.json.

    python benchmarks/same_verdicts.py --before /tmp/base/.venv/bin/engram-conformance \
        --after .venv/bin/engram-conformance --out /tmp/verdicts

Each checkout runs ``engram-conformance run --seed 1 --profile PROFILE`` (``--profile``, default
quick) against each target
(both references by default; ``--peer`` adds the real Engram v1.20.0 through
``targets/peers/engram-v1.toml``, which needs ``ENGRAM_PEERS_DIR``). A target's reports (and
the run's output, ``run.log``) are kept in ``OUT/<side>/<target>/`` (``OUT/<side>/<target>-full/``
for the full profile), and a side whose
report.json is already there is not run again (``--fresh`` runs it anyway), so that "before" is
measured once. Exit 0 when every rule has the
same verdict on both sides (and the same rules), 1 otherwise, with each difference printed.

A verdict the harness itself says is timing-dependent may differ between two runs of one
checkout on a loaded machine: run it twice before blaming the change.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

#: target name -> the ``run`` options that name it
TARGETS = {
    "engram-memory-reference": ("--reference", "--contract", "engram-memory"),
    "mem-reference": ("--reference", "--contract", "mem"),
}
PEER = {"engram-v1.20.0": ("--target", "targets/peers/engram-v1.toml")}


def verdicts(report: Path) -> dict[str, str]:
    """Rule id -> verdict, as report.json gives them."""
    document = json.loads(report.read_text(encoding="utf-8"))
    return {rule["id"]: rule["verdict"] for rule in document["rules"]}


def run_side(
    kit: str, checkout: Path, options: tuple[str, ...], report_dir: Path, profile: str
) -> Path:
    """The report.json of ``kit`` run in ``checkout`` with ``options`` in ``profile`` (run
    when missing)."""
    report = report_dir / "report.json"
    if not report.is_file():
        report_dir.mkdir(parents=True, exist_ok=True)
        command = [kit, "run", *options, "--seed", "1", "--profile", profile, "-q"]
        command += ["--no-example-db", "--report-dir", str(report_dir)]
        with (report_dir / "run.log").open("w", encoding="utf-8") as log:
            finished = subprocess.run(  # noqa: S603 - the kit's own command
                command, cwd=checkout, stdout=log, stderr=subprocess.STDOUT, check=False
            )
        if finished.returncode not in (0, 1) or not report.is_file():
            sys.exit(f"{' '.join(command)} ended with {finished.returncode}: see {log.name}")
    return report


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Each rule whose verdict is not the same on both sides, in words."""
    return [
        f"{rule}: {before.get(rule, 'absent')} -> {after.get(rule, 'absent')}"
        for rule in sorted(before.keys() | after.keys())
        if before.get(rule) != after.get(rule)
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the engram-conformance of 'before'")
    parser.add_argument("--after", required=True, help="the engram-conformance of 'after'")
    parser.add_argument("--before-checkout", type=Path, help="its checkout (default: its venv's)")
    parser.add_argument("--after-checkout", type=Path, help="its checkout (default: its venv's)")
    parser.add_argument("--out", type=Path, required=True, help="where the reports go")
    parser.add_argument("--peer", action="store_true", help="also the real Engram v1.20.0")
    parser.add_argument("--only-target", action="append", help="only these targets")
    parser.add_argument("--fresh", action="store_true", help="run again what has a report")
    parser.add_argument("--profile", choices=("quick", "full"), default="quick")
    arguments = parser.parse_args()
    targets = {**TARGETS, **(PEER if arguments.peer else {})}
    if arguments.only_target:
        targets = {name: targets[name] for name in arguments.only_target}
    sides = {
        "before": (arguments.before, arguments.before_checkout),
        "after": (arguments.after, arguments.after_checkout),
    }
    different = False
    for target, options in targets.items():
        found = {}
        for side, (kit, checkout) in sides.items():
            suffix = "" if arguments.profile == "quick" else f"-{arguments.profile}"
            report_dir = arguments.out / side / f"{target}{suffix}"
            if arguments.fresh and (report_dir / "report.json").is_file():
                (report_dir / "report.json").unlink()
            where = checkout or Path(kit).resolve().parents[2]
            found[side] = verdicts(run_side(kit, where, options, report_dir, arguments.profile))
        changed = differences(found["before"], found["after"])
        different |= bool(changed)
        print(f"{target}: {len(found['after'])} rules, {len(changed)} verdicts differ")
        for line in changed:
            print(f"  {line}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())

"""How much CPU the page of a Korf-100 study costs: `fastsnake report STUDY.parquet`, which never searches.

    python bench/bench_study_report.py --rows korf100.parquet      # a rows file you have
    python bench/bench_study_report.py                             # makes one first (minutes; not timed)

The rows file it makes when none is given is Korf's 100 15-puzzles with three heuristics:
``fastsnake puzzle compare --instances korf100 --heuristics pdb,pdb-max,walking-distance --out FILE``.
Figures (printed, with the machine and the load): the whole ``fastsnake report FILE --out PAGE --json``
process, CPU-seconds (user + system, the child's own) and wall, median of `--rounds`; against a child
that starts the same interpreter, imports fastsnake's study code and reads the same rows file (the
floor any page pays), measured in the same rounds, alternating. It asserts the target of issue
64: the page builds in at most 10 CPU-s, with no problem line (every kept solution replays).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_CPU_SECONDS = 10.0
MAKE = ["puzzle", "compare", "--instances", "korf100", "--heuristics", "pdb,pdb-max,walking-distance"]
FLOOR = """
import sys
import fastsnake.puzzle.study, fastsnake.viewer.study_report
from fastsnake.study.rows import read_rows
meta, table = read_rows(sys.argv[1])
table.to_pylist()
"""


def _child(argv) -> tuple[float, float, subprocess.CompletedProcess]:
    """(CPU-seconds, wall seconds, the finished process) of one child run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", help="a puzzle study's rows file (default: make the Korf-100 one first)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from fastsnake import machine

    exe = [sys.executable, "-m", "fastsnake"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = args.rows
        if rows is None:
            rows = os.path.join(tmp, "korf100.parquet")
            print(f"making the rows file (not timed): fastsnake {' '.join(MAKE)} --out {rows}", file=sys.stderr)
            subprocess.run([*exe, *MAKE, "--out", rows, "--quiet", "--json"], check=True, stdout=subprocess.DEVNULL)
        page = os.path.join(tmp, "study.html")
        subprocess.run([*exe, "report", rows, "--out", page], check=False, capture_output=True)  # warm the disk
        report, floor = [], []
        info = None
        for _ in range(args.rounds):
            cpu, wall, done = _child([*exe, "report", rows, "--out", page, "--json"])
            if done.returncode != 0:
                print(done.stderr, file=sys.stderr)
                raise SystemExit(f"fastsnake report exited {done.returncode}")
            info = json.loads(done.stdout)
            report.append((cpu, wall))
            cpu, wall, done = _child([sys.executable, "-c", FLOOR, rows])
            assert done.returncode == 0, done.stderr
            floor.append((cpu, wall))
    cpu_r, wall_r = statistics.median(c for c, _ in report), statistics.median(w for _, w in report)
    cpu_f = statistics.median(c for c, _ in floor)
    print(f"machine: {machine.describe()}; load {os.getloadavg()[0]:.1f}; {args.rounds} rounds, medians")
    print(f"rows file: {rows if args.rows else 'Korf-100, ' + MAKE[-1]}: {info['trials']} instances, "
          f"{', '.join(info['algorithms'])}; page {info['bytes'] / 1e6:.2f} MB, {info['picked']} solutions "
          f"({info['embedded']} replayed), problems: {len(info['problems'])}")
    print(f"fastsnake report (whole process): {cpu_r:.2f} CPU-s, {wall_r:.2f} s wall")
    print(f"reading the rows (the floor):     {cpu_f:.2f} CPU-s; report / floor {cpu_r / cpu_f:.2f}x")
    assert info["problems"] == [], info["problems"]
    assert cpu_r <= TARGET_CPU_SECONDS, f"the page took {cpu_r:.1f} CPU-s, the target is {TARGET_CPU_SECONDS}"
    return 0


if __name__ == "__main__":
    sys.exit(main())

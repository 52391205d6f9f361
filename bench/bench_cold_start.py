"""Cold starts: how long a first call takes with an empty numba cache, and how long the same call
takes once the cache is warm (issue 29).

Each case runs in a fresh subprocess twice with the same, initially empty, temporary
NUMBA_CACHE_DIR: the first run compiles everything the case needs (cold), the second loads it
from the cache (warm). "compile share" is the part of the cold run the warm run does not pay:
(cold - warm) / cold.

    python bench/bench_cold_start.py                       # every case, one at a time
    python bench/bench_cold_start.py --only play-cycle,tour --jobs 2
    python bench/bench_cold_start.py --list                # the case names
    python bench/bench_cold_start.py --markdown            # the table for docs/performance.md

Cases run serially by default: two cold compiles side by side on a 2-core machine measure the
machine, not fastsnake. This is a script, not a pytest benchmark (a cold case takes minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "fastsnake"]
# Built-in policies, as `fastsnake policies` lists them (aliases like `strongest` included: a
# newcomer types those).
POLICIES = ("cycle", "greedy", "greedy-dynamic", "phc", "phc-faithful", "dhcr", "snake-ai", "snake-ai-safe",
            "thesis-shortcut", "thesis-shortcut-faithful", "cell", "grove", "strongest")

PUZZLE_3X3 = "8 6 7 2 5 4 3 0 1"  # one of the two hardest 3x3 instances (31 moves)
PUZZLE_5X5 = "2 20 7 21 17 15 23 16 24 11 1 22 12 10 3 4 5 8 0 9 14 18 13 6 19"  # puzzle random --seed 1
ENV_STEP = """
import gymnasium, numpy as np, fastsnake.envs
envs = gymnasium.make_vec("fastsnake/Snake-v0", num_envs=8, vectorization_mode="vector_entry_point", size=10)
envs.reset(seed=0)
envs.step(np.zeros(8, dtype=np.int64))
"""
USER_POLICY_SWEEP = f"""
import sys
sys.path.insert(0, {str(REPO / "examples" / "fastsnake-zigzag")!r})
import fastsnake, fastsnake_zigzag
fastsnake.sweep(fastsnake_zigzag.POLICY, 10, 1000)
"""

LIBRARY_CALLS = {"env-make_vec-step": "gymnasium.make_vec(..., num_envs=8) + reset + step (python)",
                 "user-numba-policy-sweep": "fastsnake.sweep(fastsnake_zigzag.POLICY, 10, 1000) (python)"}


def cases() -> dict[str, list[str]]:
    """name -> argv of one first call (a CLI verb, or `python -c` for the library)."""
    found = {f"play-{p}": CLI + ["play", "--policy", p, "--size", "10"] for p in POLICIES}
    found.update({
        "policies": CLI + ["policies"],
        "sweep-cycle": CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "1000"],
        "compare-cycle-greedy": CLI + ["compare", "--size", "10", "--games", "100", "--policies", "cycle,greedy"],
        "puzzle-astar-3x3": CLI + ["puzzle", "solve", "--size", "3", "--start", PUZZLE_3X3, "--algorithm", "astar"],
        "puzzle-idastar-3x3": CLI + ["puzzle", "solve", "--size", "3", "--start", PUZZLE_3X3,
                                     "--algorithm", "idastar"],
        "puzzle-reduce-5x5": CLI + ["puzzle", "solve", "--size", "5", "--start", PUZZLE_5X5,
                                    "--algorithm", "reduce"],
        "puzzle-random": CLI + ["puzzle", "random", "--size", "3"],
        "tour-knight-8-closed": CLI + ["tour", "--piece", "1,2", "--size", "8", "--closed"],
        "reach-knight-8": CLI + ["reach", "--piece", "1,2", "--size", "8", "--jumps", "3"],
        "env-make_vec-step": [sys.executable, "-c", ENV_STEP],
        "user-numba-policy-sweep": [sys.executable, "-c", USER_POLICY_SWEEP],
        "warm-all": CLI + ["warm", "--all"],
        "replay-from-sweep": CLI + ["replay", "--from", "{work}/sweep.parquet", "--pick", "longest",
                                    "--out", "{work}/game.npz"],
        "replay-check": CLI + ["replay", "--check", "{work}/game.npz"],
        "report": CLI + ["report", "{work}/sweep.parquet", "--out", "{work}/report.html"],
    })
    return found


# Files a case reads, made first with a cache of their own (so the case's cache stays cold).
SETUP = {
    "replay-from-sweep": [CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "100",
                                 "--out", "{work}/sweep.parquet"]],
    "replay-check": [CLI + ["play", "--policy", "cycle", "--size", "10", "--replay", "{work}/game.npz"]],
    "report": [CLI + ["sweep", "--policy", "cycle", "--size", "10", "--games", "100",
                      "--out", "{work}/sweep.parquet"]],
}


def timed(argv: list[str], cache: str) -> tuple[float, str | None]:
    """(wall seconds, error text or None) of one run with NUMBA_CACHE_DIR=cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=REPO)
    seconds = time.perf_counter() - t0
    error = None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
    return seconds, error


def measure(name: str, argv: list[str]) -> dict:
    cache = tempfile.mkdtemp(prefix=f"cold-{name}-")
    work = tempfile.mkdtemp(prefix=f"work-{name}-")
    setup_cache = tempfile.mkdtemp(prefix=f"setup-{name}-")
    label = " ".join(["fastsnake"] + [a.replace("{work}/", "") for a in argv[3:]]) if argv[:3] == CLI \
        else LIBRARY_CALLS[name]
    argv = [a.replace("{work}", work) for a in argv]
    try:
        error = None
        for step in SETUP.get(name, []):
            error = error or timed([a.replace("{work}", work) for a in step], setup_cache)[1]
        cold, error = timed(argv, cache) if error is None else (float("nan"), error)
        warm, error2 = timed(argv, cache) if error is None else (float("nan"), None)
    finally:
        for folder in (cache, work, setup_cache):
            shutil.rmtree(folder, ignore_errors=True)
    row = {"case": name, "command": label,
           "cold_seconds": round(cold, 1), "warm_seconds": round(warm, 1),
           "compile_share": round((cold - warm) / cold, 2) if cold == cold and warm == warm else None}
    if error or error2:
        row["error"] = error or error2
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated case names (default: all; see --list)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run side by side (default 1: serially)")
    parser.add_argument("--list", action="store_true", help="print the case names and stop")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--json", action="store_true", help="print one JSON list on stdout")
    args = parser.parse_args(argv)
    table = cases()
    if args.list:
        print("\n".join(table))
        return 0
    names = args.only.split(",") if args.only else list(table)
    unknown = [n for n in names if n not in table]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r} (see --list)")
    started = time.perf_counter()

    def run(name):
        row = measure(name, table[name])
        sys.stderr.write(f"{name}: cold {row['cold_seconds']} s, warm {row['warm_seconds']} s"
                         f"{'  ERROR ' + row['error'] if 'error' in row else ''}\n")
        return row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        rows = list(pool.map(run, names))
    sys.stderr.write(f"{len(rows)} cases in {time.perf_counter() - started:.0f} s, {args.jobs} at a time\n")
    if args.json:
        print(json.dumps(rows))
    elif args.markdown:
        print("| case | command | cold s | warm s | compile share |\n|---|---|---:|---:|---:|")
        for r in rows:
            share = "error: " + r["error"] if "error" in r else f"{r['compile_share']:.0%}"
            print(f"| {r['case']} | `{r['command']}` | {r['cold_seconds']} | {r['warm_seconds']} | {share} |")
    else:
        width = max(len(r["case"]) for r in rows)
        print(f"{'case'.ljust(width)}  cold s  warm s  compile")
        for r in rows:
            share = "ERROR " + r["error"] if "error" in r else f"{r['compile_share']:.0%}"
            print(f"{r['case'].ljust(width)}  {r['cold_seconds']:6.1f}  {r['warm_seconds']:6.1f}  {share}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
